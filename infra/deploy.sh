#!/usr/bin/env bash
# Deploy the Activity Service.
#
#   infra/deploy.sh localstack [up]    LocalStack on this host (infra/localstack/start.sh), the messaging stack
#                                      (infra/aws/messaging.yaml) through LocalStack CloudFormation, the service
#                                      jar (profile "localstack") on ACTIVITY_PORT, then a smoke test:
#                                      SQS inbound queue -> service -> SQS subscriber queue. Prints PASS.
#   infra/deploy.sh localstack smoke   the smoke test only (against a running deployment)
#   infra/deploy.sh localstack down    stop the service started here, delete the stack, stop LocalStack if
#                                      this script started it
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
  sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
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
  ENDPOINT="http://127.0.0.1:$LS_PORT"
  JAR="${ACTIVITY_JAR:-$ROOT/activity-service/target/activity-service-0.1.0-SNAPSHOT.jar}"
  JAVA="${JAVA:-java}"
  JAVA_OPTS="${ACTIVITY_JAVA_OPTS:--Xmx512m -XX:TieredStopAtLevel=1}"
  START_TIMEOUT="${ACTIVITY_START_TIMEOUT:-180}"
  LS_VENV="${LOCALSTACK_VENV:-$INFRA/localstack/.venv}"
  for v in LS_PORT PORT JMS_PORT START_TIMEOUT; do
    [[ "${!v}" =~ ^[0-9]+$ ]] || die "$v must be a number, got '${!v}'"
  done
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
  } >"$STATE.tmp"
  mv "$STATE.tmp" "$STATE"
}

service_pid() { # prints the pid of the service this script started, if it still runs
  local pid
  [[ -f "$PIDFILE" ]] || return 1
  pid="$(tr -dc '0-9' <"$PIDFILE")"
  [[ -n "$pid" ]] && alive "$pid" || return 1
  if [[ -r "/proc/$pid/cmdline" ]]; then
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- '--spring.profiles.active=localstack' || return 1
  fi
  echo "$pid"
}

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

ls_up() {
  # 0. Fail early when the service's ports are taken (unless it is our service, already running).
  if ! service_pid >/dev/null; then
    if port_in_use "$PORT"; then die "port $PORT is in use (another service?): set ACTIVITY_PORT"; fi
    if port_in_use "$JMS_PORT"; then die "port $JMS_PORT is in use: set ACTIVITY_JMS_PORT (port of the embedded JMS broker)"; fi
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

  # 3. The service.
  ensure_jar
  local pid
  if pid="$(service_pid)"; then
    log "service already running (pid $pid, http://127.0.0.1:$PORT); reusing it"
  else
    mkdir -p "$RUN_DIR/data"
    ensure_admin_key
    log "starting the service on http://127.0.0.1:$PORT (profile localstack, inbound sqs:$INBOUND_QUEUE," \
        "embedded JMS broker tcp://127.0.0.1:$JMS_PORT, data ${RUN_DIR#"$ROOT"/}/data, log ${SERVICE_LOG#"$ROOT"/}," \
        "admin key in ${KEY_FILE#"$ROOT"/})"
    echo "==== $(date -Is) infra/deploy.sh: starting the service ====" >>"$SERVICE_LOG"
    # The inner shell writes its own pid and exec's java (so the pid file holds the service itself).
    # The admin key goes in the environment, not on the command line.
    # shellcheck disable=SC2086,SC2016  # JAVA_OPTS is a list of options; $$ expands in the inner shell
    ACTIVITY_INBOUND_QUEUE="$INBOUND_QUEUE" ACTIVITY_DATA_DIR="$RUN_DIR/data" ACTIVITY_JMS_PORT="$JMS_PORT" \
    ACTIVITY_SECURITY_BOOTSTRAP_ADMIN_KEY="$(head -n1 "$KEY_FILE")" \
    LOCALSTACK_ENDPOINT="$ENDPOINT" SVC_PIDFILE="$PIDFILE" \
      nohup setsid bash -c 'echo $$ >"$SVC_PIDFILE"; unset SVC_PIDFILE; exec "$@"' activity-service \
        "$JAVA" $JAVA_OPTS -jar "$JAR" --spring.profiles.active=localstack --server.port="$PORT" \
        >>"$SERVICE_LOG" 2>&1 </dev/null &
    for _ in $(seq 1 50); do [[ -s "$PIDFILE" ]] && break; sleep 0.1; done
    pid="$(tr -dc '0-9' <"$PIDFILE" 2>/dev/null || true)"
    [[ -n "$pid" ]] || die "the service did not start; see $SERVICE_LOG"
  fi
  local t0=$SECONDS
  until service_ready "$PORT"; do
    if ! alive "$pid"; then
      tail -n 40 "$SERVICE_LOG" >&2 || true
      rm -f "$PIDFILE"
      die "the service exited during start-up; see $SERVICE_LOG"
    fi
    if (( SECONDS - t0 >= START_TIMEOUT )); then
      tail -n 40 "$SERVICE_LOG" >&2 || true
      die "the service is not ready after ${START_TIMEOUT} s (pid $pid still runs; 'infra/deploy.sh localstack down' stops it)"
    fi
    sleep 1
  done
  log "service ready (pid $pid) after $((SECONDS - t0)) s: http://127.0.0.1:$PORT"

  # 4. Smoke test.
  if [[ "${ACTIVITY_SMOKE:-1}" == 1 ]]; then
    ls_smoke
  fi
  log "deployed. Inbound: sqs:$INBOUND_QUEUE; example subscriber queues: sqs:$SUBSCRIBER_QUEUE," \
      "sqs:$(stack_output "$STACK" SubscriberBQueueName). API: curl -H @${AUTH_HEADER#"$ROOT"/} (admin key in" \
      "${KEY_FILE#"$ROOT"/}). Tear down: infra/deploy.sh localstack down"
}

# Publish one CloudEvent with the AWS CLI on the stack's inbound queue; expect it on the subscriber
# queue (through a subscription created over REST) with the same id and data.
ls_smoke() {
  ls_healthy || die "LocalStack does not answer at $ENDPOINT"
  service_ready "$PORT" || die "no service answers on http://127.0.0.1:$PORT (run 'infra/deploy.sh localstack' first)"
  [[ -s "$KEY_FILE" || -n "${ACTIVITY_SECURITY_BOOTSTRAP_ADMIN_KEY:-}" ]] \
    || die "no admin key at $KEY_FILE (written when 'infra/deploy.sh localstack' starts the service)"
  ensure_admin_key
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

ls_down() {
  local pid
  if pid="$(service_pid)"; then
    log "stopping the service (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + 30))
    while alive "$pid" && (( SECONDS < deadline )); do sleep 0.5; done
    if alive "$pid"; then
      log "still running after 30 s: KILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    log "service stopped"
  else
    log "no service started by this script is running"
  fi
  rm -f "$PIDFILE"

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
  rm -rf "$RUN_DIR/data"   # H2 and KahaDB of this deployment (subscriptions to the deleted queues)
  rm -f "$KEY_FILE" "$AUTH_HEADER"
  log "down (service log kept: $SERVICE_LOG)"
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
    "TaskCpu=${TASK_CPU:-512}" "TaskMemory=${TASK_MEMORY:-1024}" "DesiredCount=${DESIRED_COUNT:-1}"
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
  docker build --platform linux/amd64 -t "$registry/$repo:$tag" "$ROOT"
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
