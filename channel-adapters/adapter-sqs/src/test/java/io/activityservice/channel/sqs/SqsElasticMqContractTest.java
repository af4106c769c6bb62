package io.activityservice.channel.sqs;

import io.activityservice.channel.sqs.embedded.EmbeddedElasticMq;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The shared adapter contract against an embedded ElasticMQ on a random port. */
class SqsElasticMqContractTest extends AbstractSqsContractTest {

  private static EmbeddedElasticMq server;

  @BeforeAll
  static void start() {
    server = EmbeddedElasticMq.start("127.0.0.1", 0);
    adapter =
        SqsChannelAdapter.connect(
            SqsChannelProperties.forEndpoint(server.endpoint()).toBuilder()
                .pollers(2)
                .waitTime(Duration.ofSeconds(2))
                .visibilityTimeout(Duration.ofSeconds(30))
                .maxInFlight(100)
                .redelivery(CONTRACT_REDELIVERY)
                .build());
  }

  @AfterAll
  static void stopServer() {
    closeAdapter(); // before the server it talks to
    if (server != null) {
      server.close();
    }
  }
}
