package io.activityservice.perf.suite;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.sqs.SqsChannelAdapter;
import io.activityservice.perf.service.ServiceApi;
import io.activityservice.perf.transport.AdapterTransport;
import io.activityservice.perf.transport.EventSender;
import io.activityservice.perf.transport.KafkaTransport;
import io.activityservice.perf.transport.Listener;
import io.activityservice.perf.transport.ReceiveHandler;
import io.activityservice.perf.transport.RestBatchSender;
import io.activityservice.perf.transport.RestSender;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The client side of every transport: turns channel names into the URIs the service understands and
 * opens producer and consumer drivers on them. Remembers the SQS queues it used and deletes them on
 * {@link #close()}.
 */
public final class Legs implements AutoCloseable {

  private final AdapterTransport jms;
  private final AdapterTransport sqs;
  private final KafkaTransport kafka;
  private final ServiceApi api;
  private final String jmsBrokerUrl;
  private final List<String> queues = new ArrayList<>();

  /**
   * @param jms JMS client (never null)
   * @param sqs SQS client, or null when SQS is not available
   * @param kafka Kafka client, or null when Kafka is not available
   * @param api the service's API (REST producers post through it)
   * @param jmsBrokerUrl the ActiveMQ broker's URL (for the peer's virtual-topic queues), or null
   */
  public Legs(
      AdapterTransport jms,
      AdapterTransport sqs,
      KafkaTransport kafka,
      ServiceApi api,
      String jmsBrokerUrl) {
    this.jms = jms;
    this.sqs = sqs;
    this.kafka = kafka;
    this.api = api;
    this.jmsBrokerUrl = jmsBrokerUrl;
  }

  /** The ActiveMQ broker's URL, or null. */
  public String jmsBrokerUrl() {
    return jmsBrokerUrl;
  }

  /** Kafka brokers ({@code host:port,...}), or null without Kafka. */
  public String kafkaBrokers() {
    return kafka == null ? null : kafka.brokers();
  }

  /**
   * Creates the queue {@code Consumer.<subscription>.<topic>} that ActiveMQ fills from the virtual
   * topic {@code topic} from then on, as a consumer's subscription would: events sent before a
   * peer's consumer is connected are then kept for it instead of being dropped.
   */
  public void createVirtualTopicQueue(String topic, String subscription) throws Exception {
    org.apache.activemq.ActiveMQConnectionFactory f =
        new org.apache.activemq.ActiveMQConnectionFactory(jmsBrokerUrl);
    try (jakarta.jms.Connection c = f.createConnection()) {
      jakarta.jms.Session s = c.createSession(false, jakarta.jms.Session.AUTO_ACKNOWLEDGE);
      s.createConsumer(s.createQueue("Consumer." + subscription + "." + topic)).close();
    }
  }

  /** Whether a transport can be used in this run. */
  public boolean available(String transport) {
    return switch (transport) {
      case "jms", "rest", "rest-batch" -> true;
      case "sqs" -> sqs != null;
      case "kafka" -> kafka != null;
      default -> false;
    };
  }

  /**
   * The channel URI of {@code name} on {@code transport} ({@code rest} has none: returns "rest").
   */
  public String uri(String transport, String name) throws Exception {
    return switch (transport) {
      case "jms" -> "jms:topic:" + name.replace('-', '.');
      case "sqs" -> {
        queues.add("sqs:" + name);
        yield "sqs:" + name;
      }
      case "kafka" -> {
        kafka.createTopics(List.of(name));
        yield "kafka:" + name;
      }
      case "rest", "rest-batch" -> transport;
      default -> throw new IllegalArgumentException("unknown transport " + transport);
    };
  }

  /** A producer driver for {@code uri} (or REST for {@code "rest"}). */
  public EventSender sender(String uri) {
    if (uri.equals("rest")) {
      return new RestSender(api, 32);
    }
    if (uri.equals("rest-batch")) {
      return new RestBatchSender(api, io.activityservice.perf.suite.Scenario.REST_BATCH, 8);
    }
    if (uri.startsWith("kafka:")) {
      return kafka.sender(uri.substring("kafka:".length()));
    }
    return (uri.startsWith("jms:") ? jms : sqs).sender(uri);
  }

  /**
   * A Kafka sender to {@code topic} on a producer of its own with {@code overrides} (acks, a
   * transactional id): see {@link KafkaTransport#sender(String, java.util.Map)}.
   */
  public EventSender kafkaSender(String topic, java.util.Map<String, Object> overrides) {
    return kafka.sender(topic, overrides);
  }

  /** A consumer driver on {@code uri}; {@code group} names the Kafka consumer group. */
  public Listener listen(String uri, String group, ReceiveHandler handler) {
    if (uri.startsWith("kafka:")) {
      return kafka.listen(uri.substring("kafka:".length()), group, handler);
    }
    return (uri.startsWith("jms:") ? jms : sqs).listen(uri, handler);
  }

  /** Deletes the SQS queues used (best effort, bounded). */
  @Override
  public void close() {
    if (sqs == null) {
      return;
    }
    SqsChannelAdapter adapter = (SqsChannelAdapter) sqs.adapter();
    for (String q : queues) {
      try {
        String url = adapter.queueUrl(ChannelUri.parse(q)).get(10, TimeUnit.SECONDS);
        adapter.client().deleteQueue(b -> b.queueUrl(url)).get(10, TimeUnit.SECONDS);
      } catch (Exception e) {
        // best effort: LocalStack is shared, but a leftover queue does no harm
      }
    }
    queues.clear();
  }
}
