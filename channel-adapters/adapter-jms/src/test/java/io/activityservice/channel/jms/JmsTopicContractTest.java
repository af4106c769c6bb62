package io.activityservice.channel.jms;

/** The shared adapter contract on jms:topic: channels (shared durable subscription). */
class JmsTopicContractTest extends AbstractJmsContractTest {

  @Override
  String kind() {
    return "topic";
  }
}
