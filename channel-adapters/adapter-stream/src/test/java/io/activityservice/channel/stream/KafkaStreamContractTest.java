package io.activityservice.channel.stream;

import io.activityservice.channel.ChannelAdapter;
import io.activityservice.channel.ChannelAdapterContract;
import io.activityservice.channel.ChannelUri;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.utils.KafkaTestUtils;

/** The shared adapter contract through the Spring Cloud Stream Kafka binder on a real broker. */
@EmbeddedKafkaStreamTest
class KafkaStreamContractTest extends ChannelAdapterContract {

  @Autowired
  private StreamChannelAdapter adapter;
  @Autowired
  private EmbeddedKafkaBroker broker;

  @Override
  protected ChannelAdapter adapter() {
    return adapter;
  }

  @Override
  protected ChannelUri freshChannel() {
    return ChannelUri.parse("kafka:contract-" + UUID.randomUUID());
  }

  /** A record without headers or key from a plain Kafka producer; its id is topic-partition-offset. */
  @Override
  protected String sendPlain(ChannelUri uri, byte[] body) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(KafkaTestUtils.producerProps(broker),
        new ByteArraySerializer(), new ByteArraySerializer())) {
      RecordMetadata sent = producer.send(new ProducerRecord<>(uri.address(), body)).get(30, TimeUnit.SECONDS);
      return sent.topic() + "-" + sent.partition() + "-" + sent.offset();
    }
  }

  @Override
  protected ChannelUri invalidChannel() {
    return new ChannelUri("kafka", "not a topic!");
  }
}
