#!/usr/bin/env bash
# Start LocalStack 4.3.0 directly on the host (no Docker engine needed) in the background.
# Idempotent: reuses the venv unless requirements.txt changed, and does nothing if a healthy
# LocalStack already answers on the port. See README.md for the environment variables.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REQ="$HERE/requirements.txt"
VENV="${LOCALSTACK_VENV:-$HERE/.venv}"
PORT="${LOCALSTACK_PORT:-4566}"
SERVICES_LIST="${LOCALSTACK_SERVICES:-sqs,sns,cloudformation,iam,sts}"
DATA="${LOCALSTACK_DATA:-$HERE/data}"
TIMEOUT="${LOCALSTACK_START_TIMEOUT:-120}"
LOG="$DATA/localstack.log"
PIDFILE="$DATA/localstack.pid"
HEALTH_URL="http://127.0.0.1:$PORT/_localstack/health"
HASH_FILE="$VENV/.requirements.sha256"

log() { echo "[localstack] $*"; }
die() { echo "[localstack] ERROR: $*" >&2; exit 1; }
# alive: exists and is not a zombie (an unreaped zombie still answers kill -0)
alive() {
  kill -0 "$1" 2>/dev/null || return 1
  [[ -r "/proc/$1/stat" ]] || return 0
  local st; st="$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)"
  [[ "$st" != "Z" ]]
}

[[ "$PORT" =~ ^[0-9]+$ ]] || die "LOCALSTACK_PORT must be a number, got '$PORT'"
[[ "$TIMEOUT" =~ ^[0-9]+$ ]] || die "LOCALSTACK_START_TIMEOUT must be a number of seconds, got '$TIMEOUT'"

if [[ -n "${LOCALSTACK_PYTHON:-}" ]]; then
  PYTHON="$LOCALSTACK_PYTHON"
elif command -v python3.11 >/dev/null 2>&1; then
  PYTHON=python3.11
else
  PYTHON=python3
fi

mkdir -p "$DATA"
DATA="$(cd "$DATA" && pwd -P)"
LOG="$DATA/localstack.log"
PIDFILE="$DATA/localstack.pid"

# Serialise concurrent invocations (e.g. parallel test runs) so only one installs / starts.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$DATA/.start.lock"
  flock 9
fi

# ---------------------------------------------------------------- venv
req_hash() { sha256sum "$REQ" | cut -d' ' -f1; }

ensure_venv() {
  local want have=""
  want="$(req_hash)"
  if [[ -x "$VENV/bin/python" ]] && "$VENV/bin/python" -c '' >/dev/null 2>&1; then
    [[ -f "$HASH_FILE" ]] && have="$(cat "$HASH_FILE")"
    if [[ "$have" == "$want" ]]; then
      return 0
    fi
    log "requirements.txt changed (or previous install incomplete): updating venv $VENV"
  else
    if [[ -e "$VENV" && ! -f "$VENV/pyvenv.cfg" && -n "$(ls -A "$VENV" 2>/dev/null)" ]]; then
      die "$VENV exists, is not empty and is not a virtualenv; refusing to touch it"
    fi
    local pyver
    pyver="$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" \
      || die "cannot run '$PYTHON' (set LOCALSTACK_PYTHON to a Python 3.11 interpreter)"
    [[ "$pyver" == "3.11" ]] || log "WARNING: $PYTHON is Python $pyver; the pins were verified with Python 3.11"
    log "creating venv $VENV with $PYTHON ($pyver)"
    "$PYTHON" -m venv --clear "$VENV"
  fi
  local t0=$SECONDS
  rm -f "$HASH_FILE"
  log "installing requirements (this takes a while the first time)..."
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$REQ" </dev/null
  echo "$want" >"$HASH_FILE"
  log "venv ready in $((SECONDS - t0)) s"
}

ensure_venv
VPY="$VENV/bin/python"

# ---------------------------------------------------------------- health
# Exit 0 if the health endpoint answers and every requested service is "available" or "running";
# 1 if nothing listens on the port; 2 if LocalStack answers but the services are not ready;
# 3 if something else (not a LocalStack health endpoint) holds the port.
# Prints the service states (or the error) on stdout.
health_ok() {
  "$VPY" - "$PORT" "$HEALTH_URL" "$SERVICES_LIST" <<'PY'
import json, socket, sys, urllib.request
port, url = int(sys.argv[1]), sys.argv[2]
wanted = [s.strip() for s in sys.argv[3].split(",") if s.strip()]
try:
    socket.create_connection(("127.0.0.1", port), timeout=2).close()
except OSError as e:
    print(f"no answer: {e}")
    sys.exit(1)
try:
    with urllib.request.urlopen(url, timeout=3) as r:
        services = json.load(r)["services"]
except Exception as e:
    print(f"port {port} is open but {url} is not a LocalStack health endpoint: {e!r}")
    sys.exit(3)
states = {s: services.get(s, "missing") for s in wanted}
print(", ".join(f"{k}={v}" for k, v in states.items()))
sys.exit(0 if all(v in ("available", "running") for v in states.values()) else 2)
PY
}

# Prints the pid from the pid file if that process is alive and is a LocalStack runtime.
our_pid() {
  local pid
  [[ -f "$PIDFILE" ]] || return 1
  pid="$(tr -dc '0-9' <"$PIDFILE")"
  [[ -n "$pid" ]] && alive "$pid" || return 1
  if [[ -r "/proc/$pid/cmdline" ]]; then
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q 'localstack' || return 1
  fi
  echo "$pid"
}

rc=0; status="$(health_ok)" || rc=$?
if (( rc == 0 )); then
  log "already running and healthy at http://127.0.0.1:$PORT ($status)"
  echo "LOCALSTACK_ENDPOINT=http://127.0.0.1:$PORT"
  exit 0
fi

if pid="$(our_pid)"; then
  log "LocalStack (pid $pid) is already starting; waiting for it"
else
  if (( rc == 2 )); then
    die "a LocalStack already answers on port $PORT but not with all requested services ($status); stop it or set LOCALSTACK_PORT"
  elif (( rc == 3 )); then
    die "$status; free the port or set LOCALSTACK_PORT"
  fi
  rm -f "$PIDFILE"
  log "starting LocalStack 4.3.0 on 127.0.0.1:$PORT (services: $SERVICES_LIST, data: $DATA)"
  {
    echo
    echo "==== $(date -Is) start.sh: starting LocalStack (services: $SERVICES_LIST, port $PORT) ===="
  } >>"$LOG"
  # OVERRIDE_IN_DOCKER=0: this is host mode. Inside any container (a /.dockerenv exists, e.g. CI or
  #   a dev container) LocalStack would otherwise assume it is in *its own* container: it ignores
  #   FILESYSTEM_ROOT (writes /var/lib/localstack and /tmp/localstack instead) and, when it finds an
  #   upstream DNS server, binds 0.0.0.0:53 and rewrites /etc/resolv.conf.
  # DNS_ADDRESS=0: no LocalStack DNS server (would want port 53, or sudo, on a plain host).
  # setsid: own session/process group, survives the caller's shell and terminal.
  # The inner shell writes its own pid and then exec's python, so the pid file holds the
  # LocalStack process itself (also the process-group leader, for stop.sh).
  SERVICES="$SERVICES_LIST" \
  GATEWAY_LISTEN="127.0.0.1:$PORT" \
  LOCALSTACK_HOST="127.0.0.1:$PORT" \
  DISABLE_EVENTS=1 \
  FILESYSTEM_ROOT="$DATA" \
  OVERRIDE_IN_DOCKER=0 \
  DNS_ADDRESS=0 \
  LS_PIDFILE="$PIDFILE" LS_PY="$VPY" \
    nohup setsid bash -c 'echo $$ >"$LS_PIDFILE"; unset LS_PIDFILE; exec "$LS_PY" -m localstack.runtime.main' \
    >>"$LOG" 2>&1 </dev/null 9>&- &
  # wait for the pid file (written immediately by the inner shell)
  for _ in $(seq 1 50); do [[ -s "$PIDFILE" ]] && break; sleep 0.1; done
  pid="$(tr -dc '0-9' <"$PIDFILE" 2>/dev/null || true)"
  [[ -n "$pid" ]] || die "LocalStack did not write its pid file $PIDFILE; see $LOG"
fi

t0=$SECONDS
while :; do
  if status="$(health_ok)"; then
    log "ready in $((SECONDS - t0)) s (pid $pid; $status)"
    echo "LOCALSTACK_ENDPOINT=http://127.0.0.1:$PORT"
    exit 0
  fi
  if ! alive "$pid"; then
    echo "[localstack] ERROR: LocalStack (pid $pid) exited during start-up; last 50 lines of $LOG:" >&2
    tail -n 50 "$LOG" >&2 || true
    rm -f "$PIDFILE"
    exit 1
  fi
  if (( SECONDS - t0 >= TIMEOUT )); then
    echo "[localstack] ERROR: not healthy after ${TIMEOUT} s ($status); last 50 lines of $LOG:" >&2
    tail -n 50 "$LOG" >&2 || true
    echo "[localstack] it is still running (pid $pid); stop it with $HERE/stop.sh" >&2
    exit 1
  fi
  sleep 0.5
done
