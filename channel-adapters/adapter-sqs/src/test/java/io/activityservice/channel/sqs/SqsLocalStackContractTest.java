package io.activityservice.channel.sqs;

import org.junit.jupiter.api.BeforeAll;

/** The shared adapter contract against a real LocalStack (see {@link LocalStackSqs}). */
class SqsLocalStackContractTest extends AbstractSqsContractTest {

  @BeforeAll
  static void start() {
    adapter =
        SqsChannelAdapter.connect(
            LocalStackSqs.properties().toBuilder().redelivery(CONTRACT_REDELIVERY).build());
  }
}
