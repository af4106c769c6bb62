package io.activityservice.channel.sqs;

import io.activityservice.channel.sqs.embedded.EmbeddedElasticMq;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** SQS behaviour on an embedded ElasticMQ (1 MiB batches, as on AWS). */
class SqsElasticMqBehaviourTest extends SqsBehaviourTests {

  private static EmbeddedElasticMq server;

  @BeforeAll
  static void start() {
    server = EmbeddedElasticMq.start("127.0.0.1", 0);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Override
  protected SqsChannelProperties properties() {
    return SqsChannelProperties.forEndpoint(server.endpoint()).toBuilder()
        .pollers(2)
        .waitTime(Duration.ofSeconds(2))
        .visibilityTimeout(Duration.ofSeconds(30))
        .maxInFlight(100)
        .build();
  }
}
