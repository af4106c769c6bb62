#!/usr/bin/env bash
# Stop the LocalStack started by start.sh (pid file in the data directory).
# TERM, wait up to LOCALSTACK_STOP_TIMEOUT (15) s, then KILL. Exit 0 if it is not running.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
DATA="${LOCALSTACK_DATA:-$HERE/data}"
PIDFILE="$DATA/localstack.pid"
STOP_TIMEOUT="${LOCALSTACK_STOP_TIMEOUT:-15}"

log() { echo "[localstack] $*"; }
# alive: exists and is not a zombie (an unreaped zombie still answers kill -0)
alive() {
  kill -0 "$1" 2>/dev/null || return 1
  [[ -r "/proc/$1/stat" ]] || return 0
  local st; st="$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)"
  [[ "$st" != "Z" ]]
}

if [[ ! -f "$PIDFILE" ]]; then
  log "not running (no pid file $PIDFILE)"
  exit 0
fi

pid="$(tr -dc '0-9' <"$PIDFILE" || true)"
if [[ -z "$pid" ]] || ! alive "$pid"; then
  log "not running (stale pid file removed)"
  rm -f "$PIDFILE"
  exit 0
fi
# Guard against pid reuse: only signal a LocalStack runtime.
if [[ -r "/proc/$pid/cmdline" ]] && ! tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q 'localstack'; then
  log "pid $pid is not LocalStack (stale pid file removed); nothing stopped"
  rm -f "$PIDFILE"
  exit 0
fi

# start.sh runs LocalStack as the leader of its own process group: signal the whole group
# (catches any helper processes), or just the pid if it is not a group leader.
target="$pid"
pgid="$(ps -o pgid= -p "$pid" 2>/dev/null | tr -d ' ' || true)"
[[ "$pgid" == "$pid" ]] && target="-$pid"

log "stopping LocalStack (pid $pid)"
kill -TERM -- "$target" 2>/dev/null || true
deadline=$((SECONDS + STOP_TIMEOUT))
while alive "$pid" && (( SECONDS < deadline )); do
  sleep 0.2
done
if alive "$pid"; then
  log "still running after ${STOP_TIMEOUT} s, sending KILL"
  kill -KILL -- "$target" 2>/dev/null || true
  for _ in $(seq 1 25); do alive "$pid" || break; sleep 0.2; done
fi
rm -f "$PIDFILE"
if alive "$pid"; then
  log "ERROR: pid $pid did not exit" >&2
  exit 1
fi
log "stopped"
