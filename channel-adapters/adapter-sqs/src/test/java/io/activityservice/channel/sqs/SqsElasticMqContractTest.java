package io.activityservice.channel.sqs;

import io.activityservice.channel.ChannelAdapter;
import io.activityservice.channel.ChannelAdapterContract;
import io.activityservice.channel.ChannelUri;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The shared adapter contract against an embedded ElasticMQ on a random port. */
class SqsElasticMqContractTest extends ChannelAdapterContract {

  private static EmbeddedElasticMq server;
  private static SqsChannelAdapter adapter;

  @BeforeAll
  static void start() {
    server = EmbeddedElasticMq.start("127.0.0.1", 0);
    adapter = SqsChannelAdapter.connect(SqsChannelProperties.forEndpoint(server.endpoint())
        .withReceive(2, Duration.ofSeconds(2), Duration.ofSeconds(30), 100));
  }

  @AfterAll
  static void stop() {
    if (adapter != null) {
      adapter.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Override
  protected ChannelAdapter adapter() {
    return adapter;
  }

  @Override
  protected ChannelUri freshChannel() {
    return ChannelUri.parse("sqs:contract-" + UUID.randomUUID());
  }

  @Override
  protected ChannelUri invalidChannel() {
    return ChannelUri.parse("sqs:" + "x".repeat(81));
  }
}
