package io.activityservice.app.stream;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.app.console.ConsoleProperties;
import io.activityservice.channel.support.DaemonThreads;
import io.activityservice.events.json.Json;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.problem.OverloadedException;
import io.activityservice.events.subscription.PatternLimits;
import io.activityservice.events.subscription.PatternTester;
import io.activityservice.events.subscription.SubscriptionIndex;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Live streams of routed events for {@code GET /api/v1/events/stream}, fed by a router tap.
 *
 * <p>The tap never blocks the route: with no stream open it returns at once; otherwise it matches
 * the event once against every stream's pattern and filter (one {@link SubscriptionIndex}, the
 * routing code itself) and offers it to each matching stream's bounded buffer. A client that falls
 * behind loses events: they are dropped and counted, and the stream tells the client how many. Each
 * stream is written by its own thread, so a slow client only slows itself. Streams are bounded in
 * number ({@code max-streams}; one more is refused with 503), and a stream that sent no event for
 * {@code idle-timeout} ends.
 */
public final class EventStreamHub implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(EventStreamHub.class);

  /** Where a stream is written (an SSE response). Calls may block while the client is slow. */
  public interface Sink {
    /** Sends one named event with its data (one line of JSON). */
    void send(String name, String data) throws IOException;

    /** Sends a comment line, to notice a client that went away. */
    void comment(String text) throws IOException;

    /** Ends the response. */
    void complete();
  }

  private final ConsoleProperties.Stream settings;
  private final PatternLimits limits;
  private final String replicaId;
  private final SubscriptionIndex index = new SubscriptionIndex();
  private final Map<String, Stream> streams = new ConcurrentHashMap<>();
  private final Semaphore slots;
  private final ExecutorService writers;
  private final AtomicLong droppedTotal = new AtomicLong();
  private volatile boolean closed;

  public EventStreamHub(ConsoleProperties.Stream settings, String replicaId) {
    this(settings, replicaId, PatternLimits.DEFAULT);
  }

  /**
   * @param limits bounds on a stream's pattern and filter, as on a subscription's (a stream's
   *     pattern is in the tap)
   */
  public EventStreamHub(ConsoleProperties.Stream settings, String replicaId, PatternLimits limits) {
    this.limits = limits;
    this.settings = settings;
    this.replicaId = replicaId;
    this.slots = new Semaphore(settings.maxStreams());
    // One thread per open stream, never more than max-streams (admission is bounded by the
    // semaphore first).
    this.writers =
        new ThreadPoolExecutor(
            0,
            settings.maxStreams(),
            30,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            DaemonThreads.factory("event-stream"));
  }

  /** The router tap: must not block. */
  public void onEvent(RoutableEvent event) {
    if (streams.isEmpty()) {
      return;
    }
    List<SubscriptionIndex.Entry> matched = index.match(event);
    for (SubscriptionIndex.Entry m : matched) {
      Stream s = streams.get(m.subscription().id());
      if (s != null) {
        s.offer(event);
      }
    }
  }

  /**
   * Opens a stream and starts writing it to {@code sink}.
   *
   * @param visible the event types the caller may see ({@link StreamAccess})
   * @return the stream's id
   * @throws io.activityservice.events.problem.InvalidInputException naming {@code pattern} or
   *     {@code filter}
   * @throws OverloadedException when {@code max-streams} are open already
   */
  public String open(JsonNode pattern, String filter, Predicate<String> visible, Sink sink) {
    String id = UUID.randomUUID().toString();
    SubscriptionIndex.Entry entry = PatternTester.entry(id, pattern, filter, limits);
    if (closed || !slots.tryAcquire()) {
      throw new OverloadedException(
          "at most "
              + settings.maxStreams()
              + " event streams may be open at once on this"
              + " replica (activity.console.stream.max-streams); retry later");
    }
    Stream stream = new Stream(id, visible, sink);
    try {
      streams.put(id, stream);
      index.add(entry);
      writers.execute(stream::run);
    } catch (RuntimeException e) {
      release(stream);
      throw e;
    }
    return id;
  }

  /** The bounds on a stream's pattern and filter. */
  public PatternLimits limits() {
    return limits;
  }

  /** Streams open now. */
  public int openStreams() {
    return streams.size();
  }

  /** Events dropped for slow clients since start, over all streams. */
  public long droppedTotal() {
    return droppedTotal.get();
  }

  @Override
  public void close() {
    closed = true;
    streams.values().forEach(s -> s.stopped = true);
    writers.shutdownNow();
  }

  private void release(Stream stream) {
    if (streams.remove(stream.id, stream)) {
      index.remove(stream.id);
      slots.release();
    }
  }

  /** One client: a bounded buffer, a drop counter, and the loop that writes to the client. */
  private final class Stream {
    private final String id;
    private final Predicate<String> visible;
    private final Sink sink;
    private final BlockingQueue<RoutableEvent> buffer;
    private final AtomicLong dropped = new AtomicLong();
    private volatile boolean stopped;

    Stream(String id, Predicate<String> visible, Sink sink) {
      this.id = id;
      this.visible = visible;
      this.sink = sink;
      this.buffer = new ArrayBlockingQueue<>(settings.bufferSize());
    }

    /** On the router's thread: never blocks. */
    void offer(RoutableEvent event) {
      if (!visible.test(event.event().getType())) {
        return;
      }
      if (!buffer.offer(event)) {
        dropped.incrementAndGet();
        droppedTotal.incrementAndGet();
      }
    }

    void run() {
      long idleNanos = settings.idleTimeout().toNanos();
      long heartbeatNanos = settings.heartbeat().toNanos();
      long reported = 0;
      long sent = 0;
      String why = "ended";
      try {
        sink.send(
            "open",
            json(
                Map.of(
                    "stream",
                    id,
                    "bufferSize",
                    settings.bufferSize(),
                    "idleTimeout",
                    settings.idleTimeout().toString(),
                    "replica",
                    replicaId)));
        long lastEvent = System.nanoTime();
        while (!stopped) {
          long wait =
              Math.min(heartbeatNanos, Math.max(1, idleNanos - (System.nanoTime() - lastEvent)));
          RoutableEvent event = buffer.poll(wait, TimeUnit.NANOSECONDS);
          long d = dropped.get();
          if (d != reported) {
            sink.send("dropped", json(Map.of("dropped", d)));
            reported = d;
          }
          if (event != null) {
            sink.send("cloudevent", Json.write(event.json()));
            sent++;
            lastEvent = System.nanoTime();
          } else if (System.nanoTime() - lastEvent >= idleNanos) {
            why = "idle";
            sink.send(
                "closed",
                json(
                    Map.of(
                        "reason",
                        "idle",
                        "idleTimeout",
                        settings.idleTimeout().toString(),
                        "sent",
                        sent,
                        "dropped",
                        reported)));
            break;
          } else {
            sink.comment("keepalive");
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        why = "shutdown";
      } catch (IOException | RuntimeException e) {
        why = "client gone (" + e.getClass().getSimpleName() + ")";
      } finally {
        release(this);
        try {
          sink.complete();
        } catch (RuntimeException e) {
          log.debug("completing event stream {} failed", id, e);
        }
        log.debug("event stream {} {}: {} sent, {} dropped", id, why, sent, dropped.get());
      }
    }
  }

  private static String json(Map<String, ?> fields) {
    return Json.write(Json.tree(new LinkedHashMap<>(fields)));
  }
}
