#!/usr/bin/env bash
# Fault suite of the Activity Service (issue 21): packaged replicas in cluster mode on one PostgreSQL, an ActiveMQ
# broker process with a persistent store and LocalStack SQS, while events stream over JMS, SQS and REST and faults
# are injected one at a time; see perf-tests/README.md, "Fault suite".
#   perf-tests/fault.sh [--faults broker,pg-restart,pg-refuse,sqs-down,sigstop,sigkill|none] [--soak-minutes 30]
#                       [--rate 30] [--soak-rate N] [--no-build] [more: --help]
# Builds what is stale (service jar, runner), starts LocalStack on the host if needed (never stops it), runs
# io.activityservice.perf.FaultSuite and writes perf-tests/target/fault/<time>/report.md and report.csv.
# Everything runs at the niceness of this script: on a shared machine, run it as `nice -n 19 perf-tests/fault.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."

NO_BUILD=false
ARGS=()
for a in "$@"; do
  case "$a" in
    --no-build) NO_BUILD=true ;;
    -h|--help) sed -n '2,9p' "$0"; ARGS+=("--help") ;;
    *) ARGS+=("$a") ;;
  esac
done

JAR="activity-service/target/activity-service-0.1.0-SNAPSHOT.jar"
RUNNER="perf-tests/target/perf-runner.jar"
newer_sources() {
  local target="$1"; shift
  [[ -f "$target" ]] || return 0
  [[ -n "$(find "$@" -type f \( -name '*.java' -o -name 'pom.xml' -o -name '*.yml' -o -name '*.sql' -o -name '*.properties' \) \
           -newer "$target" -print -quit 2>/dev/null)" ]]
}
if [[ "$NO_BUILD" == false ]]; then
  if newer_sources "$JAR" pom.xml activity-service event-service channel-adapters complex-event-detector rule-execution; then
    echo "fault.sh: building the service jar" >&2
    ./mvnw -q -B -pl activity-service -am package -DskipTests
  fi
  if newer_sources "$RUNNER" perf-tests/src/main perf-tests/pom.xml event-service channel-adapters test-support || [[ ! -d perf-tests/target/lib ]]; then
    echo "fault.sh: building the runner" >&2
    # The reactor, not -f perf-tests/pom.xml: the runner must use this tree's modules, not whatever ~/.m2 holds.
    ./mvnw -q -B -pl perf-tests -am package -DskipTests
  fi
fi
if [[ " ${ARGS[*]-} " != *" --sqs-endpoint "* ]]; then
  curl -sf 127.0.0.1:4566/_localstack/health >/dev/null || infra/localstack/start.sh >&2
fi
exec java -Xms128m -Xmx1g -cp "$RUNNER" io.activityservice.perf.FaultSuite ${ARGS[@]+"${ARGS[@]}"}
