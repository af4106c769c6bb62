package io.activityservice.channel.sqs;

/** SQS behaviour on a real LocalStack (256 KiB batches). */
class SqsLocalStackBehaviourTest extends SqsBehaviourTests {

  @Override
  protected SqsChannelProperties properties() {
    return LocalStackSqs.properties();
  }
}
