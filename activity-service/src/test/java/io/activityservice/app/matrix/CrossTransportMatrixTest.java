package io.activityservice.app.matrix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.app.support.Api;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.sqs.LocalStackSqs;
import io.activityservice.events.channel.ChannelRegistry;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Every producer channel to every consumer channel through the service, 1,000 events per leg, on
 * real servers: ActiveMQ over TCP (the service's embedded broker), LocalStack SQS, an embedded
 * Kafka broker. Each leg adds its own inbound channel through the REST API, subscribes a fresh
 * target, sends with the transport's adapter and asserts that every event arrives exactly once with
 * the same id and data.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "spring.cloud.stream.kafka.binder.brokers=${spring.embedded.kafka.brokers}",
      "spring.cloud.stream.kafka.binder.min-partition-count=2",
      "activity.channels.sqs.embedded.enabled=false",
      "activity.channels.sqs.max-batch-bytes=262144"
    })
@EmbeddedKafka(partitions = 2)
class CrossTransportMatrixTest {

  static final int EVENTS = 1000;

  @DynamicPropertySource
  static void sqs(DynamicPropertyRegistry registry) {
    URI endpoint = LocalStackSqs.endpoint();
    registry.add("activity.channels.sqs.endpoint", endpoint::toString);
    registry.add("activity.channels.sqs.region", () -> "us-east-1");
    registry.add("activity.channels.sqs.access-key", () -> "test");
    registry.add("activity.channels.sqs.secret-key", () -> "test");
    registry.add("activity.channels.sqs.wait-time", () -> "2s");
  }

  @LocalServerPort int port;
  @Autowired ChannelRegistry channels;

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "jms:queue, jms:queue",
    "jms:topic, sqs",
    "sqs, sqs",
    "sqs, jms:topic",
    "kafka, jms:queue",
    "jms:queue, kafka",
    "kafka, sqs",
    "sqs, kafka",
    "rest, jms:queue",
    "rest, sqs",
    "rest, kafka"
  })
  void everyEventArrivesOnceWithSameIdAndData(String from, String to) throws Exception {
    String leg = UUID.randomUUID().toString().substring(0, 8);
    String type = "com.example.matrix." + leg;
    ChannelUri target = ChannelUri.parse(uri(to, "out-" + leg));
    Api api = new Api(port);

    Map<String, String> received = new ConcurrentHashMap<>();
    AtomicInteger duplicates = new AtomicInteger();
    InboundChannel receiver =
        channels
            .adapter(target)
            .openInbound(
                target,
                new InboundSettings(
                    null,
                    null,
                    Map.of("subscriptionName", "matrix-" + leg, "group", "matrix-" + leg)),
                (event, ack) -> {
                  String data = new String(event.getData().toBytes(), StandardCharsets.UTF_8);
                  if (received.putIfAbsent(event.getId(), data) != null) {
                    duplicates.incrementAndGet();
                  }
                  ack.ack();
                });
    try {
      assertThat(
              api.postJson(
                      "/api/v1/subscriptions",
                      """
          {"name": "matrix %s", "pattern": {"type": ["%s"]}, "target": "%s"}"""
                          .formatted(leg, type, target))
                  .status())
          .isEqualTo(201);

      List<CloudEvent> events = new ArrayList<>();
      for (int i = 0; i < EVENTS; i++) {
        events.add(
            CloudEventBuilder.v1()
                .withId(leg + "-" + i)
                .withSource(URI.create("/matrix/" + from))
                .withType(type)
                .withDataContentType("application/json")
                .withData(
                    ("{\"n\":" + i + ",\"leg\":\"" + leg + "\"}").getBytes(StandardCharsets.UTF_8))
                .build());
      }
      if (from.equals("rest")) {
        publishOverRest(api, events);
      } else {
        publishOnChannel(api, ChannelUri.parse(uri(from, "in-" + leg)), events);
      }

      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> received.size() >= EVENTS);
      assertThat(received).hasSize(EVENTS);
      for (CloudEvent e : events) {
        assertThat(received.get(e.getId()))
            .as(e.getId())
            .isEqualToIgnoringWhitespace(new String(e.getData().toBytes(), StandardCharsets.UTF_8));
      }
      assertThat(duplicates.get()).as("duplicates").isZero();
    } finally {
      receiver.close();
    }
  }

  private void publishOnChannel(Api api, ChannelUri in, List<CloudEvent> events) throws Exception {
    assertThat(api.postJson("/api/v1/channels", "{\"uri\": \"" + in + "\"}").status())
        .isEqualTo(201);
    try (OutboundChannel out = channels.adapter(in).openOutbound(in)) {
      List<CompletableFuture<Void>> sends = new ArrayList<>();
      for (CloudEvent e : events) {
        sends.add(out.send(e));
      }
      CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
    }
  }

  private static void publishOverRest(Api api, List<CloudEvent> events) {
    for (int from = 0; from < events.size(); from += 100) {
      StringBuilder batch = new StringBuilder("[");
      for (int i = from; i < Math.min(events.size(), from + 100); i++) {
        CloudEvent e = events.get(i);
        batch
            .append(i == from ? "" : ",")
            .append(
                """
            {"specversion":"1.0","id":"%s","source":"%s","type":"%s","datacontenttype":"application/json","data":%s}"""
                    .formatted(
                        e.getId(),
                        e.getSource(),
                        e.getType(),
                        new String(e.getData().toBytes(), StandardCharsets.UTF_8)));
      }
      assertThat(
              api.post(
                      "/api/v1/events",
                      "application/cloudevents-batch+json",
                      batch.append("]").toString())
                  .status())
          .isEqualTo(202);
    }
  }

  private static String uri(String kind, String name) {
    return switch (kind) {
      case "jms:queue" -> "jms:queue:matrix." + name;
      case "jms:topic" -> "jms:topic:matrix." + name;
      case "sqs" -> "sqs:matrix-" + name;
      case "kafka" -> "kafka:matrix." + name;
      default -> throw new IllegalArgumentException(kind);
    };
  }
}
