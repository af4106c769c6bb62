package io.activityservice.channel.stream;

import io.activityservice.channel.ChannelAdapter;
import io.activityservice.channel.ChannelAdapterContract;
import io.activityservice.channel.ChannelUri;
import java.util.UUID;
import org.springframework.beans.factory.annotation.Autowired;

/** The shared adapter contract through the Spring Cloud Stream Kafka binder on a real broker. */
@EmbeddedKafkaStreamTest
class KafkaStreamContractTest extends ChannelAdapterContract {

  @Autowired
  private StreamChannelAdapter adapter;

  @Override
  protected ChannelAdapter adapter() {
    return adapter;
  }

  @Override
  protected ChannelUri freshChannel() {
    return ChannelUri.parse("kafka:contract-" + UUID.randomUUID());
  }

  @Override
  protected ChannelUri invalidChannel() {
    return new ChannelUri("kafka", "not a topic!");
  }
}
