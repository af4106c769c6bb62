#!/usr/bin/env bash
# Deploy the Activity Service.
#
#   infra/deploy.sh localstack [up]    LocalStack on this host (infra/localstack/start.sh), the messaging stack
#                                      (infra/aws/messaging.yaml) through LocalStack CloudFormation, the service
#                                      jar (profile "localstack") on ACTIVITY_PORT, then a smoke test:
#                                      SQS inbound queue -> service -> SQS subscriber queue. Prints PASS.
#                                      REPLICAS=N (N > 1): N replicas in cluster mode on ports ACTIVITY_PORT..+N-1,
#                                      on one PostgreSQL (ACTIVITY_PG_PORT) and one ActiveMQ broker process
#                                      (ACTIVITY_JMS_PORT) started here
#   infra/deploy.sh localstack smoke   the smoke test only (against a running deployment)
#   infra/deploy.sh localstack down    stop the service(s), broker and PostgreSQL started here, delete the stack,
#                                      stop LocalStack if this script started it
#   infra/deploy.sh aws [up]           messaging.yaml then service.yaml on a real AWS account (AWS CLI)
#   infra/deploy.sh aws messaging      messaging.yaml only (service: service.yaml only)
#   infra/deploy.sh aws image          build the image (Dockerfile) and push it to ECR; prints IMAGE_URI
#   infra/deploy.sh aws down           delete service then messaging stack
#
# Idempotent: re-running "up" updates what exists and reuses a running service. Never reads stdin.
# Environment variables: see infra/README.md ("Deployment") or the defaults below.
set -euo pipefail

INFRA="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
ROOT="$(dirname "$INFRA")"
MESSAGING_TEMPLATE="$INFRA/aws/messaging.yaml"
SERVICE_TEMPLATE="$INFRA/aws/service.yaml"

log() { echo "[deploy] $*"; }
die() { echo "[deploy] ERROR: $*" >&2; exit 1; }

usage() {
  sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit "${1:-2}"
}

# alive: exists and is not a zombie
alive() {
  kill -0 "$1" 2>/dev/null || return 1
  [[ -r "/proc/$1/stat" ]] || return 0
  local st; st="$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)"
  [[ "$st" != "Z" ]]
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# ------------------------------------------------------------------------------------------------
# CloudFormation helpers ($AWS is the CLI command line, with --endpoint-url for LocalStack)

stack_status() {
  local out
  if out="$($AWS cloudformation describe-stacks --stack-name "$1" --query 'Stacks[0].StackStatus' --output text 2>&1)"; then
    echo "$out"
  elif grep -q 'does not exist' <<<"$out"; then
    echo NONE
  else
    echo "$out" >&2
    return 1
  fi
}

stack_output() { # stack key
  $AWS cloudformation describe-stacks --stack-name "$1" \
    --query "Stacks[0].Outputs[?OutputKey=='$2'].OutputValue | [0]" --output text
}

print_stack_failures() {
  echo "[deploy] last stack events of $1:" >&2
  $AWS cloudformation describe-stack-events --stack-name "$1" --max-items 15 \
    --query 'StackEvents[].[Timestamp,LogicalResourceId,ResourceStatus,ResourceStatusReason]' --output text >&2 || true
}

wait_stack_idle() { # stack: wait while an operation is in progress
  local status
  while status="$(stack_status "$1")" && [[ "$status" == *_IN_PROGRESS && "$status" != REVIEW_IN_PROGRESS ]]; do
    log "stack $1 is $status; waiting"
    sleep 5
  done
}

cfn_deploy() { # stack template [Key=Value ...]
  local stack="$1" template="$2"; shift 2
  wait_stack_idle "$stack"
  local status; status="$(stack_status "$stack")"
  case "$status" in
    ROLLBACK_COMPLETE|ROLLBACK_FAILED|CREATE_FAILED|DELETE_FAILED)
      log "stack $stack is in $status (a failed first create): deleting it before deploying again"
      cfn_delete "$stack" ;;
  esac
  log "deploying stack $stack from ${template#"$ROOT"/} ($*)"
  if [[ "${CFN_FAST:-0}" == 1 ]]; then
    cfn_deploy_fast "$stack" "$template" "$@"
  elif ! $AWS cloudformation deploy --stack-name "$stack" --template-file "$template" \
      --capabilities CAPABILITY_NAMED_IAM --no-fail-on-empty-changeset \
      --parameter-overrides "$@" --tags project=activity-service; then
    print_stack_failures "$stack"
    die "deploying stack $stack failed"
  fi
  log "stack $stack: $(stack_status "$stack")"
}

# LocalStack: create-stack / update-stack polled every second (what "aws cloudformation deploy" does, without
# its waiter's 30 s polling interval). Parameter values must not contain commas.
cfn_deploy_fast() { # stack template [Key=Value ...]
  local stack="$1" template="$2"; shift 2
  local params=() kv op out status
  for kv in "$@"; do params+=("ParameterKey=${kv%%=*},ParameterValue=${kv#*=}"); done
  if [[ "$(stack_status "$stack")" == NONE ]]; then op=create-stack; else op=update-stack; fi
  if ! out="$($AWS cloudformation "$op" --stack-name "$stack" --template-body "file://$template" \
      --capabilities CAPABILITY_NAMED_IAM --parameters "${params[@]}" --tags Key=project,Value=activity-service 2>&1)"; then
    if grep -q 'No updates are to be performed' <<<"$out"; then
      log "stack $stack is up to date"
      return 0
    fi
    echo "$out" >&2
    die "$op $stack failed"
  fi
  while status="$(stack_status "$stack")" && [[ "$status" == *_IN_PROGRESS ]]; do sleep 1; done
  case "$status" in
    CREATE_COMPLETE|UPDATE_COMPLETE) ;;
    *) print_stack_failures "$stack"; die "deploying stack $stack failed ($status)" ;;
  esac
}

cfn_delete() { # stack
  local status; status="$(stack_status "$1")"
  if [[ "$status" == NONE ]]; then
    log "stack $1 does not exist"
    return 0
  fi
  log "deleting stack $1 ($status)"
  $AWS cloudformation delete-stack --stack-name "$1"
  if ! $AWS cloudformation wait stack-delete-complete --stack-name "$1"; then
    print_stack_failures "$1"
    die "deleting stack $1 failed"
  fi
  log "stack $1 deleted"
}

# ================================================================================================
# LocalStack
# ================================================================================================

ls_init() {
  RUN_DIR="${ACTIVITY_RUN_DIR:-$INFRA/.run/localstack}"
  mkdir -p "$RUN_DIR"
  RUN_DIR="$(cd "$RUN_DIR" && pwd -P)"
  STATE="$RUN_DIR/state.env"
  PIDFILE="$RUN_DIR/service.pid"
  SERVICE_LOG="$RUN_DIR/service.log"
  # The service's bootstrap admin key (ACTIVITY_SECURITY_BOOTSTRAP_ADMIN_KEY, else generated once into admin.key)
  # and a curl header file with it (curl -H @file: the key never appears on a command line).
  KEY_FILE="$RUN_DIR/admin.key"
  AUTH_HEADER="$RUN_DIR/auth.header"
  # Environment first, then what the last "up" recorded in the state file, then the defaults.
  # The default prefix is not "activity": the test suite's services create sqs:activity-events-in
  # on the same LocalStack (without a redrive policy), which would clash with the stack's queue.
  LS_PORT="${LOCALSTACK_PORT:-$(state_get LOCALSTACK_PORT)}"; LS_PORT="${LS_PORT:-4566}"
  PREFIX="${ACTIVITY_NAME_PREFIX:-$(state_get PREFIX)}"; PREFIX="${PREFIX:-activity-local}"
  STACK="${ACTIVITY_STACK_NAME:-$(state_get STACK)}"; STACK="${STACK:-$PREFIX-messaging}"
  PORT="${ACTIVITY_PORT:-$(state_get PORT)}"; PORT="${PORT:-8080}"
  JMS_PORT="${ACTIVITY_JMS_PORT:-$(state_get JMS_PORT)}"; JMS_PORT="${JMS_PORT:-61626}"
  # REPLICAS > 1: JMS_PORT is the port of the broker process started here (else of the service's embedded broker).
  REPLICAS="${REPLICAS:-$(state_get REPLICAS)}"; REPLICAS="${REPLICAS:-1}"
  PG_PORT="${ACTIVITY_PG_PORT:-$(state_get PG_PORT)}"; PG_PORT="${PG_PORT:-15432}"
  PG_DIR="$RUN_DIR/data/postgres"
  PG_LOG="$RUN_DIR/postgres.log"
  BROKER_DIR="$RUN_DIR/data/broker"
  BROKER_LOG="$RUN_DIR/broker.log"
  BROKER_PIDFILE="$RUN_DIR/broker.pid"
  INITDB="${INITDB:-initdb}"; PG_CTL="${PG_CTL:-pg_ctl}"; PSQL="${PSQL:-psql}"
  ENDPOINT="http://127.0.0.1:$LS_PORT"
  JAR="${ACTIVITY_JAR:-$ROOT/activity-service/target/activity-service-0.1.0-SNAPSHOT.jar}"
  # Replicas (REPLICAS > 1) use the shared broker process: they run the jar without the embedded servers if built.
  LEAN_JAR="${ACTIVITY_LEAN_JAR:-${JAR%.jar}-lean.jar}"
  JAVA="${JAVA:-java}"
  JAVA_OPTS="${ACTIVITY_JAVA_OPTS:--Xmx512m -XX:TieredStopAtLevel=1}"
  START_TIMEOUT="${ACTIVITY_START_TIMEOUT:-180}"
  LS_VENV="${LOCALSTACK_VENV:-$INFRA/localstack/.venv}"
  for v in LS_PORT PORT JMS_PORT START_TIMEOUT REPLICAS PG_PORT; do
    [[ "${!v}" =~ ^[0-9]+$ ]] || die "$v must be a number, got '${!v}'"
  done
  (( REPLICAS >= 1 && REPLICAS <= 9 )) || die "REPLICAS must be 1 to 9, got $REPLICAS"
  local recorded; recorded="$(state_get REPLICAS)"
  if [[ -n "$recorded" && "$recorded" != "$REPLICAS" ]]; then
    die "the deployment in ${RUN_DIR#"$ROOT"/} was started with REPLICAS=$recorded: run" \
        "'infra/deploy.sh localstack down' first (or use REPLICAS=$recorded)"
  fi
  export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=us-east-1 AWS_REGION=us-east-1
  export AWS_PAGER=""
  AWS="$LS_VENV/bin/aws --endpoint-url $ENDPOINT"
  CFN_FAST="${CFN_FAST:-1}"
  PY="$LS_VENV/bin/python"
}

ls_healthy() { curl -fsS -m 3 "$ENDPOINT/_localstack/health" 2>/dev/null | grep -q '"sqs": *"\(available\|running\)"'; }

# state.env: what "up" did, for "down" (and for re-runs).
state_get() { [[ -f "$STATE" ]] && sed -n "s/^$1=//p" "$STATE" | tail -n1 || true; }
state_write() {
  {
    echo "# written by infra/deploy.sh localstack on $(date -Is)"
    printf 'STARTED_LOCALSTACK=%s\nLOCALSTACK_PORT=%s\nSTACK=%s\nPREFIX=%s\nPORT=%s\nJMS_PORT=%s\n' \
      "$STARTED_LOCALSTACK" "$LS_PORT" "$STACK" "$PREFIX" "$PORT" "$JMS_PORT"
    printf 'REPLICAS=%s\n' "$REPLICAS"
    if (( REPLICAS > 1 )); then
      # The processes of a several-replica deployment (down stops them; also in the pid files beside).
      printf 'PG_PORT=%s\nPOSTGRES_PID=%s\nBROKER_PID=%s\nSERVICE_PIDS=%s\n' \
        "$PG_PORT" "$(postgres_pid || true)" "$(broker_pid || true)" "$(replica_pids)"
    fi
  } >"$STATE.tmp"
  mv "$STATE.tmp" "$STATE"
}

pid_from() { # pidfile pattern: prints the pid in the file if that process still runs with pattern in its command line
  local pid
  [[ -f "$1" ]] || return 1
  pid="$(tr -dc '0-9' <"$1")"
  [[ -n "$pid" ]] && alive "$pid" || return 1
  if [[ -r "/proc/$pid/cmdline" ]]; then
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$2" || return 1
  fi
  echo "$pid"
}

# Replica i (1..REPLICAS): with one replica the files of a single service (service.pid, service.log) as before;
# with several, service-r<i>.pid / .log, name r<i>, port PORT+i-1.
replica_port() { echo $(( PORT + $1 - 1 )); }
replica_pidfile() { if (( REPLICAS == 1 )); then echo "$PIDFILE"; else echo "$RUN_DIR/service-r$1.pid"; fi; }
replica_log() { if (( REPLICAS == 1 )); then echo "$SERVICE_LOG"; else echo "$RUN_DIR/service-r$1.log"; fi; }
replica_pid() { # i: pid of replica i if it runs
  local pattern='--spring.profiles.active=localstack'
  (( REPLICAS == 1 )) || pattern="--activity.cluster.replica-id=r$1"
  pid_from "$(replica_pidfile "$1")" "$pattern"
}
replica_pids() { local i; for i in $(seq 1 "$REPLICAS"); do replica_pid "$i" || true; done | paste -sd' ' -; }
service_pid() { replica_pid 1; } # prints the pid of the (first) service this script started, if it still runs

broker_pid() { pid_from "$BROKER_PIDFILE" StandaloneActiveMqBroker; }
postgres_pid() { # the postmaster of PG_DIR, if it runs
  [[ -r "$PG_DIR/postmaster.pid" ]] || return 1
  local pid; pid="$(head -n1 "$PG_DIR/postmaster.pid" | tr -dc '0-9')"
  [[ -n "$pid" ]] && alive "$pid" && echo "$pid"
}
# PostgreSQL refuses to run as root: then its commands run as the (Debian package's) postgres user.
pg_run() { if (( EUID == 0 )); then runuser -u "${PG_OS_USER:-postgres}" -- "$@"; else "$@"; fi; }

service_ready() { curl -fsS -m 2 -o /dev/null "http://127.0.0.1:$1/actuator/health/readiness" 2>/dev/null; }

# ensure_admin_key: writes $KEY_FILE (unless it exists) and $AUTH_HEADER, both owner-only.
ensure_admin_key() {
  (
    umask 077
    if [[ -n "${ACTIVITY_SECURITY_BOOTSTRAP_ADMIN_KEY:-}" ]]; then
      printf '%s\n' "$ACTIVITY_SECURITY_BOOTSTRAP_ADMIN_KEY" >"$KEY_FILE"
    elif [[ ! -s "$KEY_FILE" ]]; then
      printf 'local-%s\n' "$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')" >"$KEY_FILE.tmp"
      mv "$KEY_FILE.tmp" "$KEY_FILE"
    fi
    printf 'Authorization: Bearer %s\n' "$(head -n1 "$KEY_FILE")" >"$AUTH_HEADER"
  )
}

jar_ok() { # exists and contains the localstack profile (a jar built before it was added would not)
  [[ -f "$JAR" ]] && "$PY" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).getinfo(sys.argv[2])' \
    "$JAR" BOOT-INF/classes/application-localstack.yml 2>/dev/null
}

ensure_jar() {
  if jar_ok; then
    log "service jar: ${JAR#"$ROOT"/}"
    return 0
  fi
  [[ -n "${ACTIVITY_JAR:-}" ]] && die "ACTIVITY_JAR=$JAR is missing or has no application-localstack.yml"
  if [[ -f "$JAR" ]]; then
    log "service jar ${JAR#"$ROOT"/} predates the localstack profile: rebuilding"
  else
    log "service jar not built yet: building it (./mvnw -B -q -DskipTests package; takes a few minutes the first time)"
  fi
  (cd "$ROOT" && ./mvnw -B -q -DskipTests package </dev/null) || die "building the service jar failed"
  jar_ok || die "build finished but $JAR has no application-localstack.yml"
}

# ensure_postgres: one PostgreSQL for the replicas, data in $PG_DIR, TCP on 127.0.0.1:$PG_PORT only (no Unix
# socket), trust authentication (a local throw-away database; nothing else can connect), database "activity".
ensure_postgres() {
  local pid
  if pid="$(postgres_pid)"; then
    log "PostgreSQL already running (pid $pid, 127.0.0.1:$PG_PORT); reusing it"
  else
    if [[ ! -s "$PG_DIR/PG_VERSION" ]]; then
      log "initdb: PostgreSQL data in ${PG_DIR#"$ROOT"/}"
      rm -rf "$PG_DIR"
      mkdir -p "$PG_DIR"
      chmod 700 "$PG_DIR"
      : >>"$PG_LOG"
      if (( EUID == 0 )); then chown "${PG_OS_USER:-postgres}:" "$PG_DIR" "$PG_LOG"; fi
      pg_run "$INITDB" -D "$PG_DIR" -U activity --auth=trust --encoding=UTF8 --no-locale >>"$PG_LOG" 2>&1 \
        || die "initdb failed; see $PG_LOG"
      printf '%s\n' "# infra/deploy.sh: TCP from 127.0.0.1 only, no password (local throw-away database)" \
        "host all all 127.0.0.1/32 trust" | pg_run tee "$PG_DIR/pg_hba.conf" >/dev/null
      printf '%s\n' "listen_addresses = '127.0.0.1'" "unix_socket_directories = ''" \
        | pg_run tee -a "$PG_DIR/postgresql.conf" >/dev/null
    fi
    log "starting PostgreSQL on 127.0.0.1:$PG_PORT (log ${PG_LOG#"$ROOT"/})"
    pg_run "$PG_CTL" -D "$PG_DIR" -l "$PG_LOG" -o "-p $PG_PORT" -w -t 60 start >/dev/null \
      || { tail -n 20 "$PG_LOG" >&2 || true; die "PostgreSQL did not start; see $PG_LOG"; }
    pid="$(postgres_pid)" || die "PostgreSQL started but $PG_DIR/postmaster.pid names no running process"
    log "PostgreSQL ready (pid $pid)"
  fi
  local psql=("$PSQL" -X -q -h 127.0.0.1 -p "$PG_PORT" -U activity -d postgres -v ON_ERROR_STOP=1)
  if [[ "$("${psql[@]}" -tAc "SELECT 1 FROM pg_database WHERE datname = 'activity'")" != 1 ]]; then
    "${psql[@]}" -c 'CREATE DATABASE activity' || die "creating database activity failed"
  fi
}

# ensure_broker: the replicas' ActiveMQ broker as a process of its own, from the service jar
# (io.activityservice.channel.jms.embedded.StandaloneActiveMqBroker: the service's embedded broker with virtual topics and
# KahaDB, so no ActiveMQ installation is needed), on 127.0.0.1:$JMS_PORT, data in $BROKER_DIR.
ensure_broker() {
  local pid
  if pid="$(broker_pid)"; then
    log "ActiveMQ broker already running (pid $pid, tcp://127.0.0.1:$JMS_PORT); reusing it"
    return 0
  fi
  mkdir -p "$BROKER_DIR"
  # Without a logback configuration logback logs at DEBUG; the service jar has logback but no logback.xml.
  cat >"$RUN_DIR/broker-logback.xml" <<'EOF'
<configuration>
  <appender name="out" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%d{ISO8601} %-5level [%thread] %logger{36} - %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="out"/></root>
</configuration>
EOF
  log "starting the ActiveMQ broker on tcp://127.0.0.1:$JMS_PORT (data ${BROKER_DIR#"$ROOT"/}, log ${BROKER_LOG#"$ROOT"/})"
  echo "==== $(date -Is) infra/deploy.sh: starting the broker ====" >>"$BROKER_LOG"
  rm -f "$BROKER_PIDFILE"
  # shellcheck disable=SC2016  # $$ expands in the inner shell
  SVC_PIDFILE="$BROKER_PIDFILE" nohup setsid bash -c 'echo $$ >"$SVC_PIDFILE"; unset SVC_PIDFILE; exec "$@"' \
    activemq-broker "$JAVA" -Xmx512m -XX:TieredStopAtLevel=1 -Dlogback.configurationFile="$RUN_DIR/broker-logback.xml" \
      -Dloader.main=io.activityservice.channel.jms.embedded.StandaloneActiveMqBroker -cp "$JAR" \
      org.springframework.boot.loader.launch.PropertiesLauncher "$JMS_PORT" "$BROKER_DIR" \
      >>"$BROKER_LOG" 2>&1 </dev/null &
  for _ in $(seq 1 50); do [[ -s "$BROKER_PIDFILE" ]] && break; sleep 0.1; done
  pid="$(tr -dc '0-9' <"$BROKER_PIDFILE" 2>/dev/null || true)"
  [[ -n "$pid" ]] || die "the broker did not start; see $BROKER_LOG"
  local t0=$SECONDS
  until port_in_use "$JMS_PORT"; do
    alive "$pid" || { tail -n 20 "$BROKER_LOG" >&2 || true; die "the broker exited during start-up; see $BROKER_LOG"; }
    (( SECONDS - t0 < 60 )) || die "the broker does not listen on $JMS_PORT after 60 s; see $BROKER_LOG"
    sleep 0.5
  done
  log "ActiveMQ broker ready (pid $pid) after $((SECONDS - t0)) s"
}

# start_replica i: starts replica i unless it runs; its pid in REPLY_PID.
start_replica() {
  local i="$1" pid port pidfile logf
  port="$(replica_port "$i")"; pidfile="$(replica_pidfile "$i")"; logf="$(replica_log "$i")"
  if pid="$(replica_pid "$i")"; then
    if (( REPLICAS == 1 )); then
      log "service already running (pid $pid, http://127.0.0.1:$port); reusing it"
    else
      log "replica r$i already running (pid $pid, http://127.0.0.1:$port); reusing it"
    fi
    REPLY_PID="$pid"
    return 0
  fi
  local args=(--spring.profiles.active=localstack --server.port="$port")
  if (( REPLICAS == 1 )); then
    log "starting the service on http://127.0.0.1:$port (profile localstack, inbound sqs:$INBOUND_QUEUE," \
        "embedded JMS broker tcp://127.0.0.1:$JMS_PORT, data ${RUN_DIR#"$ROOT"/}/data, log ${logf#"$ROOT"/}," \
        "admin key in ${KEY_FILE#"$ROOT"/})"
  else
    # Cluster mode on the shared database and broker (docs/operations.md, "Running several replicas"); no password: trust.
    args+=(--spring.datasource.url="jdbc:postgresql://127.0.0.1:$PG_PORT/activity"
           --spring.datasource.username=activity --spring.datasource.password=
           --activity.channels.jms.broker-url="tcp://127.0.0.1:$JMS_PORT"
           --activity.cluster.enabled=true --activity.cluster.replica-id="r$i")
    log "starting replica r$i on http://127.0.0.1:$port (profile localstack, cluster mode, inbound" \
        "sqs:$INBOUND_QUEUE, PostgreSQL 127.0.0.1:$PG_PORT, broker tcp://127.0.0.1:$JMS_PORT, log ${logf#"$ROOT"/})"
  fi
  (( REPLICAS == 1 )) || mkdir -p "$RUN_DIR/data/r$i"
  echo "==== $(date -Is) infra/deploy.sh: starting the service ====" >>"$logf"
  rm -f "$pidfile"
  # The inner shell writes its own pid and exec's java (so the pid file holds the service itself).
  # The admin key goes in the environment, not on the command line.
  # shellcheck disable=SC2086,SC2016  # JAVA_OPTS is a list of options; $$ expands in the inner shell
  ACTIVITY_INBOUND_QUEUE="$INBOUND_QUEUE" ACTIVITY_JMS_PORT="$JMS_PORT" \
  ACTIVITY_DATA_DIR="$( (( REPLICAS == 1 )) && echo "$RUN_DIR/data" || echo "$RUN_DIR/data/r$i")" \
  ACTIVITY_SECURITY_BOOTSTRAP_ADMIN_KEY="$(head -n1 "$KEY_FILE")" \
  LOCALSTACK_ENDPOINT="$ENDPOINT" SVC_PIDFILE="$pidfile" \
    nohup setsid bash -c 'echo $$ >"$SVC_PIDFILE"; unset SVC_PIDFILE; exec "$@"' activity-service \
      "$JAVA" $JAVA_OPTS -jar "$( (( REPLICAS > 1 )) && [[ -f "$LEAN_JAR" ]] && echo "$LEAN_JAR" || echo "$JAR")" \
      "${args[@]}" >>"$logf" 2>&1 </dev/null &
  for _ in $(seq 1 50); do [[ -s "$pidfile" ]] && break; sleep 0.1; done
  pid="$(tr -dc '0-9' <"$pidfile" 2>/dev/null || true)"
  [[ -n "$pid" ]] || die "the service did not start; see $logf"
  REPLY_PID="$pid"
}

# await_replica i pid t0: waits until replica i is ready (dies if it exits or START_TIMEOUT passes since t0).
await_replica() {
  local i="$1" pid="$2" t0="$3" port logf name=service
  port="$(replica_port "$i")"; logf="$(replica_log "$i")"
  (( REPLICAS == 1 )) || name="replica r$i"
  until service_ready "$port"; do
    if ! alive "$pid"; then
      tail -n 40 "$logf" >&2 || true
      rm -f "$(replica_pidfile "$i")"
      die "the $name exited during start-up; see $logf"
    fi
    if (( SECONDS - t0 >= START_TIMEOUT )); then
      tail -n 40 "$logf" >&2 || true
      die "the $name is not ready after ${START_TIMEOUT} s (pid $pid still runs; 'infra/deploy.sh localstack down' stops it)"
    fi
    sleep 1
  done
  log "$name ready (pid $pid) after $((SECONDS - t0)) s: http://127.0.0.1:$port"
}

ls_up() {
  # 0. Fail early when the ports are taken (unless by our own processes, already running).
  local i
  for i in $(seq 1 "$REPLICAS"); do
    if ! replica_pid "$i" >/dev/null && port_in_use "$(replica_port "$i")"; then
      die "port $(replica_port "$i") is in use (another service?): set ACTIVITY_PORT (replicas use ACTIVITY_PORT..+REPLICAS-1)"
    fi
  done
  if (( REPLICAS == 1 )); then
    if ! service_pid >/dev/null && port_in_use "$JMS_PORT"; then
      die "port $JMS_PORT is in use: set ACTIVITY_JMS_PORT (port of the embedded JMS broker)"
    fi
  else
    if ! broker_pid >/dev/null && port_in_use "$JMS_PORT"; then
      die "port $JMS_PORT is in use: set ACTIVITY_JMS_PORT (port of the replicas' ActiveMQ broker)"
    fi
    if ! postgres_pid >/dev/null && port_in_use "$PG_PORT"; then
      die "port $PG_PORT is in use: set ACTIVITY_PG_PORT (port of the replicas' PostgreSQL)"
    fi
    local tool
    for tool in "$INITDB" "$PG_CTL" "$PSQL"; do
      command -v "$tool" >/dev/null \
        || die "REPLICAS=$REPLICAS needs PostgreSQL's initdb, pg_ctl and psql on PATH (or INITDB, PG_CTL, PSQL): no $tool"
    done
  fi

  # 1. LocalStack: remember whether it was already running (then "down" leaves it running).
  local previous; previous="$(state_get STARTED_LOCALSTACK)"
  if [[ -n "$previous" ]]; then
    STARTED_LOCALSTACK="$previous"
  elif ls_healthy; then
    STARTED_LOCALSTACK=0
  else
    STARTED_LOCALSTACK=1
  fi
  if ls_healthy && [[ "$STARTED_LOCALSTACK" == 1 ]]; then
    log "LocalStack already running at $ENDPOINT (started by an earlier 'up'; 'down' stops it)"
  elif ls_healthy; then
    log "LocalStack already running at $ENDPOINT (not started here: 'down' leaves it running)"
  else
    log "starting LocalStack at $ENDPOINT"
  fi
  # start.sh also installs the venv with the AWS CLI used here; it returns at once if LocalStack runs.
  LOCALSTACK_PORT="$LS_PORT" "$INFRA/localstack/start.sh" </dev/null
  [[ -x "$LS_VENV/bin/aws" ]] || die "no AWS CLI at $LS_VENV/bin/aws (infra/localstack/start.sh installs it)"
  state_write

  # 2. Messaging stack. No CloudWatch on this LocalStack: alarms off.
  if [[ "$(stack_status "$STACK")" == NONE ]]; then
    local q
    for q in events-in events-in-dlq subscriber-a subscriber-a-dlq subscriber-b subscriber-b-dlq; do
      if $AWS sqs get-queue-url --queue-name "$PREFIX-$q" >/dev/null 2>&1; then
        die "queue $PREFIX-$q already exists on this LocalStack but not in a stack $STACK; use another" \
            "prefix (ACTIVITY_NAME_PREFIX=..., default activity-local) or delete that queue if it is yours"
      fi
    done
  fi
  cfn_deploy "$STACK" "$MESSAGING_TEMPLATE" "NamePrefix=$PREFIX" CreateAlarms=false
  INBOUND_QUEUE="$(stack_output "$STACK" InboundQueueName)"
  SUBSCRIBER_QUEUE="$(stack_output "$STACK" SubscriberAQueueName)"
  [[ -n "$INBOUND_QUEUE" && "$INBOUND_QUEUE" != None ]] || die "stack $STACK has no output InboundQueueName"
  log "stack outputs: InboundQueueName=$INBOUND_QUEUE SubscriberAQueueName=$SUBSCRIBER_QUEUE" \
      "TaskPolicyArn=$(stack_output "$STACK" TaskPolicyArn)"

  # 3. The service (one replica: H2 and its embedded broker), or PostgreSQL, a broker and the replicas.
  ensure_jar
  mkdir -p "$RUN_DIR/data"
  ensure_admin_key
  if (( REPLICAS > 1 )); then
    ensure_postgres
    ensure_broker
  fi
  local pids=() t0=$SECONDS
  for i in $(seq 1 "$REPLICAS"); do
    start_replica "$i"
    pids+=("$REPLY_PID")
  done
  (( REPLICAS == 1 )) || state_write
  for i in $(seq 1 "$REPLICAS"); do
    await_replica "$i" "${pids[$((i - 1))]}" "$t0"
  done

  # 4. Smoke test.
  if [[ "${ACTIVITY_SMOKE:-1}" == 1 ]]; then
    ls_smoke
  fi
  log "deployed. Inbound: sqs:$INBOUND_QUEUE; example subscriber queues: sqs:$SUBSCRIBER_QUEUE," \
      "sqs:$(stack_output "$STACK" SubscriberBQueueName). API: curl -H @${AUTH_HEADER#"$ROOT"/} (admin key in" \
      "${KEY_FILE#"$ROOT"/}). Tear down: infra/deploy.sh localstack down"
}

# cluster_smoke: every replica answers its readiness probe, and the cluster view of replica r1 lists the
# replicas r1..rN as live (a heartbeat within three heartbeat intervals), within 30 s.
cluster_smoke() {
  local i pid
  for i in $(seq 1 "$REPLICAS"); do
    pid="$(replica_pid "$i")" || die "smoke: replica r$i is not running (see $(replica_log "$i"))"
    service_ready "$(replica_port "$i")" || die "smoke: replica r$i (pid $pid) is not ready on port $(replica_port "$i")"
  done
  log "smoke: all $REPLICAS replicas ready (ports $PORT..$(replica_port "$REPLICAS"))"
  # Prints "OK <summary>" when r1..rN are all live, else what is missing.
  local check='import json, sys
n = int(sys.argv[1])
view = json.load(sys.stdin)
live = {r["replicaId"] for r in view.get("replicas", []) if r.get("live")}
want = {"r%d" % i for i in range(1, n + 1)}
missing = sorted(want - live)
print(("OK " if not missing else "MISSING " + ",".join(missing) + " ") + "live=" + ",".join(sorted(live))
      + " configVersion=" + str(view.get("configVersion")))'
  local deadline=$((SECONDS + 30)) got="" view
  while (( SECONDS < deadline )); do
    view="$(curl -fsS -m 5 -H @"$AUTH_HEADER" "http://127.0.0.1:$PORT/api/v1/cluster")" \
      || die "smoke: GET /api/v1/cluster on r1 failed"
    got="$("$PY" -c "$check" "$REPLICAS" <<<"$view")"
    [[ "$got" == OK* ]] && break
    sleep 1
  done
  [[ "$got" == OK* ]] || die "smoke: FAIL: GET /api/v1/cluster on r1 does not list all $REPLICAS replicas as live: $got"
  echo "PASS: GET /api/v1/cluster on r1 lists $REPLICAS live replicas (${got#OK })"
}

# await_config_everywhere: the configuration version r1 runs is applied on every replica within 30 s.
await_config_everywhere() {
  local version i v t0=$SECONDS
  version="$(curl -fsS -m 5 -H @"$AUTH_HEADER" "http://127.0.0.1:$PORT/api/v1/cluster/self" \
    | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["configVersion"])')" || die "smoke: GET /api/v1/cluster/self failed"
  for i in $(seq 2 "$REPLICAS"); do
    until v="$(curl -fsS -m 5 -H @"$AUTH_HEADER" "http://127.0.0.1:$(replica_port "$i")/api/v1/cluster/self" \
        | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["configVersion"])')" && (( v >= version )); do
      (( SECONDS - t0 < 30 )) || die "smoke: FAIL: replica r$i runs configuration version ${v:-?}, not $version, after 30 s"
      sleep 0.2
    done
  done
  log "smoke: configuration version $version (the subscription) applied on all $REPLICAS replicas within $((SECONDS - t0)) s"
}

# Publish one CloudEvent with the AWS CLI on the stack's inbound queue; expect it on the subscriber
# queue (through a subscription created over REST) with the same id and data.
ls_smoke() {
  ls_healthy || die "LocalStack does not answer at $ENDPOINT"
  service_ready "$PORT" || die "no service answers on http://127.0.0.1:$PORT (run 'infra/deploy.sh localstack' first)"
  [[ -s "$KEY_FILE" || -n "${ACTIVITY_SECURITY_BOOTSTRAP_ADMIN_KEY:-}" ]] \
    || die "no admin key at $KEY_FILE (written when 'infra/deploy.sh localstack' starts the service)"
  ensure_admin_key
  (( REPLICAS == 1 )) || cluster_smoke
  INBOUND_QUEUE="${INBOUND_QUEUE:-$(stack_output "$STACK" InboundQueueName)}"
  SUBSCRIBER_QUEUE="${SUBSCRIBER_QUEUE:-$(stack_output "$STACK" SubscriberAQueueName)}"
  local run type id api="http://127.0.0.1:$PORT/api/v1"
  run="$(date +%s)-$$-$RANDOM"
  type="io.activityservice.smoke.r${run//-/}"
  id="smoke-$run"
  local t0=$SECONDS
  log "smoke: subscribing type $type -> sqs:$SUBSCRIBER_QUEUE"
  local sub sub_id
  sub="$(curl -fsS -m 10 -XPOST "$api/subscriptions" -H @"$AUTH_HEADER" -H 'Content-Type: application/json' -d "{
      \"name\": \"deploy.sh smoke $run\", \"pattern\": {\"type\": [\"$type\"]},
      \"target\": \"sqs:$SUBSCRIBER_QUEUE\"}")" || die "smoke: creating the subscription failed"
  sub_id="$("$PY" -c 'import json,sys; print(json.load(sys.stdin)["id"])' <<<"$sub")"
  # Any replica may consume the event: wait until all of them run the configuration with the subscription.
  (( REPLICAS == 1 )) || await_config_everywhere

  local inbound_url subscriber_url
  inbound_url="$($AWS sqs get-queue-url --queue-name "$INBOUND_QUEUE" --query QueueUrl --output text)"
  subscriber_url="$($AWS sqs get-queue-url --queue-name "$SUBSCRIBER_QUEUE" --query QueueUrl --output text)"
  local body
  body="{\"specversion\":\"1.0\",\"id\":\"$id\",\"source\":\"/infra/deploy.sh\",\"type\":\"$type\",\"datacontenttype\":\"application/json\",\"data\":{\"run\":\"$run\",\"value\":42}}"
  log "smoke: aws sqs send-message -> $INBOUND_QUEUE (id $id)"
  $AWS sqs send-message --queue-url "$inbound_url" --message-body "$body" --query MessageId --output text >/dev/null

  # Prints the receipt handle of the message with our id, "MISMATCH <data>" if its data differ, else nothing.
  local find='import json, os, sys
want_id, run = sys.argv[1], sys.argv[2]
for m in json.loads(os.environ.get("MSGS") or "{}").get("Messages", []):
    ev = json.loads(m["Body"])
    if ev.get("id") == want_id:
        print(m["ReceiptHandle"] if ev.get("data") == {"run": run, "value": 42} else "MISMATCH " + json.dumps(ev.get("data")))
        break'
  local deadline=$((SECONDS + 60)) got="" msgs
  while [[ -z "$got" ]] && (( SECONDS < deadline )); do
    msgs="$($AWS sqs receive-message --queue-url "$subscriber_url" --max-number-of-messages 10 \
      --wait-time-seconds 5 --output json)"
    got="$(MSGS="$msgs" "$PY" -c "$find" "$id" "$run")"
  done
  curl -fsS -m 10 -o /dev/null -XDELETE -H @"$AUTH_HEADER" "$api/subscriptions/$sub_id" || log "smoke: could not delete subscription $sub_id"
  if [[ -z "$got" ]]; then
    die "smoke: FAIL: event $id did not arrive on $SUBSCRIBER_QUEUE within 60 s (see $SERVICE_LOG)"
  elif [[ "$got" == MISMATCH* ]]; then
    die "smoke: FAIL: event $id arrived on $SUBSCRIBER_QUEUE with different data: ${got#MISMATCH }"
  fi
  $AWS sqs delete-message --queue-url "$subscriber_url" --receipt-handle "$got"
  echo "PASS: event $id sent with 'aws sqs send-message' to sqs:$INBOUND_QUEUE arrived on sqs:$SUBSCRIBER_QUEUE" \
       "with the same id and data ($((SECONDS - t0)) s)"
}

# stop_pids label pid...: SIGTERM, then SIGKILL what still runs after 30 s.
stop_pids() {
  local label="$1" pid; shift
  log "stopping $label (pid $*)"
  kill -TERM "$@" 2>/dev/null || true
  local deadline=$((SECONDS + 30))
  for pid in "$@"; do
    while alive "$pid" && (( SECONDS < deadline )); do sleep 0.5; done
    if alive "$pid"; then
      log "pid $pid still running after 30 s: KILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  log "$label stopped"
}

ls_down() {
  local pids=() i pid
  for i in $(seq 1 "$REPLICAS"); do
    if pid="$(replica_pid "$i")"; then pids+=("$pid"); fi
  done
  if (( ${#pids[@]} > 0 )); then
    if (( REPLICAS == 1 )); then stop_pids "the service" "${pids[@]}"; else stop_pids "the replicas" "${pids[@]}"; fi
  else
    log "no service started by this script is running"
  fi
  for i in $(seq 1 "$REPLICAS"); do rm -f "$(replica_pidfile "$i")"; done
  if pid="$(broker_pid)"; then stop_pids "the ActiveMQ broker" "$pid"; fi
  rm -f "$BROKER_PIDFILE"
  if pid="$(postgres_pid)"; then
    log "stopping PostgreSQL (pid $pid)"
    if pg_run "$PG_CTL" -D "$PG_DIR" -m fast -w -t 60 stop >/dev/null; then log "PostgreSQL stopped"
    else stop_pids PostgreSQL "$pid"; fi
  fi

  local started; started="$(state_get STARTED_LOCALSTACK)"
  if ls_healthy; then
    [[ -x "$LS_VENV/bin/aws" ]] || die "no AWS CLI at $LS_VENV/bin/aws"
    cfn_delete "$STACK"
  else
    log "LocalStack is not running at $ENDPOINT: nothing to delete there"
  fi
  if [[ "$started" == 1 ]]; then
    log "stopping LocalStack (started by infra/deploy.sh localstack)"
    "$INFRA/localstack/stop.sh"
  elif [[ "$started" == 0 ]]; then
    log "leaving LocalStack running (it was running before infra/deploy.sh localstack)"
  fi
  rm -f "$STATE"
  rm -rf "$RUN_DIR/data"   # H2 or PostgreSQL, and KahaDB of this deployment (subscriptions to the deleted queues)
  rm -f "$KEY_FILE" "$AUTH_HEADER" "$RUN_DIR/broker-logback.xml"
  if (( REPLICAS == 1 )); then
    log "down (service log kept: $SERVICE_LOG)"
  else
    log "down (logs kept: ${RUN_DIR#"$ROOT"/}/service-r*.log, broker.log, postgres.log)"
  fi
}

# ================================================================================================
# AWS
# ================================================================================================

aws_init() {
  if [[ -n "${AWS_CLI:-}" ]]; then
    AWS="$AWS_CLI"
  elif command -v aws >/dev/null 2>&1; then
    AWS=aws
  elif [[ -x "$INFRA/localstack/.venv/bin/aws" ]]; then
    AWS="$INFRA/localstack/.venv/bin/aws"
  else
    die "no AWS CLI: install one (or run infra/localstack/start.sh once, which installs infra/localstack/.venv/bin/aws)"
  fi
  export AWS_PAGER=""
  REGION="${AWS_REGION:-${AWS_DEFAULT_REGION:-}}"
  [[ -n "$REGION" ]] || die "set AWS_REGION"
  export AWS_REGION="$REGION" AWS_DEFAULT_REGION="$REGION"
  PREFIX="${ACTIVITY_NAME_PREFIX:-activity}"
  MESSAGING_STACK="${MESSAGING_STACK:-$PREFIX-messaging}"
  SERVICE_STACK="${SERVICE_STACK:-$PREFIX-service}"
  local who
  who="$($AWS sts get-caller-identity --query Arn --output text)" || die "no AWS credentials (aws sts get-caller-identity failed)"
  ACCOUNT="$($AWS sts get-caller-identity --query Account --output text)"
  log "AWS account $ACCOUNT, region $REGION, as $who"
}

require() { for v in "$@"; do [[ -n "${!v:-}" ]] || die "set $v (see infra/README.md)"; done; }

aws_messaging() {
  local params=("NamePrefix=$PREFIX" "MaxReceiveCount=${MAX_RECEIVE_COUNT:-5}" "CreateAlarms=${CREATE_ALARMS:-true}")
  [[ -n "${ALARM_EMAIL:-}" ]] && params+=("AlarmEmail=$ALARM_EMAIL")
  cfn_deploy "$MESSAGING_STACK" "$MESSAGING_TEMPLATE" "${params[@]}"
  $AWS cloudformation describe-stacks --stack-name "$MESSAGING_STACK" \
    --query 'Stacks[0].Outputs[].[OutputKey,OutputValue]' --output text
}

aws_service() {
  require VPC_ID SUBNET_IDS IMAGE_URI
  local params=(
    "MessagingStackName=$MESSAGING_STACK" "NamePrefix=$PREFIX"
    "VpcId=$VPC_ID" "SubnetIds=$SUBNET_IDS" "ImageUri=$IMAGE_URI"
    "AssignPublicIp=${ASSIGN_PUBLIC_IP:-DISABLED}"
    "LoadBalancerSubnetIds=${LB_SUBNET_IDS:-}" "LoadBalancerScheme=${LB_SCHEME:-internal}"
    "AllowedCidr=${ALLOWED_CIDR:-10.0.0.0/8}"
    "TaskCpu=${TASK_CPU:-512}" "TaskMemory=${TASK_MEMORY:-1024}" "DesiredCount=${DESIRED_COUNT:-2}"
    "MqInstanceType=${MQ_INSTANCE_TYPE:-mq.t3.micro}" "MqEngineVersion=${MQ_ENGINE_VERSION:-5.18}"
    "DbInstanceClass=${DB_INSTANCE_CLASS:-db.t4g.micro}" "DbEngineVersion=${DB_ENGINE_VERSION:-16}"
    "DbMultiAz=${DB_MULTI_AZ:-false}" "DbDeletionProtection=${DB_DELETION_PROTECTION:-false}")
  log "the first deploy takes 20-30 minutes (Amazon MQ and RDS)"
  cfn_deploy "$SERVICE_STACK" "$SERVICE_TEMPLATE" "${params[@]}"
  $AWS cloudformation describe-stacks --stack-name "$SERVICE_STACK" \
    --query 'Stacks[0].Outputs[].[OutputKey,OutputValue]' --output text
}

aws_image() {
  command -v docker >/dev/null 2>&1 || die "docker is needed to build the image"
  local repo="${ECR_REPOSITORY:-activity-service}" tag="${IMAGE_TAG:-$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo latest)}"
  local registry="$ACCOUNT.dkr.ecr.$REGION.amazonaws.com"
  if ! $AWS ecr describe-repositories --repository-names "$repo" >/dev/null 2>&1; then
    log "creating ECR repository $repo"
    $AWS ecr create-repository --repository-name "$repo" --image-scanning-configuration scanOnPush=true >/dev/null
  fi
  $AWS ecr get-login-password | docker login --username AWS --password-stdin "$registry"
  # ECS runs with Amazon MQ / SQS (external brokers): the jar without the embedded servers.
  docker build --platform linux/amd64 --build-arg JAR_VARIANT=lean -t "$registry/$repo:$tag" "$ROOT"
  docker push "$registry/$repo:$tag"
  echo "IMAGE_URI=$registry/$repo:$tag"
}

aws_down() {
  cfn_delete "$SERVICE_STACK"   # first: it imports the messaging stack's exports
  cfn_delete "$MESSAGING_STACK"
  log "down. Kept on purpose: the RDS final snapshot '$PREFIX-db-…' (DeletionPolicy Snapshot) and the ECR repository;" \
      "delete them in the console or with 'aws rds delete-db-snapshot' / 'aws ecr delete-repository --force'"
}

# ================================================================================================

mode="${1:-}"; action="${2:-up}"
[[ $# -le 2 ]] || usage
case "$mode" in
  localstack)
    ls_init
    case "$action" in
      up) ls_up ;;
      smoke) ls_smoke ;;
      down) ls_down ;;
      *) usage ;;
    esac ;;
  aws)
    case "$action" in
      up) aws_init; aws_messaging; aws_service ;;
      messaging) aws_init; aws_messaging ;;
      service) aws_init; aws_service ;;
      image) aws_init; aws_image ;;
      down) aws_init; aws_down ;;
      *) usage ;;
    esac ;;
  -h|--help|help) usage 0 ;;
  *) usage ;;
esac
