package io.activityservice.events.support;

import io.activityservice.channel.Acknowledgement;
import io.activityservice.channel.ChannelAdapter;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundHandler;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.cloudevents.CloudEvent;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-memory implementation of our own channel SPI for tests: outbound channels record what they
 * accepted and can be told to fail N times, to fail always, or to hold sends until completed by
 * hand; inbound channels let a test push events and see how they were settled.
 */
public final class FakeChannelAdapter implements ChannelAdapter {

  private final Set<String> schemes;
  private final Map<ChannelUri, FakeOutbound> outbound = new ConcurrentHashMap<>();
  private final Map<ChannelUri, FakeInbound> inbound = new ConcurrentHashMap<>();

  public FakeChannelAdapter(String... schemes) {
    this.schemes = Set.of(schemes);
  }

  @Override
  public Set<String> schemes() {
    return schemes;
  }

  /**
   * Addresses containing "invalid" are refused, like a real adapter refusing a malformed address.
   */
  @Override
  public void validate(ChannelUri uri) {
    if (uri.address().contains("invalid")) {
      throw new IllegalArgumentException(
          "address must be a plain name, e.g. " + uri.scheme() + ":orders");
    }
  }

  @Override
  public OutboundChannel openOutbound(ChannelUri uri) {
    return outbound(uri.toString());
  }

  @Override
  public InboundChannel openInbound(
      ChannelUri uri, InboundSettings settings, InboundHandler handler) {
    FakeInbound channel = new FakeInbound(uri, settings, handler);
    inbound.put(uri, channel);
    return channel;
  }

  /** The outbound channel for a URI (created on first use, also by tests before any send). */
  public FakeOutbound outbound(String uri) {
    return outbound.computeIfAbsent(ChannelUri.parse(uri), FakeOutbound::new);
  }

  public FakeInbound inbound(String uri) {
    return inbound.get(ChannelUri.parse(uri));
  }

  @Override
  public void close() {
    inbound.values().forEach(FakeInbound::close);
  }

  /** A recording outbound channel. */
  public static final class FakeOutbound implements OutboundChannel {

    private final ChannelUri uri;
    private final AtomicInteger attempts = new AtomicInteger();
    private final AtomicInteger failuresLeft = new AtomicInteger();
    private volatile boolean failAlways;
    private volatile boolean hold;
    private final List<CloudEvent> accepted = new CopyOnWriteArrayList<>();
    private final List<CloudEvent> sent = new CopyOnWriteArrayList<>();
    private final Queue<Runnable> held = new ConcurrentLinkedQueue<>();
    private volatile java.util.function.Function<
            io.activityservice.channel.OutboundEvent, CompletableFuture<Void>>
        answer;

    FakeOutbound(ChannelUri uri) {
      this.uri = uri;
    }

    public FakeOutbound failTimes(int n) {
      failuresLeft.set(n);
      return this;
    }

    public FakeOutbound failAlways(boolean fail) {
      failAlways = fail;
      return this;
    }

    /**
     * Answers every send with {@code answer} (it sees the partition key and format): the event is
     * recorded as sent, and as accepted once the answer completes normally.
     */
    public FakeOutbound answer(
        java.util.function.Function<
                io.activityservice.channel.OutboundEvent, CompletableFuture<Void>>
            answer) {
      this.answer = answer;
      return this;
    }

    @Override
    public CompletableFuture<Void> send(io.activityservice.channel.OutboundEvent event) {
      java.util.function.Function<io.activityservice.channel.OutboundEvent, CompletableFuture<Void>>
          a = answer;
      if (a == null) {
        return send(event.event());
      }
      attempts.incrementAndGet();
      sent.add(event.event());
      return a.apply(event).thenRun(() -> accepted.add(event.event()));
    }

    /** Sends are recorded but their futures stay pending until {@link #releaseAll()}. */
    public FakeOutbound hold(boolean h) {
      hold = h;
      return this;
    }

    /** Completes every held send (successfully); returns how many. */
    public int releaseAll() {
      int n = 0;
      Runnable r;
      while ((r = held.poll()) != null) {
        r.run();
        n++;
      }
      return n;
    }

    @Override
    public ChannelUri uri() {
      return uri;
    }

    @Override
    public CompletableFuture<Void> send(CloudEvent event) {
      int attempt = attempts.incrementAndGet();
      sent.add(event);
      if (failAlways || failuresLeft.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0) {
        return CompletableFuture.failedFuture(
            new IOException("boom: " + uri + " refused attempt " + attempt));
      }
      if (hold) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        held.add(
            () -> {
              accepted.add(event);
              f.complete(null);
            });
        return f;
      }
      accepted.add(event);
      return CompletableFuture.completedFuture(null);
    }

    /** Events the channel accepted (send future completed normally). */
    public List<CloudEvent> accepted() {
      return accepted;
    }

    /** Every event handed to {@link #send}, accepted or not. */
    public List<CloudEvent> sent() {
      return sent;
    }

    public int attempts() {
      return attempts.get();
    }

    @Override
    public void close() {}
  }

  /** An inbound channel a test pushes events into. */
  public static final class FakeInbound implements InboundChannel {

    /** How one pushed message was settled. */
    public static final class Settlement implements Acknowledgement {
      private final CompletableFuture<Throwable> settled = new CompletableFuture<>();
      private final AtomicInteger calls = new AtomicInteger();

      @Override
      public void ack() {
        calls.incrementAndGet();
        settled.complete(null);
      }

      @Override
      public void nack(Throwable cause) {
        calls.incrementAndGet();
        settled.complete(cause == null ? new IllegalStateException("nack without cause") : cause);
      }

      /** Completes with {@code null} for ack, or the nack cause. */
      public CompletableFuture<Throwable> settled() {
        return settled;
      }

      public int calls() {
        return calls.get();
      }
    }

    private final ChannelUri uri;
    private final InboundSettings settings;
    private final InboundHandler handler;
    private volatile boolean closed;

    FakeInbound(ChannelUri uri, InboundSettings settings, InboundHandler handler) {
      this.uri = uri;
      this.settings = settings;
      this.handler = handler;
    }

    public Settlement push(CloudEvent event) {
      if (closed) {
        throw new IllegalStateException(uri + " is closed");
      }
      Settlement s = new Settlement();
      handler.onEvent(event, s);
      return s;
    }

    public InboundSettings settings() {
      return settings;
    }

    public boolean isClosed() {
      return closed;
    }

    @Override
    public ChannelUri uri() {
      return uri;
    }

    @Override
    public void close() {
      closed = true;
    }
  }
}
