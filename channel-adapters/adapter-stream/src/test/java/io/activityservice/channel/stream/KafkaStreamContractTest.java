package io.activityservice.channel.stream;

import static org.awaitility.Awaitility.await;

import io.activityservice.channel.ChannelAdapter;
import io.activityservice.channel.ChannelAdapterContract;
import io.activityservice.channel.ChannelUri;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.ConsumerGroupState;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.utils.KafkaTestUtils;

/** The shared adapter contract through the Spring Cloud Stream Kafka binder on a real broker. */
@EmbeddedKafkaStreamTest
class KafkaStreamContractTest extends ChannelAdapterContract {

  @Autowired private StreamChannelAdapter adapter;
  @Autowired private EmbeddedKafkaBroker broker;
  @Autowired private KafkaChannelProperties properties;

  @Override
  protected ChannelAdapter adapter() {
    return adapter;
  }

  @Override
  protected ChannelUri freshChannel() {
    return ChannelUri.parse("kafka:contract-" + UUID.randomUUID());
  }

  /**
   * A record without headers or key from a plain Kafka producer; its id is topic-partition-offset.
   */
  @Override
  protected String sendPlain(ChannelUri uri, byte[] body) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            KafkaTestUtils.producerProps(broker),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      RecordMetadata sent =
          producer.send(new ProducerRecord<>(uri.address(), body)).get(30, TimeUnit.SECONDS);
      return sent.topic() + "-" + sent.partition() + "-" + sent.offset();
    }
  }

  /**
   * Waits for a stable consumer group (the adapter's default group) in which every receiver of the
   * topic owns partitions of it, so that no rebalance moves a partition during the test.
   */
  @Override
  protected void awaitCompetingReceivers(ChannelUri uri, int receivers) throws Exception {
    String group = properties.group();
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString()))) {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                ConsumerGroupDescription d =
                    admin.describeConsumerGroups(List.of(group)).all().get().get(group);
                List<Long> owned =
                    d.members().stream()
                        .map(
                            m ->
                                m.assignment().topicPartitions().stream()
                                    .filter(p -> p.topic().equals(uri.address()))
                                    .count())
                        .filter(n -> n > 0)
                        .toList();
                return d.state() == ConsumerGroupState.STABLE
                    && owned.size() == receivers
                    && owned.stream().mapToLong(Long::longValue).sum() == 3;
              });
    }
  }

  @Override
  protected ChannelUri invalidChannel() {
    return new ChannelUri("kafka", "not a topic!");
  }
}
