#!/usr/bin/env bash
# End-to-end test of "infra/deploy.sh localstack" on this host, isolated from any other deployment:
# its own stack/queue prefix, run directory and free ports. Up (LocalStack via infra/localstack/start.sh,
# messaging.yaml through CloudFormation, the service jar, smoke test SQS -> service -> SQS), up again
# (idempotent: reuses the stack and the service), then down; checks that the API needs the deployment's admin key
# (infra/.run/…/admin.key, owner-only) while health stays open, that the service is stopped and the stack and its
# queues are gone. With SMOKE_REPLICAS=2, then the same for REPLICAS=2 (PostgreSQL, broker process, two replicas
# in cluster mode: up with its smoke test, smoke again, down; checks that every process stopped and the data are
# gone), in a run directory and prefix of its own; opt-in because it adds 2-3.5 minutes on a 2-core machine;
# skipped with a message when the host has no PostgreSQL binaries (initdb, pg_ctl, psql).
# Needs the jar (built if missing) and Python 3.11 for LocalStack.
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
CLUSTER_RUN_DIR="$INFRA/.run/smoke-$id-replicas"
SINGLE_RUN_DIR="$ACTIVITY_RUN_DIR"
cleanup() {
  local rc=$? dir
  for dir in "$SINGLE_RUN_DIR" "$CLUSTER_RUN_DIR"; do   # no-op after a successful down
    if [[ -d "$dir" ]]; then ACTIVITY_RUN_DIR="$dir" "$DEPLOY" localstack down >/dev/null 2>&1 || true; fi
  done
  if (( rc == 0 )); then
    rm -rf "$SINGLE_RUN_DIR" "$CLUSTER_RUN_DIR"
  else
    echo "logs kept: $SINGLE_RUN_DIR/service.log, $CLUSTER_RUN_DIR/*.log" >&2
  fi
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

# ------------------------------------------------------------------ REPLICAS=2
if [[ "${SMOKE_REPLICAS:-0}" != 2 ]]; then
  echo "SKIP: REPLICAS=2 up/smoke/down (opt-in, 2-3.5 min more: SMOKE_REPLICAS=2 $0)"
  exit 0
fi
if ! command -v "${INITDB:-initdb}" >/dev/null || ! command -v "${PG_CTL:-pg_ctl}" >/dev/null \
    || ! command -v "${PSQL:-psql}" >/dev/null; then
  echo "SKIP: REPLICAS=2: no PostgreSQL binaries (initdb, pg_ctl, psql) on PATH"
  exit 0
fi
t1=$SECONDS
# Two adjacent free ports for the replicas (deploy.sh stops if one is taken).
free_pair() { python3 -c 'import socket
for _ in range(50):
    a = socket.socket(); a.bind(("127.0.0.1", 0)); p = a.getsockname()[1]; b = socket.socket()
    try:
        b.bind(("127.0.0.1", p + 1)); print(p); break
    except OSError: pass
    finally: a.close(); b.close()'; }
export ACTIVITY_NAME_PREFIX="smoke-$id-r" ACTIVITY_STACK_NAME="smoke-$id-r-messaging" ACTIVITY_RUN_DIR="$CLUSTER_RUN_DIR"
ACTIVITY_PORT="$(free_pair)"; ACTIVITY_JMS_PORT="$(free_port)"; ACTIVITY_PG_PORT="$(free_port)"
export ACTIVITY_PORT ACTIVITY_JMS_PORT ACTIVITY_PG_PORT
echo "== REPLICAS=2 infra/deploy.sh localstack up (ports $ACTIVITY_PORT-$((ACTIVITY_PORT + 1)), broker $ACTIVITY_JMS_PORT, PostgreSQL $ACTIVITY_PG_PORT)"
REPLICAS=2 "$DEPLOY" localstack up </dev/null 2>&1 | tee "$out"
grep -q '^PASS: GET /api/v1/cluster on r1 lists 2 live replicas' "$out" || fail "REPLICAS=2: the cluster view check did not pass"
grep -q '^PASS: event ' "$out" || fail "REPLICAS=2: the SQS smoke test did not pass"
echo "== infra/deploy.sh localstack smoke (REPLICAS from the state file)"
"$DEPLOY" localstack smoke </dev/null 2>&1 | tee "$out"
[[ "$(grep -c '^PASS: ' "$out")" == 2 ]] || fail "REPLICAS=2: smoke printed no two PASS lines"
state="$CLUSTER_RUN_DIR/state.env"
pids="$(sed -n 's/^\(POSTGRES_PID\|BROKER_PID\|SERVICE_PIDS\)=//p' "$state" | tr '\n' ' ')"
[[ "$(wc -w <<<"$pids")" == 4 ]] || fail "REPLICAS=2: state file does not list 4 processes: $pids"
echo "== infra/deploy.sh localstack down"
"$DEPLOY" localstack down </dev/null 2>&1 | tee "$out"
for pid in $pids; do ! running "$pid" || fail "REPLICAS=2: pid $pid still runs after down"; done
[[ ! -e "$state" && ! -e "$CLUSTER_RUN_DIR/data" ]] || fail "REPLICAS=2: state file or data left after down"
echo "PASS: REPLICAS=2 infra/deploy.sh localstack up (PostgreSQL, broker, 2 replicas in cluster mode), smoke and down" \
     "($((SECONDS - t1)) s)"
