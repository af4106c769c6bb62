package io.activityservice.app.measure;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A quick channel-to-channel measurement (the benchmark suite is perf-tests): events/s of a burst and
 * latency percentiles at a fixed rate, through the service and directly on the transport, JMS (embedded
 * persistent broker over TCP) and SQS (LocalStack). Reports figures; asserts only that nothing was lost.
 * Run: {@code ./mvnw -pl activity-service test -Dtest=ChannelToChannelMeasurement -Dmeasure=true}
 */
@EnabledIfSystemProperty(named = "measure", matches = "true")
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
    "activity.channels.jms.embedded-broker.persistent=true",
    "activity.channels.sqs.embedded.enabled=false",
    "activity.channels.sqs.max-batch-bytes=262144",
    "activity.channels.sqs.pollers=4",
    "logging.level.root=WARN"})
class ChannelToChannelMeasurement {

  @DynamicPropertySource
  static void sqs(DynamicPropertyRegistry registry) {
    URI endpoint = LocalStackSqs.endpoint();
    registry.add("activity.channels.sqs.endpoint", endpoint::toString);
    registry.add("activity.channels.sqs.access-key", () -> "test");
    registry.add("activity.channels.sqs.secret-key", () -> "test");
  }

  @LocalServerPort
  int port;
  @Autowired
  ChannelRegistry channels;

  @ParameterizedTest(name = "{0} via service={1}")
  @CsvSource({"jms, false", "jms, true", "sqs, false", "sqs, true"})
  void measure(String transport, boolean viaService) throws Exception {
    String run = UUID.randomUUID().toString().substring(0, 6);
    String type = "com.example.measure." + run;
    ChannelUri in = ChannelUri.parse(transport.equals("jms") ? "jms:queue:m.in." + run : "sqs:m-in-" + run);
    ChannelUri out = viaService
        ? ChannelUri.parse(transport.equals("jms") ? "jms:queue:m.out." + run : "sqs:m-out-" + run) : in;
    if (viaService) {
      Api api = new Api(port);
      assertThat(api.postJson("/api/v1/channels", "{\"uri\": \"" + in + "\"}").status()).isEqualTo(201);
      assertThat(api.postJson("/api/v1/subscriptions", """
          {"name": "m", "pattern": {"type": ["%s"]}, "target": "%s"}""".formatted(type, out)).status()).isEqualTo(201);
    }
    int burst = transport.equals("jms") ? 5000 : 2000;
    int rate = transport.equals("jms") ? 500 : 100;
    int paced = rate * 10;
    Map<String, Long> sentAt = new ConcurrentHashMap<>();
    Histogram latency = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
    CountDownLatch[] done = {new CountDownLatch(burst)};
    long[] lastReceive = {0};
    InboundChannel receiver = channels.adapter(out).openInbound(out,
        new InboundSettings(null, null, Map.of("subscriptionName", "m" + run)), (event, ack) -> {
          long now = System.nanoTime();
          Long sent = sentAt.remove(event.getId());
          if (sent != null) {
            synchronized (latency) {
              latency.recordValue(Math.max(0, TimeUnit.NANOSECONDS.toMicros(now - sent)));
            }
            lastReceive[0] = now;
            done[0].countDown();
          }
          ack.ack();
        });
    try (OutboundChannel producer = channels.adapter(in).openOutbound(in)) {
      warmUp(producer, type, 200, sentAt);
      // Burst: first send to last receive.
      latency.reset();
      long start = System.nanoTime();
      sendBurst(producer, type, burst, sentAt);
      assertThat(done[0].await(180, TimeUnit.SECONDS)).as("all burst events received").isTrue();
      double seconds = (lastReceive[0] - start) / 1e9;
      report(transport, viaService, "burst " + burst, burst / seconds, seconds, latency);
      // Fixed rate: per-event latency measured from the intended send time (no coordinated omission).
      latency.reset();
      done[0] = new CountDownLatch(paced);
      sendAtRate(producer, type, paced, rate, sentAt);
      assertThat(done[0].await(180, TimeUnit.SECONDS)).as("all paced events received").isTrue();
      report(transport, viaService, rate + " ev/s", rate, paced / (double) rate, latency);
    } finally {
      receiver.close();
    }
  }

  private static void warmUp(OutboundChannel producer, String type, int n, Map<String, Long> sentAt) throws Exception {
    List<CompletableFuture<Void>> sends = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      sends.add(producer.send(event("warm-" + UUID.randomUUID(), type)));
    }
    CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    Thread.sleep(3000);
  }

  private static void sendBurst(OutboundChannel producer, String type, int n, Map<String, Long> sentAt) {
    for (int i = 0; i < n; i++) {
      CloudEvent e = event("b-" + i + "-" + UUID.randomUUID(), type);
      sentAt.put(e.getId(), System.nanoTime());
      producer.send(e);
    }
  }

  private static void sendAtRate(OutboundChannel producer, String type, int n, int rate, Map<String, Long> sentAt) {
    long interval = TimeUnit.SECONDS.toNanos(1) / rate;
    long start = System.nanoTime();
    for (int i = 0; i < n; i++) {
      long intended = start + i * interval;
      long wait = intended - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
      CloudEvent e = event("p-" + i + "-" + UUID.randomUUID(), type);
      sentAt.put(e.getId(), intended);
      producer.send(e);
    }
  }

  private static CloudEvent event(String id, String type) {
    return CloudEventBuilder.v1().withId(id).withSource(URI.create("/measure")).withType(type)
        .withDataContentType("application/json")
        .withData(("{\"payload\":\"" + "x".repeat(900) + "\"}").getBytes(StandardCharsets.UTF_8)).build();
  }

  private static void report(String transport, boolean via, String mode, double eventsPerSecond, double seconds,
                             Histogram h) {
    System.out.printf("MEASURE %-3s %-14s %-10s %8.0f ev/s  %6.2f s  p50 %7.2f ms  p99 %7.2f ms  max %7.2f ms%n",
        transport, via ? "via service" : "direct", mode, eventsPerSecond, seconds,
        h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0, h.getMaxValue() / 1000.0);
  }
}
