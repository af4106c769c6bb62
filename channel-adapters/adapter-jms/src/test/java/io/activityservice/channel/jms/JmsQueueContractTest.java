package io.activityservice.channel.jms;

/** The shared adapter contract on jms:queue: channels. */
class JmsQueueContractTest extends AbstractJmsContractTest {

  @Override
  String kind() {
    return "queue";
  }
}
