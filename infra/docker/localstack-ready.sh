#!/usr/bin/env bash
# LocalStack "ready" hook of docker-compose.yml (mounted into /etc/localstack/init/ready.d/): deploys
# infra/aws/messaging.yaml with LocalStack's CloudFormation, as infra/deploy.sh localstack does on the host.
# The compose file's health check waits for this hook, so the service starts only once the queues exist.
set -euo pipefail
awslocal cloudformation deploy --stack-name "${ACTIVITY_STACK_NAME:-activity-messaging}" \
  --template-file /opt/activity/messaging.yaml --capabilities CAPABILITY_NAMED_IAM --no-fail-on-empty-changeset \
  --parameter-overrides "NamePrefix=${ACTIVITY_NAME_PREFIX:-activity}" CreateAlarms=false
awslocal cloudformation describe-stacks --stack-name "${ACTIVITY_STACK_NAME:-activity-messaging}" \
  --query 'Stacks[0].Outputs[].[OutputKey,OutputValue]' --output text
