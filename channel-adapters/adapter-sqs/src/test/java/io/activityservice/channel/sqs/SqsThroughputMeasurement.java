package io.activityservice.channel.sqs;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A throwaway measurement, not a timed assertion: 1000 CloudEvents of ~1 KiB sent through the
 * outbound channel to LocalStack and received through the inbound channel. Run with
 * {@code -Dtest=SqsThroughputMeasurement -Dsqs.measure=true}; results go to the test output.
 */
@EnabledIfSystemProperty(named = "sqs.measure", matches = "true")
class SqsThroughputMeasurement {

  @Test
  void thousandEventsThroughLocalStack() throws Exception {
    SqsChannelProperties base = LocalStackSqs.properties();
    for (int pollers : new int[] {2, 2, 2, 4, 4}) {
      SqsChannelProperties p = base.withReceive(pollers, Duration.ofSeconds(20), Duration.ofSeconds(30), 200);
      try (SqsChannelAdapter adapter = SqsChannelAdapter.connect(p)) {
        run(adapter, pollers);
        sendOnly(adapter);
      }
    }
  }

  /** Sends alone (no receiver competing for LocalStack's CPU). */
  private static void sendOnly(SqsChannelAdapter adapter) throws Exception {
    ChannelUri uri = ChannelUri.parse("sqs:measure-" + UUID.randomUUID());
    adapter.queueUrl(uri).join();
    String pad = "x".repeat(900);
    try (OutboundChannel out = adapter.openOutbound(uri)) {
      List<CompletableFuture<Void>> sends = new ArrayList<>();
      long start = System.nanoTime();
      for (int i = 0; i < 1000; i++) {
        sends.add(out.send(CloudEventBuilder.v1().withId(UUID.randomUUID().toString())
            .withSource(URI.create("/measure")).withType("com.example.measure")
            .withData("application/json", ("{\"i\":" + i + ",\"pad\":\"" + pad + "\"}").getBytes(StandardCharsets.UTF_8))
            .build()));
      }
      CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
      System.out.printf("MEASURE send only: 1000 events acknowledged after %.3f s%n", (System.nanoTime() - start) / 1e9);
    }
  }

  private static void run(SqsChannelAdapter adapter, int pollers) throws Exception {
    int n = 1000;
    ChannelUri uri = ChannelUri.parse("sqs:measure-" + UUID.randomUUID());
    adapter.queueUrl(uri).join();
    AtomicInteger received = new AtomicInteger();
    AtomicLong lastReceive = new AtomicLong();
    CompletableFuture<Void> all = new CompletableFuture<>();
    String pad = "x".repeat(900);
    try (InboundChannel in = adapter.openInbound(uri, InboundSettings.strict(), (e, ack) -> {
      ack.ack();
      if (received.incrementAndGet() == n) {
        lastReceive.set(System.nanoTime());
        all.complete(null);
      }
    }); OutboundChannel out = adapter.openOutbound(uri)) {
      List<CompletableFuture<Void>> sends = new ArrayList<>(n);
      long start = System.nanoTime();
      for (int i = 0; i < n; i++) {
        CloudEvent e = CloudEventBuilder.v1().withId(UUID.randomUUID().toString())
            .withSource(URI.create("/measure")).withType("com.example.measure")
            .withData("application/json", ("{\"i\":" + i + ",\"pad\":\"" + pad + "\"}").getBytes(StandardCharsets.UTF_8))
            .build();
        sends.add(out.send(e));
      }
      CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
      long sent = System.nanoTime();
      all.get(60, TimeUnit.SECONDS);
      double sendSeconds = (sent - start) / 1e9;
      double totalSeconds = (lastReceive.get() - start) / 1e9;
      System.out.printf("MEASURE pollers=%d: %d events ~1 KiB: all sends acknowledged after %.3f s; "
          + "first send to last receive %.3f s = %.0f msgs/s%n", pollers, n, sendSeconds, totalSeconds,
          n / totalSeconds);
    }
  }
}
