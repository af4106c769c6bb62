#!/usr/bin/env bash
# Channel-to-channel performance suite of the Activity Service: see perf-tests/README.md.
#   perf-tests/run.sh [--quick] [--no-build] [--service-url URL] [--activemq-url URL | --activemq-process]
#                     [--sqs-endpoint URL | --sqs=aws] [--kafka BROKERS | --no-kafka] [--compare-jar OLD.jar] [more: --help]
#   perf-tests/run.sh --specjms --base N [--topology horizontal|vertical] [--specjms-search]   (SPECjms2007, docs/performance.md)
# Builds what is missing or stale (service jar, runner), starts LocalStack on the host if the default
# endpoint is used, runs the suite (progress on stderr) and writes perf-tests/target/report/.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

NO_BUILD=false
SQS_DEFAULT=true
SERVICE_URL=""
QUICK=false
PEER=""
prev=""
for a in "$@"; do
  if [[ "$prev" == "--peer" ]]; then PEER="$a"; fi
  prev="$a"
  case "$a" in
    --quick) QUICK=true ;;
    --specjms|--specjms-search) PEER="${PEER:-none}" ;;  # the SPECjms workload needs no Camel peer
    --peer=*) PEER="${a#--peer=}" ;;
    --no-build) NO_BUILD=true ;;
    --sqs-endpoint|--sqs-endpoint=*|--sqs=aws) SQS_DEFAULT=false ;;
    --service-url|--service-url=*) SERVICE_URL=yes ;;
    -h|--help) sed -n '2,7p' "$0"; exec java -cp perf-tests/target/perf-runner.jar io.activityservice.perf.PerfRunner --help 2>&1 || true; exit 2 ;;
  esac
done

JAR="activity-service/target/activity-service-0.1.0-SNAPSHOT.jar"
RUNNER="perf-tests/target/perf-runner.jar"

# newer_sources TARGET DIR...: true if any source file under DIR is newer than TARGET (or TARGET is missing)
newer_sources() {
  local target="$1"; shift
  [[ -f "$target" ]] || return 0
  [[ -n "$(find "$@" -type f \( -name '*.java' -o -name 'pom.xml' -o -name '*.yml' -o -name '*.sql' -o -name '*.properties' \) \
           -newer "$target" -print -quit 2>/dev/null)" ]]
}

# --batching-sweep: SQS send batching, fixed sizes vs adaptive (io.activityservice.perf.batching.BatchingSweep)
# instead of the suite; no service is started. Options and output: the package io.activityservice.perf.batching.
if [[ " $* " == *" --batching-sweep "* ]]; then
  if [[ "$NO_BUILD" == false ]] && newer_sources "$RUNNER" perf-tests/src/main perf-tests/pom.xml channel-adapters test-support; then
    echo "perf-tests: building the runner with this tree's adapters" >&2
    ./mvnw -q -B -pl perf-tests -am package -DskipTests
  fi
  if [[ "$SQS_DEFAULT" == true ]]; then infra/localstack/start.sh >&2; fi
  exec java -Xms256m -Xmx1g -cp "$RUNNER" io.activityservice.perf.batching.BatchingSweep "$@"
fi

if [[ "$NO_BUILD" == false ]]; then
  if [[ -z "$SERVICE_URL" ]]; then
    SERVICE_SOURCES=(pom.xml activity-service event-service channel-adapters)
    for m in complex-event-detector rule-execution; do [[ -d "$m" ]] && SERVICE_SOURCES+=("$m"); done
    if newer_sources "$JAR" "${SERVICE_SOURCES[@]}"; then
      echo "perf-tests: building the service jar" >&2
      ./mvnw -q -B -pl activity-service -am package -DskipTests
    else
      echo "perf-tests: reusing $JAR (newer than its sources)" >&2
    fi
  fi
  if newer_sources "$RUNNER" perf-tests/src/main perf-tests/pom.xml test-support || [[ ! -d perf-tests/target/lib ]]; then
    echo "perf-tests: building the runner" >&2
    # The reactor, not -f perf-tests/pom.xml: the runner uses this tree's modules (test-support's ServiceProcess
    # among them), not whatever ~/.m2 holds.
    ./mvnw -q -B -pl perf-tests -am package -DskipTests
  fi
  # The Camel peer (perf-peer-camel): on by default in full runs, off in quick ones unless --peer camel.
  if [[ "$PEER" == "camel" || ( -z "$PEER" && "$QUICK" == false && -z "$SERVICE_URL" ) ]]; then
    if newer_sources perf-peer-camel/target/perf-peer-camel.jar perf-peer-camel; then
      echo "perf-tests: building the Camel peer" >&2
      ./mvnw -q -B -pl perf-peer-camel package -DskipTests
    fi
  fi
fi
[[ -f "$RUNNER" ]] || { echo "perf-tests: $RUNNER is missing; run without --no-build" >&2; exit 2; }
if [[ -z "$SERVICE_URL" && ! -f "$JAR" ]]; then
  echo "perf-tests: $JAR is missing; run without --no-build" >&2; exit 2
fi

if [[ "$SQS_DEFAULT" == true ]]; then
  # Idempotent: reuses a LocalStack already answering on 127.0.0.1:4566.
  infra/localstack/start.sh >&2
fi

export PERF_GIT_COMMIT="$(git rev-parse HEAD 2>/dev/null || echo unknown)$( [[ -n "$(git status --porcelain 2>/dev/null)" ]] && echo ' (uncommitted changes)')"
exec java -Xms256m -Xmx3g -XX:+UseParallelGC -jar "$RUNNER" --service-jar "$ROOT/$JAR" "$@"
