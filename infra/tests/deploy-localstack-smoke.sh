#!/usr/bin/env bash
# End-to-end test of "infra/deploy.sh localstack" on this host, isolated from any other deployment:
# its own stack/queue prefix, run directory and free ports. Up (LocalStack via infra/localstack/start.sh,
# messaging.yaml through CloudFormation, the service jar, smoke test SQS -> service -> SQS), up again
# (idempotent: reuses the stack and the service), then down; checks that the API needs the deployment's admin key
# (infra/.run/…/admin.key, owner-only) while health stays open, that the service is stopped and the stack and its
# queues are gone. Needs the jar (built if missing) and Python 3.11 for LocalStack.
set -euo pipefail

INFRA="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
DEPLOY="$INFRA/deploy.sh"
id="$(date +%s | tail -c 7)$$"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

export ACTIVITY_NAME_PREFIX="smoke-$id"
export ACTIVITY_STACK_NAME="smoke-$id-messaging"
export ACTIVITY_RUN_DIR="$INFRA/.run/smoke-$id"
export ACTIVITY_PORT="${ACTIVITY_PORT:-$(free_port)}"
export ACTIVITY_JMS_PORT="${ACTIVITY_JMS_PORT:-$(free_port)}"
export ACTIVITY_START_TIMEOUT="${ACTIVITY_START_TIMEOUT:-300}"

fail() { echo "FAIL: $*" >&2; exit 1; }
# running: exists and is not a zombie. A process whose parent exited may stay an unreaped zombie for a while
# (it is dead, but still answers kill -0), depending on the sandbox's init.
running() {
  kill -0 "$1" 2>/dev/null || return 1
  [[ -r "/proc/$1/stat" ]] || return 0
  [[ "$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)" != "Z" ]]
}
out="$(mktemp)"
cleanup() {
  local rc=$?
  "$DEPLOY" localstack down >/dev/null 2>&1 || true   # no-op after a successful down
  if (( rc == 0 )); then rm -rf "$ACTIVITY_RUN_DIR"; else echo "service log kept: $ACTIVITY_RUN_DIR/service.log" >&2; fi
  rm -f "$out"
}
trap cleanup EXIT

t0=$SECONDS
echo "== infra/deploy.sh localstack (prefix $ACTIVITY_NAME_PREFIX, port $ACTIVITY_PORT, JMS port $ACTIVITY_JMS_PORT)"
"$DEPLOY" localstack </dev/null 2>&1 | tee "$out"
grep -q '^PASS: ' "$out" || fail "first deploy printed no PASS"

echo "== the API needs the admin key (health stays open)"
api="http://127.0.0.1:$ACTIVITY_PORT"
key_file="$ACTIVITY_RUN_DIR/admin.key"
[[ "$(stat -c %a "$key_file")" == 600 ]] || fail "$key_file is not owner-only"
code() { curl -s -m 10 -o /dev/null -w '%{http_code}' "$@"; }
[[ "$(code "$api/api/v1/subscriptions")" == 401 ]] || fail "GET /api/v1/subscriptions without a key is not 401"
[[ "$(code -H @"$ACTIVITY_RUN_DIR/auth.header" "$api/api/v1/subscriptions")" == 200 ]] \
  || fail "GET /api/v1/subscriptions with the admin key is not 200"
[[ "$(code "$api/actuator/health")" == 200 ]] || fail "GET /actuator/health without a key is not 200"

echo "== again (idempotent)"
"$DEPLOY" localstack </dev/null 2>&1 | tee "$out"
grep -q 'reusing it' "$out" || fail "second deploy did not reuse the running service"
grep -q '^PASS: ' "$out" || fail "second deploy printed no PASS"
pid="$(cat "$ACTIVITY_RUN_DIR/service.pid")"

echo "== infra/deploy.sh localstack down"
"$DEPLOY" localstack down </dev/null 2>&1 | tee "$out"
! running "$pid" || fail "service pid $pid still runs after down"
[[ ! -e "$ACTIVITY_RUN_DIR/state.env" ]] || fail "state file left after down"
if curl -fsS -m 3 "http://127.0.0.1:${LOCALSTACK_PORT:-4566}/_localstack/health" >/dev/null 2>&1; then
  AWS="${LOCALSTACK_VENV:-$INFRA/localstack/.venv}/bin/aws"
  if AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=us-east-1 "$AWS" \
      --endpoint-url "http://127.0.0.1:${LOCALSTACK_PORT:-4566}" sqs get-queue-url \
      --queue-name "$ACTIVITY_NAME_PREFIX-events-in" >/dev/null 2>&1; then
    fail "queue $ACTIVITY_NAME_PREFIX-events-in still exists after down"
  fi
fi
echo "PASS: infra/deploy.sh localstack up, up again, smoke test and down ($((SECONDS - t0)) s)"
