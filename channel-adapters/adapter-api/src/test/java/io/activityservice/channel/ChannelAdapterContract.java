package io.activityservice.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The shared contract every {@link ChannelAdapter} passes, in the style of Spring Cloud Stream's
 * binder tests: subclasses supply a running adapter and fresh channel URIs on a real transport.
 *
 * <p>Adapters that cannot be listened on (webhooks) override {@link #openReceiver} with a receiver
 * of their own and return {@code false} from {@link #supportsRedelivery()}.
 */
public abstract class ChannelAdapterContract {

  private final List<AutoCloseable> opened = new ArrayList<>();

  /** The adapter under test, connected to a real transport. Created once per test class. */
  protected abstract ChannelAdapter adapter();

  /** A channel URI no other test uses (a fresh queue/topic name). */
  protected abstract ChannelUri freshChannel();

  /** A URI of the adapter's scheme that {@link ChannelAdapter#validate} must reject. */
  protected abstract ChannelUri invalidChannel();

  /** Whether a nacked message comes back (true for brokers). */
  protected boolean supportsRedelivery() {
    return true;
  }

  /** How long the transport may take to deliver a burst; generous for real brokers. */
  protected Duration deliveryTimeout() {
    return Duration.ofSeconds(60);
  }

  /** Starts receiving on {@code uri}; by default through the adapter's own inbound channel. */
  protected AutoCloseable openReceiver(ChannelUri uri, InboundHandler handler) {
    return adapter().openInbound(uri, InboundSettings.strict(), handler);
  }

  @AfterEach
  void closeOpened() throws Exception {
    for (AutoCloseable c : opened) {
      c.close();
    }
    opened.clear();
  }

  protected static CloudEvent sampleEvent(int n) {
    return CloudEventBuilder.v1()
        .withId(UUID.randomUUID().toString())
        .withSource(URI.create("/contract/test"))
        .withType("com.example.contract.sample")
        .withSubject("item-" + n)
        .withTime(OffsetDateTime.of(2026, 1, 2, 3, 4, 5, 0, ZoneOffset.UTC))
        .withExtension("sequence", n)
        .withDataContentType("application/json")
        .withData(("{\"n\":" + n + ",\"text\":\"héllo\"}").getBytes(StandardCharsets.UTF_8))
        .build();
  }

  private <T extends AutoCloseable> T track(T closeable) {
    opened.add(closeable);
    return closeable;
  }

  @Test
  void knownSchemesAreLowerCase() {
    assertThat(adapter().schemes()).isNotEmpty()
        .allSatisfy(s -> assertThat(s).isEqualTo(s.toLowerCase(java.util.Locale.ROOT)));
  }

  @Test
  void validateAcceptsFreshChannelAndRejectsInvalidOne() {
    adapter().validate(freshChannel());
    assertThatThrownBy(() -> adapter().validate(invalidChannel()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(invalidChannel().scheme());
  }

  @Test
  void roundTripKeepsAttributesExtensionsAndData() throws Exception {
    ChannelUri uri = freshChannel();
    CompletableFuture<CloudEvent> received = new CompletableFuture<>();
    track(openReceiver(uri, (event, ack) -> {
      received.complete(event);
      ack.ack();
    }));
    OutboundChannel out = track(adapter().openOutbound(uri));
    CloudEvent sent = sampleEvent(7);

    out.send(sent).get(deliveryTimeout().toSeconds(), TimeUnit.SECONDS);
    CloudEvent got = received.get(deliveryTimeout().toSeconds(), TimeUnit.SECONDS);

    assertThat(got.getId()).isEqualTo(sent.getId());
    assertThat(got.getSource()).isEqualTo(sent.getSource());
    assertThat(got.getType()).isEqualTo(sent.getType());
    assertThat(got.getSubject()).isEqualTo("item-7");
    assertThat(got.getTime()).isEqualTo(sent.getTime());
    assertThat(String.valueOf(got.getExtension("sequence"))).isEqualTo("7");
    assertThat(got.getData()).isNotNull();
    assertThat(new String(got.getData().toBytes(), StandardCharsets.UTF_8))
        .isEqualToIgnoringWhitespace("{\"n\":7,\"text\":\"héllo\"}");
  }

  @Test
  void burstOfThousandArrivesOnceEach() {
    ChannelUri uri = freshChannel();
    Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
    track(openReceiver(uri, (event, ack) -> {
      seen.computeIfAbsent(event.getId(), k -> new AtomicInteger()).incrementAndGet();
      ack.ack();
    }));
    OutboundChannel out = track(adapter().openOutbound(uri));
    List<String> ids = new ArrayList<>();
    List<CompletableFuture<Void>> sends = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      CloudEvent e = sampleEvent(i);
      ids.add(e.getId());
      sends.add(out.send(e));
    }
    CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new))
        .orTimeout(deliveryTimeout().toSeconds(), TimeUnit.SECONDS).join();

    await().atMost(deliveryTimeout()).until(() -> seen.size() == ids.size());
    assertThat(seen.keySet()).containsExactlyInAnyOrderElementsOf(ids);
    assertThat(seen.values()).allSatisfy(count -> assertThat(count.get()).isEqualTo(1));
  }

  @Test
  void nackedEventIsRedelivered() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(supportsRedelivery(), "transport has no redelivery");
    ChannelUri uri = freshChannel();
    AtomicInteger attempts = new AtomicInteger();
    CompletableFuture<CloudEvent> secondDelivery = new CompletableFuture<>();
    track(openReceiver(uri, (event, ack) -> {
      if (attempts.incrementAndGet() == 1) {
        ack.nack(new IllegalStateException("first attempt fails on purpose"));
      } else {
        ack.ack();
        secondDelivery.complete(event);
      }
    }));
    OutboundChannel out = track(adapter().openOutbound(uri));
    CloudEvent sent = sampleEvent(1);
    out.send(sent).get(deliveryTimeout().toSeconds(), TimeUnit.SECONDS);

    assertThat(secondDelivery.get(deliveryTimeout().toSeconds(), TimeUnit.SECONDS).getId())
        .isEqualTo(sent.getId());
    assertThat(attempts.get()).isGreaterThanOrEqualTo(2);
  }

  @Test
  void closedReceiverStopsDelivering() throws Exception {
    ChannelUri uri = freshChannel();
    AtomicInteger count = new AtomicInteger();
    AutoCloseable receiver = openReceiver(uri, (event, ack) -> {
      count.incrementAndGet();
      ack.ack();
    });
    OutboundChannel out = track(adapter().openOutbound(uri));
    out.send(sampleEvent(1)).get(deliveryTimeout().toSeconds(), TimeUnit.SECONDS);
    await().atMost(deliveryTimeout()).until(() -> count.get() == 1);
    receiver.close();

    CompletableFuture<Void> late = out.send(sampleEvent(2));
    late.handle((ok, err) -> null).get(deliveryTimeout().toSeconds(), TimeUnit.SECONDS);
    Thread.sleep(500);
    assertThat(count.get()).isEqualTo(1);
  }
}
