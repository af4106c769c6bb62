package io.activityservice.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class OutboundEventTest {

  /** Counts its encodings; slow enough that racing threads overlap. */
  private static final class CountingFormat implements WireFormat<byte[]> {
    final AtomicInteger encodings = new AtomicInteger();

    @Override
    public byte[] encode(CloudEvent event) {
      encodings.incrementAndGet();
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return CloudEventJson.encode(event);
    }
  }

  @Test
  void concurrentSendsOfOneEventEncodeOncePerFormatAndShareTheResult() throws Exception {
    CountingFormat json = new CountingFormat();
    CountingFormat other = new CountingFormat();
    OutboundEvent event = OutboundEvent.of(ChannelAdapterContract.sampleEvent(1));
    OutboundEvent keyed = event.withPartitionKey("meter-7"); // a copy shares the cache
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<byte[]>> results = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        OutboundEvent copy = i % 2 == 0 ? event : keyed;
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  return copy.encoded(json);
                }));
      }
      start.countDown();
      byte[] first = results.get(0).get(10, TimeUnit.SECONDS);
      for (Future<byte[]> r : results) {
        assertThat(r.get(10, TimeUnit.SECONDS)).isSameAs(first);
      }
      assertThat(json.encodings.get()).isEqualTo(1);
      assertThat(keyed.encoded(other)).isNotSameAs(first).isEqualTo(first);
      assertThat(other.encodings.get()).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aFailedEncodingIsNotCached() {
    AtomicInteger calls = new AtomicInteger();
    WireFormat<String> flaky =
        e -> {
          if (calls.incrementAndGet() == 1) {
            throw new IllegalStateException("first attempt fails");
          }
          return e.getId();
        };
    OutboundEvent event = OutboundEvent.of(ChannelAdapterContract.sampleEvent(1));
    assertThatThrownBy(() -> event.encoded(flaky)).hasMessage("first attempt fails");
    assertThat(event.encoded(flaky)).isEqualTo(event.event().getId());
    assertThat(event.encoded(flaky)).isEqualTo(event.event().getId());
    assertThat(calls.get()).isEqualTo(2);
  }

  @Test
  void partitionKeyDefaultsToThePartitioningExtension() {
    CloudEvent plain = ChannelAdapterContract.sampleEvent(1);
    CloudEvent partitioned =
        CloudEventBuilder.v1(plain).withExtension("partitionkey", "meter-1").build();
    assertThat(OutboundEvent.of(plain).partitionKey()).isNull();
    assertThat(OutboundEvent.of(partitioned).partitionKey()).isEqualTo("meter-1");
    assertThat(OutboundEvent.of(partitioned).withPartitionKey("other").partitionKey())
        .isEqualTo("other");
    assertThat(OutboundEvent.of(partitioned).withPartitionKey("").partitionKey()).isNull();
    assertThat(OutboundEvent.of(partitioned).withPartitionKey("x").event()).isSameAs(partitioned);
  }

  @Test
  void channelsOfTheEarlierSpiStillWorkAndOnesImplementingNeitherSendFail() {
    List<CloudEvent> sent = new ArrayList<>();
    OutboundChannel legacy =
        new OutboundChannel() {
          @Override
          public ChannelUri uri() {
            return ChannelUri.parse("test:legacy");
          }

          @Override
          public CompletableFuture<Void> send(CloudEvent event) {
            sent.add(event);
            return CompletableFuture.completedFuture(null);
          }

          @Override
          public void close() {}
        };
    CloudEvent event = ChannelAdapterContract.sampleEvent(1);
    assertThat(legacy.send(OutboundEvent.of(event).withPartitionKey("k"))).isCompleted();
    assertThat(sent).containsExactly(event);

    OutboundChannel neither =
        new OutboundChannel() {
          @Override
          public ChannelUri uri() {
            return ChannelUri.parse("test:neither");
          }

          @Override
          public void close() {}
        };
    assertThat(neither.send(event)).isCompletedExceptionally();
    assertThatThrownBy(() -> neither.send(event).join())
        .hasCauseInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("implements neither");
  }
}
