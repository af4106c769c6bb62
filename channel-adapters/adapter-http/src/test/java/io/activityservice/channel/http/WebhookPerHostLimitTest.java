package io.activityservice.channel.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.activityservice.channel.ChannelAdapterContract;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.OutboundChannel;
import io.cloudevents.CloudEvent;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Per-host concurrency on real HTTP servers: a slow webhook host with every slot taken delays
 * neither another host nor takes more than its slots; its queue is bounded and cancelled waiting
 * sends are never sent.
 */
class WebhookPerHostLimitTest {

  private static final int SLOTS = 4;
  private static final int QUEUE = 10;

  /** A webhook server that counts requests in flight and remembers the highest count. */
  private static final class Receiver {
    final HttpServer server;
    final ExecutorService threads = Executors.newCachedThreadPool();
    final AtomicInteger inFlight = new AtomicInteger();
    final AtomicInteger maxInFlight = new AtomicInteger();
    final AtomicInteger answered = new AtomicInteger();
    final Set<String> ids = ConcurrentHashMap.newKeySet();

    Receiver(CountDownLatch hold) throws Exception {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      server.setExecutor(threads);
      server.createContext(
          "/hook",
          exchange -> {
            int now = inFlight.incrementAndGet();
            maxInFlight.accumulateAndGet(now, Math::max);
            try {
              ids.add(CloudEventJson.decode(exchange.getRequestBody().readAllBytes()).getId());
              hold.await(5, TimeUnit.SECONDS); // the slow host answers after 5 s, or when released
              // Counted before the answer leaves: the client may see it complete before this thread
              // runs on.
              answered.incrementAndGet();
              inFlight.decrementAndGet();
              exchange.sendResponseHeaders(204, -1);
            } catch (InterruptedException e) {
              inFlight.decrementAndGet();
              Thread.currentThread().interrupt();
            } finally {
              exchange.close();
            }
          });
      server.start();
    }

    ChannelUri uri() {
      return ChannelUri.parse("http://127.0.0.1:" + server.getAddress().getPort() + "/hook");
    }

    String hostAndPort() {
      return "127.0.0.1:" + server.getAddress().getPort();
    }

    void stop() {
      server.stop(0);
      threads.shutdownNow();
    }
  }

  private final CountDownLatch releaseSlow = new CountDownLatch(1);
  private Receiver slow;
  private Receiver fast;
  private HttpChannelAdapter adapter;

  @BeforeEach
  void start() throws Exception {
    slow = new Receiver(releaseSlow);
    fast = new Receiver(new CountDownLatch(0));
    adapter =
        new HttpChannelAdapter(
            new HttpChannelProperties(Duration.ofSeconds(2), Duration.ofSeconds(30), SLOTS, QUEUE),
            OutboundPolicy.allowing("127.0.0.0/8"));
  }

  @AfterEach
  void stop() {
    releaseSlow.countDown();
    adapter.close();
    slow.stop();
    fast.stop();
  }

  @Test
  void aSlowHostUsesOnlyItsSlotsAndDoesNotDelayAnotherHost() throws Exception {
    OutboundChannel toSlow = adapter.openOutbound(slow.uri());
    List<CloudEvent> slowEvents = new ArrayList<>();
    List<CompletableFuture<Void>> slowSends = new ArrayList<>();
    for (int i = 0; i < SLOTS + QUEUE; i++) {
      CloudEvent e = ChannelAdapterContract.sampleEvent(i);
      slowEvents.add(e);
      slowSends.add(toSlow.send(e));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> slow.inFlight.get() == SLOTS);
    assertThat(adapter.inFlight(slow.hostAndPort())).isEqualTo(SLOTS);

    // The queue is full: one more send for that host fails at once, naming the settings.
    CompletableFuture<Void> overflow = toSlow.send(ChannelAdapterContract.sampleEvent(99));
    assertThatThrownBy(() -> overflow.get(1, TimeUnit.SECONDS))
        .hasCauseInstanceOf(RejectedExecutionException.class)
        .hasMessageContaining("127.0.0.1:" + slow.server.getAddress().getPort())
        .hasMessageContaining("max-queued-per-host");
    // A waiting send the router gives up on is never sent.
    CloudEvent cancelled = slowEvents.get(SLOTS + 2);
    assertThat(slowSends.get(SLOTS + 2).cancel(true)).isTrue();

    // The other host is served at once although the slow one holds all its slots.
    OutboundChannel toFast = adapter.openOutbound(fast.uri());
    List<CompletableFuture<Void>> fastSends = new ArrayList<>();
    for (int i = 0; i < SLOTS + QUEUE; i++) { // as many as its own limits take at once
      fastSends.add(toFast.send(ChannelAdapterContract.sampleEvent(100 + i)));
    }
    CompletableFuture.allOf(fastSends.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
    assertThat(fast.answered.get()).isEqualTo(SLOTS + QUEUE);
    assertThat(slow.answered.get()).as("the slow host has answered nothing yet").isZero();
    assertThat(slowSends)
        .filteredOn(CompletableFuture::isDone)
        .singleElement()
        .satisfies(done -> assertThat(done).isCancelled()); // only the cancelled one is done
    assertThat(slow.ids).hasSize(SLOTS);

    releaseSlow.countDown();
    for (int i = 0; i < slowSends.size(); i++) {
      if (i == SLOTS + 2) {
        assertThatThrownBy(slowSends.get(i)::join).isInstanceOf(CancellationException.class);
      } else {
        slowSends.get(i).get(30, TimeUnit.SECONDS);
      }
    }
    assertThat(slow.ids).hasSize(SLOTS + QUEUE - 1).doesNotContain(cancelled.getId());
    assertThat(slow.maxInFlight.get())
        .as("requests in flight to the slow host, at most")
        .isEqualTo(SLOTS);
    await().atMost(Duration.ofSeconds(5)).until(() -> adapter.inFlight(slow.hostAndPort()) == 0);
  }

  @Test
  void aLongQueueIsWorkedOffWithinTheLimit() throws Exception {
    releaseSlow.countDown(); // answers at once
    OutboundChannel out = adapter.openOutbound(slow.uri());
    List<CompletableFuture<Void>> sends = new ArrayList<>();
    for (int round = 0; round < 5; round++) {
      for (int i = 0; i < SLOTS + QUEUE; i++) {
        sends.add(out.send(ChannelAdapterContract.sampleEvent(i)));
      }
      CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    }
    assertThat(slow.answered.get()).isEqualTo(5 * (SLOTS + QUEUE));
    assertThat(slow.maxInFlight.get()).isLessThanOrEqualTo(SLOTS);
  }

  @Test
  void propertiesRejectNonsense() {
    assertThatThrownBy(() -> new HttpChannelProperties(null, null, 0, null))
        .hasMessageContaining("activity.channels.http.max-concurrency-per-host")
        .hasMessageContaining("e.g. 64");
    assertThatThrownBy(() -> new HttpChannelProperties(null, null, null, -1))
        .hasMessageContaining("max-queued-per-host");
    assertThat(HttpChannelProperties.defaults().maxConcurrencyPerHost()).isEqualTo(64);
    assertThat(HttpChannelProperties.defaults().maxQueuedPerHost()).isEqualTo(10_000);
  }
}
