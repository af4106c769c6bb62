package io.activityservice.channel.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.OutboundEvent;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.utils.KafkaTestUtils;

/**
 * Wire format, consumer groups and commits, checked with plain Kafka clients on the same broker.
 */
@EmbeddedKafkaStreamTest
class KafkaStreamBindingTest {

  @Autowired private StreamChannelAdapter adapter;
  @Autowired private EmbeddedKafkaBroker broker;

  private final List<AutoCloseable> opened = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : opened) {
      c.close();
    }
  }

  private <T extends AutoCloseable> T track(T closeable) {
    opened.add(closeable);
    return closeable;
  }

  private static String topic(String prefix) {
    return prefix + "-" + UUID.randomUUID();
  }

  private static String text(byte[] bytes) {
    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
  }

  @Test
  void outboundWritesBinaryModeWithPartitionKey() throws Exception {
    String topic = topic("wire-out");
    OutboundChannel out = track(adapter.openOutbound(ChannelUri.parse("kafka:" + topic)));
    CloudEvent event =
        CloudEventBuilder.v1()
            .withId("w-1")
            .withSource(URI.create("/wire"))
            .withType("t.wire")
            .withSubject("subj")
            .withExtension("partitionkey", "pk-1")
            .withDataContentType("application/json")
            .withData("{\"a\":1}".getBytes(StandardCharsets.UTF_8))
            .build();
    out.send(event).get(30, TimeUnit.SECONDS);

    Map<String, Object> props = KafkaTestUtils.consumerProps(broker, "raw-" + topic, false);
    props.put("auto.offset.reset", "earliest");
    try (Consumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      ConsumerRecord<byte[], byte[]> record =
          KafkaTestUtils.getSingleRecord(consumer, topic, Duration.ofSeconds(30));
      Map<String, String> headers = new HashMap<>();
      for (Header h : record.headers()) {
        headers.put(h.key(), text(h.value()));
      }
      assertThat(headers)
          .containsEntry("ce_specversion", "1.0")
          .containsEntry("ce_id", "w-1")
          .containsEntry("ce_source", "/wire")
          .containsEntry("ce_type", "t.wire")
          .containsEntry("ce_subject", "subj")
          .containsEntry("ce_partitionkey", "pk-1")
          .containsEntry("content-type", "application/json");
      assertThat(headers.keySet())
          .allMatch(
              k -> k.startsWith("ce_") || k.equals("content-type"), "only CloudEvents headers");
      assertThat(text(record.key()))
          .as("the partitionkey extension is the default key")
          .isEqualTo("pk-1");
      assertThat(text(record.value())).isEqualTo("{\"a\":1}");
    }
  }

  @Test
  void inboundAcceptsBinaryStructuredAndPlainRecords() throws Exception {
    String topic = topic("wire-in");
    Map<String, CloudEvent> received = new ConcurrentHashMap<>();
    InboundSettings settings =
        new InboundSettings("com.example.plain", URI.create("/plain"), Map.of());
    track(
        adapter.openInbound(
            ChannelUri.parse("kafka:" + topic),
            settings,
            (event, ack) -> {
              received.put(event.getType(), event);
              ack.ack();
            }));

    CloudEvent structured =
        CloudEventBuilder.v1()
            .withId("s-1")
            .withSource(URI.create("/s"))
            .withType("t.structured")
            .withData("text/plain", "hello".getBytes(StandardCharsets.UTF_8))
            .build();
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            KafkaTestUtils.producerProps(broker),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      ProducerRecord<byte[], byte[]> binary =
          new ProducerRecord<>(topic, null, "b".getBytes(StandardCharsets.UTF_8));
      binary
          .headers()
          .add("ce_specversion", bytes("1.0"))
          .add("ce_id", bytes("b-1"))
          .add("ce_source", bytes("/b"))
          .add("ce_type", bytes("t.binary"))
          .add("ce_traceid", bytes("x"));
      ProducerRecord<byte[], byte[]> json =
          new ProducerRecord<>(topic, null, CloudEventJson.encode(structured));
      json.headers().add("content-type", bytes(CloudEventJson.CONTENT_TYPE));
      ProducerRecord<byte[], byte[]> plain = new ProducerRecord<>(topic, 0, null, bytes("legacy"));
      producer.send(binary).get(30, TimeUnit.SECONDS);
      producer.send(json).get(30, TimeUnit.SECONDS);
      var meta = producer.send(plain).get(30, TimeUnit.SECONDS);

      await().atMost(Duration.ofSeconds(60)).until(() -> received.size() == 3);
      assertThat(received.get("t.binary").getId()).isEqualTo("b-1");
      assertThat(received.get("t.binary").getExtension("traceid")).isEqualTo("x");
      assertThat(text(received.get("t.structured").getData().toBytes())).isEqualTo("hello");
      CloudEvent wrapped = received.get("com.example.plain");
      assertThat(wrapped.getId()).isEqualTo(topic + "-0-" + meta.offset());
      assertThat(wrapped.getSource()).isEqualTo(URI.create("/plain"));
      assertThat(text(wrapped.getData().toBytes())).isEqualTo("legacy");
    }
  }

  /**
   * Sends are asynchronous: thousands are in flight at once on the two send lanes (no thread per
   * record), and the producer batches them (more than one record per produce request).
   */
  @Test
  void sendsAreAsynchronousAndTheProducerBatchesThem() throws Exception {
    String topic = topic("async");
    OutboundChannel out = track(adapter.openOutbound(ChannelUri.parse("kafka:" + topic)));
    out.send(
            CloudEventBuilder.v1()
                .withId("first")
                .withSource(URI.create("/a"))
                .withType("t")
                .build())
        .get(30, TimeUnit.SECONDS); // binds
    List<CompletableFuture<Void>> sends = new ArrayList<>();
    for (int i = 0; i < 5_000; i++) {
      sends.add(
          out.send(
              CloudEventBuilder.v1()
                  .withId("a-" + i)
                  .withSource(URI.create("/a"))
                  .withType("t")
                  .withData(
                      "application/json", ("{\"i\":" + i + "}").getBytes(StandardCharsets.UTF_8))
                  .build()));
    }
    CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    long lanes =
        Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.getName().startsWith("kafka-channel-send-"))
            .count();
    assertThat(lanes).as("send lanes, not a thread per record in flight").isEqualTo(2);
    javax.management.MBeanServer jmx =
        java.lang.management.ManagementFactory.getPlatformMBeanServer();
    double recordsPerRequest = 0;
    for (javax.management.ObjectName name :
        jmx.queryNames(
            new javax.management.ObjectName(
                "kafka.producer:type=producer-topic-metrics,client-id=*,topic=" + topic),
            null)) {
      Object records = jmx.getAttribute(name, "record-send-total");
      recordsPerRequest = Math.max(recordsPerRequest, ((Number) records).doubleValue());
    }
    assertThat(recordsPerRequest).as("records sent on the topic").isGreaterThanOrEqualTo(5_001);
    double perRequest = 0;
    for (javax.management.ObjectName name :
        jmx.queryNames(
            new javax.management.ObjectName("kafka.producer:type=producer-metrics,client-id=*"),
            null)) {
      Object value = jmx.getAttribute(name, "records-per-request-avg");
      if (value instanceof Number n && Double.isFinite(n.doubleValue())) {
        perRequest = Math.max(perRequest, n.doubleValue());
      }
    }
    assertThat(perRequest).as("records per produce request").isGreaterThan(1.0);
  }

  @Test
  void undecodableRecordIsSkippedAndCommittedWithoutBlockingThePartition() throws Exception {
    String topic = topic("poison");
    String group = "poison-" + UUID.randomUUID();
    List<String> ids = new CopyOnWriteArrayList<>();
    track(
        adapter.openInbound(
            ChannelUri.parse("kafka:" + topic),
            new InboundSettings(null, null, Map.of(StreamChannelAdapter.GROUP_SETTING, group)),
            (event, ack) -> {
              ids.add(event.getId());
              ack.ack();
            }));
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            KafkaTestUtils.producerProps(broker),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      producer
          .send(new ProducerRecord<>(topic, 0, null, bytes("not an event")))
          .get(30, TimeUnit.SECONDS);
    }
    OutboundChannel out = track(adapter.openOutbound(ChannelUri.parse("kafka:" + topic)));
    CloudEvent after =
        CloudEventBuilder.v1().withId("after").withSource(URI.create("/p")).withType("t").build();
    // Same partition as the poison record: no key -> use partition via the test producer instead.
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            KafkaTestUtils.producerProps(broker),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      KafkaCloudEventCodec.Encoded encoded = KafkaCloudEventCodec.encode(after);
      ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, 0, null, encoded.value());
      encoded.headers().forEach((k, v) -> record.headers().add(k, v));
      producer.send(record).get(30, TimeUnit.SECONDS);
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> ids.contains("after"));
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> Long.valueOf(2L).equals(committed(group, new TopicPartition(topic, 0))));
    assertThat(ids).containsExactly("after");
    assertThat(out.uri().address()).isEqualTo(topic);
  }

  @Test
  void outOfOrderAcksCommitOnlyOnceEveryEarlierRecordIsAcked() throws Exception {
    String topic = topic("ooo");
    String group = "ooo-" + UUID.randomUUID();
    Map<String, io.activityservice.channel.Acknowledgement> pending = new ConcurrentHashMap<>();
    track(
        adapter.openInbound(
            ChannelUri.parse("kafka:" + topic),
            new InboundSettings(null, null, Map.of(StreamChannelAdapter.GROUP_SETTING, group)),
            (event, ack) -> pending.put(event.getId(), ack)));
    OutboundChannel out = track(adapter.openOutbound(ChannelUri.parse("kafka:" + topic)));
    for (int i = 0; i < 3; i++) { // same partition key -> same partition, offsets 0,1,2
      out.send(event("e" + i)).get(30, TimeUnit.SECONDS);
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> pending.size() == 3);
    TopicPartition partition = partitionOf(topic);

    pending.get("e2").ack();
    pending.get("e1").ack();
    // Two more records, each sent after the previous one arrived: once e4 is delivered the
    // consumer has run a full poll loop after those acks, so any commit they caused is visible.
    out.send(event("e3")).get(30, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(60)).until(() -> pending.containsKey("e3"));
    out.send(event("e4")).get(30, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(60)).until(() -> pending.containsKey("e4"));
    assertThat(committed(group, partition))
        .as("e0 is still open: nothing may be committed")
        .isNull();

    pending.get("e0").ack(); // releases e0..e2; e3 and e4 stay open
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> Long.valueOf(3).equals(committed(group, partition)));
    pending.get("e4").ack();
    pending.get("e3").ack();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> Long.valueOf(5).equals(committed(group, partition)));
  }

  private static OutboundEvent event(String id) {
    return OutboundEvent.of(
            CloudEventBuilder.v1().withId(id).withSource(URI.create("/o")).withType("t").build())
        .withPartitionKey("same-key");
  }

  @Test
  void channelsInTheSameGroupSharePartitionsAndEachRecordGoesToOne() throws Exception {
    String topic = topic("shared");
    String group = "shared-" + UUID.randomUUID();
    InboundSettings settings =
        new InboundSettings(null, null, Map.of(StreamChannelAdapter.GROUP_SETTING, group));
    Map<String, List<String>> byReceiver = new ConcurrentHashMap<>();
    for (String name : List.of("a", "b")) {
      List<String> ids = new CopyOnWriteArrayList<>();
      byReceiver.put(name, ids);
      InboundChannel in =
          adapter.openInbound(
              ChannelUri.parse("kafka:" + topic),
              settings,
              (event, ack) -> {
                ids.add(event.getId());
                ack.ack();
              });
      track(in);
    }
    // Wait for a stable group where both members own partitions, so no rebalance happens mid-test.
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString()))) {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                ConsumerGroupDescription d =
                    admin.describeConsumerGroups(List.of(group)).all().get().get(group);
                return d.members().size() == 2
                    && d.members().stream()
                        .allMatch(m -> !m.assignment().topicPartitions().isEmpty())
                    && d.members().stream()
                            .map(MemberDescription::assignment)
                            .mapToInt(a -> a.topicPartitions().size())
                            .sum()
                        == 3;
              });
    }
    OutboundChannel out = track(adapter.openOutbound(ChannelUri.parse("kafka:" + topic)));
    List<String> sent = new ArrayList<>();
    List<CompletableFuture<Void>> sends = new ArrayList<>();
    for (int i = 0; i < 90; i++) {
      CloudEvent e =
          CloudEventBuilder.v1()
              .withId("id-" + i)
              .withSource(URI.create("/shared"))
              .withType("t")
              .build();
      sent.add(e.getId());
      sends.add(out.send(OutboundEvent.of(e).withPartitionKey("key-" + i)));
    }
    CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> byReceiver.get("a").size() + byReceiver.get("b").size() >= sent.size());
    List<String> all = new ArrayList<>(byReceiver.get("a"));
    all.addAll(byReceiver.get("b"));
    assertThat(all).containsExactlyInAnyOrderElementsOf(sent); // each exactly once
    assertThat(byReceiver.get("a")).isNotEmpty();
    assertThat(byReceiver.get("b")).isNotEmpty();
    assertThat(Set.copyOf(byReceiver.get("a"))).doesNotContainAnyElementsOf(byReceiver.get("b"));
  }

  private TopicPartition partitionOf(String topic) {
    Map<String, Object> props = KafkaTestUtils.consumerProps(broker, "probe-" + topic, false);
    props.put("auto.offset.reset", "earliest");
    try (Consumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      ConsumerRecord<byte[], byte[]> first =
          KafkaTestUtils.getRecords(consumer, Duration.ofSeconds(30), 3).iterator().next();
      return new TopicPartition(topic, first.partition());
    }
  }

  private Long committed(String group, TopicPartition partition) throws Exception {
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString()))) {
      OffsetAndMetadata offset =
          admin
              .listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get()
              .get(partition);
      return offset == null ? null : offset.offset();
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
