package io.activityservice.perf.transport;

import io.activityservice.channel.support.DaemonThreads;
import io.cloudevents.CloudEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Kafka producer and consumer drivers on plain kafka-clients, in the CloudEvents Kafka binary mode
 * the service's {@code kafka:} adapter reads and writes ({@code ce_*} headers, data as the record
 * value).
 */
public final class KafkaTransport implements AutoCloseable {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final String brokers;
  private final KafkaProducer<byte[], byte[]> producer;

  /** Clients for {@code brokers} ({@code host:port,...}). */
  public KafkaTransport(String brokers) {
    this.brokers = brokers;
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "1");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(TIMEOUT.toMillis()));
    p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(256L << 20));
    this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  /** The brokers ({@code host:port,...}). */
  public String brokers() {
    return brokers;
  }

  /** Creates topics with one partition (existing ones are left as they are). */
  public void createTopics(List<String> topics) throws Exception {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brokers))) {
      List<NewTopic> list = topics.stream().map(t -> new NewTopic(t, 1, (short) 1)).toList();
      try {
        admin.createTopics(list).all().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException e) {
        if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
          throw e;
        }
      }
    }
  }

  /** A sender to {@code kafka:<topic>}. */
  public EventSender sender(String topic) {
    return sender(producer, topic);
  }

  /**
   * A sender to {@code kafka:<topic>} on a producer of its own with {@code overrides} (e.g. {@code
   * acks}); with a {@code transactional.id} every record is sent in a transaction of its own,
   * committed before the next (on the sender's own thread, so that the caller never waits).
   */
  public EventSender sender(String topic, Map<String, Object> overrides) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
    p.put(ProducerConfig.LINGER_MS_CONFIG, "1");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(TIMEOUT.toMillis()));
    p.putAll(overrides);
    KafkaProducer<byte[], byte[]> own =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    if (!overrides.containsKey(ProducerConfig.TRANSACTIONAL_ID_CONFIG)) {
      EventSender plain = sender(own, topic);
      return new EventSender() {
        @Override
        public CompletableFuture<Void> send(CloudEvent event) {
          return plain.send(event);
        }

        @Override
        public void close() {
          own.close(Duration.ofSeconds(10));
        }
      };
    }
    try {
      own.initTransactions();
    } catch (RuntimeException e) {
      own.close(Duration.ZERO);
      throw e;
    }
    EventSender plain = sender(own, topic);
    java.util.concurrent.ExecutorService thread =
        java.util.concurrent.Executors.newSingleThreadExecutor(
            DaemonThreads.factory("perf-kafka-tx-" + topic));
    return new EventSender() {
      @Override
      public CompletableFuture<Void> send(CloudEvent event) {
        return CompletableFuture.runAsync(
            () -> {
              own.beginTransaction();
              plain.send(event);
              own.commitTransaction();
            },
            thread);
      }

      @Override
      public void close() {
        thread.shutdown();
        try {
          thread.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        own.close(Duration.ofSeconds(10));
      }
    };
  }

  private static EventSender sender(KafkaProducer<byte[], byte[]> producer, String topic) {
    return new EventSender() {
      @Override
      public CompletableFuture<Void> send(CloudEvent event) {
        List<Header> headers = new ArrayList<>();
        headers.add(header("ce_specversion", event.getSpecVersion().toString()));
        headers.add(header("ce_id", event.getId()));
        headers.add(header("ce_source", event.getSource().toString()));
        headers.add(header("ce_type", event.getType()));
        for (String name : event.getExtensionNames()) {
          headers.add(header("ce_" + name, String.valueOf(event.getExtension(name))));
        }
        headers.add(header("content-type", event.getDataContentType()));
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
          producer.send(
              new ProducerRecord<byte[], byte[]>(
                  topic, null, (byte[]) null, event.getData().toBytes(), headers),
              (metadata, error) -> {
                if (error == null) {
                  done.complete(null);
                } else {
                  done.completeExceptionally(error);
                }
              });
        } catch (RuntimeException e) {
          done.completeExceptionally(e);
        }
        return done;
      }

      @Override
      public void close() {
        producer.flush();
      }
    };
  }

  /**
   * Consumes {@code topic} in its own group from the earliest offset; returns once partitions are
   * assigned.
   */
  public Listener listen(String topic, String group, ReceiveHandler handler) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
    KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    consumer.subscribe(List.of(topic));
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    // Join the group before anything is sent (bounded); records polled meanwhile are handled.
    while (consumer.assignment().isEmpty() && System.nanoTime() < deadline) {
      dispatch(consumer.poll(Duration.ofMillis(100)), handler);
    }
    if (consumer.assignment().isEmpty()) {
      consumer.close();
      throw new IllegalStateException(
          "kafka consumer of " + topic + " got no partition within " + TIMEOUT);
    }
    java.util.concurrent.atomic.AtomicBoolean running =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    Thread thread =
        DaemonThreads.thread(
            "perf-kafka-" + topic,
            () -> {
              try {
                while (running.get()) {
                  dispatch(consumer.poll(Duration.ofMillis(100)), handler);
                }
              } catch (org.apache.kafka.common.errors.WakeupException e) {
                // closing
              } finally {
                consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
              }
            });
    thread.start();
    return () -> {
      running.set(false);
      consumer.wakeup();
      try {
        thread.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    };
  }

  private static void dispatch(
      Iterable<ConsumerRecord<byte[], byte[]>> records, ReceiveHandler handler) {
    long now = System.nanoTime();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      Header id = r.headers().lastHeader("ce_id");
      if (id != null) {
        handler.received(new String(id.value(), StandardCharsets.UTF_8), now);
      }
    }
  }

  private static Header header(String name, String value) {
    return new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(10));
  }
}
