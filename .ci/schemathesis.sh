#!/usr/bin/env bash
# Fuzzes the running service against its own OpenAPI document with schemathesis (docs/guide.md, "Bad input").
#
# Starts the packaged jar (activity-service/target/activity-service-*.jar, built by `./mvnw verify`) with its
# embedded defaults on free ports, a temporary data directory and a random bootstrap admin key, then runs
#   schemathesis run <url>/v3/api-docs --checks all -H "Authorization: Bearer <key>"
# with a bounded number of examples per operation. Prints the cases and failures, stops the service, and exits
# non-zero on any failure. Needs python3 (3.9+) and PyPI; the venv is kept under ~/.cache between runs.
#
# Environment: SCHEMATHESIS_MAX_EXAMPLES (default 20 per operation), SCHEMATHESIS_SEED (default fixed, so a
# failure reproduces; set "random" for a new seed), SCHEMATHESIS_VENV (default ~/.cache/activity-schemathesis/venv).
set -euo pipefail
cd "$(dirname "$0")/.."

SCHEMATHESIS_VERSION=4.32.5
MAX_EXAMPLES="${SCHEMATHESIS_MAX_EXAMPLES:-20}"
SEED="${SCHEMATHESIS_SEED:-20261123}"
VENV="${SCHEMATHESIS_VENV:-$HOME/.cache/activity-schemathesis/venv}"

if [[ ! -x "$VENV/bin/schemathesis" ]] || ! "$VENV/bin/schemathesis" --version | grep -q "$SCHEMATHESIS_VERSION"; then
  echo "schemathesis: installing schemathesis==$SCHEMATHESIS_VERSION into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

shopt -s nullglob
all_jars=(activity-service/target/activity-service-*.jar)
jars=()
for j in "${all_jars[@]}"; do  # the quick-start jar: not sources, not the lean jar (no embedded servers)
  [[ "$j" == *sources.jar || "$j" == *-lean.jar ]] || jars+=("$j")
done
if [[ ${#jars[@]} -eq 0 || -z "${jars[0]}" ]]; then
  echo "schemathesis: no activity-service/target/activity-service-*.jar; run ./mvnw verify first" >&2
  exit 1
fi
JAR="$(cd "$(dirname "${jars[0]}")" && pwd)/$(basename "${jars[0]}")"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
HTTP_PORT=$(free_port); JMS_PORT=$(free_port); SQS_PORT=$(free_port)
WORK="$(mktemp -d "${TMPDIR:-/tmp}/activity-schemathesis.XXXXXX")"
KEY="$(python3 -c 'import secrets; print(secrets.token_hex(32))')"
URL="http://127.0.0.1:$HTTP_PORT"

SERVICE_PID=""
stop_service() {
  if [[ -n "$SERVICE_PID" ]] && kill -0 "$SERVICE_PID" 2>/dev/null; then
    kill "$SERVICE_PID" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$SERVICE_PID" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$SERVICE_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap stop_service EXIT

# Embedded defaults (H2 file database, ActiveMQ broker, ElasticMQ) under the temporary directory, on free ports,
# so no LocalStack or other server is needed and nothing clashes with a service already running here.
echo "schemathesis: starting $(basename "$JAR") on $URL (data in $WORK)"
(cd "$WORK" && ACTIVITY_SECURITY_BOOTSTRAP_ADMIN_KEY="$KEY" exec java -Xmx512m -jar "$JAR" \
    --server.port="$HTTP_PORT" \
    --activity.channels.jms.embedded-broker.port="$JMS_PORT" \
    --activity.channels.jms.embedded-broker.persistent=false \
    --activity.channels.sqs.embedded.port="$SQS_PORT" \
    --activity.console.stream.idle-timeout=1s \
    --logging.level.root=WARN > "$WORK/service.log" 2>&1) &
SERVICE_PID=$!

for _ in $(seq 1 120); do
  if curl -fsS "$URL/actuator/health" > /dev/null 2>&1; then break; fi
  if ! kill -0 "$SERVICE_PID" 2>/dev/null; then
    echo "schemathesis: the service did not start:" >&2; tail -50 "$WORK/service.log" >&2; exit 1
  fi
  sleep 1
done
curl -fsS "$URL/actuator/health" > /dev/null || { echo "schemathesis: the service is not healthy" >&2; exit 1; }

# No operation is excluded: the bootstrap admin key lives in memory only (it is not among the stored keys that
# DELETE /api/v1/api-keys/{id} can revoke), so the run cannot lock itself out.
EXCLUDES=()

echo "schemathesis: $SCHEMATHESIS_VERSION, --checks all, at most $MAX_EXAMPLES examples per operation, seed $SEED"
REPO="$PWD"
set +e
# Run from the temporary directory: schemathesis keeps a crash cache in ./.schemathesis, which would replay earlier
# runs' cases and change the count; each run starts fresh instead (same seed, same cases).
(cd "$WORK" && "$VENV/bin/schemathesis" --config-file "$REPO/.ci/schemathesis.toml" run "$URL/v3/api-docs" \
  --checks all \
  -H "Authorization: Bearer $KEY" \
  --max-examples "$MAX_EXAMPLES" \
  ${SEED:+$([[ "$SEED" == random ]] || echo "--seed $SEED")} \
  --workers 2 \
  --request-timeout 30 \
  --no-color \
  --output-sanitize true \
  --report junit --report-junit-path "$REPO/activity-service/target/schemathesis-junit.xml" \
  ${EXCLUDES[@]+"${EXCLUDES[@]}"}) 2>&1 | tee "$WORK/schemathesis.out"
status=${PIPESTATUS[0]}
set -e

# One summary line for the CI log: cases generated and failures found.
cases=$(grep -Eo '[0-9]+ generated' "$WORK/schemathesis.out" | tail -1 | grep -Eo '[0-9]+' || echo "?")
failures=$(grep -Eo '[0-9]+ unique failures?' "$WORK/schemathesis.out" | tail -1 | grep -Eo '[0-9]+' || echo 0)
echo "schemathesis: $cases cases, $failures failures (max $MAX_EXAMPLES examples per operation, exit $status)"
if [[ $status -ne 0 ]]; then
  echo "schemathesis: service log tail:"; grep -E 'ERROR|Exception' "$WORK/service.log" | tail -20 || true
fi
exit "$status"
