package io.activityservice.events.archive;

import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.support.DaemonThreads;
import io.activityservice.events.log.LogSafe;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.tracing.EventTracing;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs replays, one at a time per replica, on its own thread: claims a running replay from the
 * database, pages through its archive in event-time order and hands each event (marked with {@code
 * replayname}) to the {@link ReplayTarget}, with a bound on events in flight. Progress is recorded
 * after every page, which also renews the claim; a cancelled replay stops at the next page. Events
 * go to detectors and rule sets in event-time order (one thread hands them over); deliveries to
 * subscriptions run concurrently, and, as for live events, no order is promised across a retry.
 */
final class ReplayRunner implements AutoCloseable {

  /** The extension replayed events carry: the replay's name. */
  static final String REPLAY_EXTENSION = "replayname";

  private static final Logger log = LoggerFactory.getLogger(ReplayRunner.class);

  private final ReplayRepository replays;
  private final ArchiveRepository archives;
  private final ArchivedEventStore events;
  private final ReplayTarget target;
  private final Clock clock;
  private final String replicaId;
  private final Duration lease;
  private final Duration poll;
  private final int pageSize;
  private final int maxInFlight;
  private final Object wake = new Object();
  private volatile EventTracing tracing = EventTracing.NONE;
  private final Thread thread;
  private volatile boolean closed;

  ReplayRunner(
      ReplayRepository replays,
      ArchiveRepository archives,
      ArchivedEventStore events,
      ReplayTarget target,
      Clock clock,
      String replicaId,
      Duration lease,
      Duration poll,
      int pageSize,
      int maxInFlight) {
    this.replays = replays;
    this.archives = archives;
    this.events = events;
    this.target = target;
    this.clock = clock;
    this.replicaId = replicaId;
    this.lease = lease;
    this.poll = poll;
    this.pageSize = pageSize;
    this.maxInFlight = maxInFlight;
    this.thread = DaemonThreads.thread("replay-runner", this::loop);
  }

  ReplayRunner start() {
    thread.start();
    return this;
  }

  /** Looks for work now (a replay was just created). */
  void nudge() {
    synchronized (wake) {
      wake.notifyAll();
    }
  }

  private void loop() {
    while (!closed) {
      try {
        long now = clock.millis();
        Optional<Replay> claimed = replays.claim(replicaId, now, now + lease.toMillis());
        if (claimed.isPresent()) {
          run(claimed.get());
          continue;
        }
      } catch (RuntimeException e) {
        log.warn("replay runner: {}", e.toString());
      }
      synchronized (wake) {
        try {
          wake.wait(poll.toMillis());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private void run(Replay replay) {
    Optional<Archive> archive = archives.find(replay.archive());
    if (archive.isEmpty()) {
      replays.finish(
          replay.name(),
          replicaId,
          Replay.State.FAILED,
          "archive '" + replay.archive() + "' was deleted",
          clock.millis());
      return;
    }
    log.info(
        "replay {}: {} of archive {} from {} (resuming at {})",
        LogSafe.text(replay.name()),
        replay.total(),
        LogSafe.text(replay.archive()),
        replay.from(),
        replay.position());
    long replayed = replay.replayed();
    ArchivedEvent.Position position = replay.position();
    Semaphore inFlight = new Semaphore(maxInFlight);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    ArchivedEventStore.Filter range =
        new ArchivedEventStore.Filter(null, null, replay.from(), replay.to());
    try {
      while (!closed) {
        List<ArchivedEvent> page = events.page(archive.get().id(), range, position, pageSize);
        for (ArchivedEvent stored : page) {
          RoutableEvent event = replayed(stored, replay.name());
          acquire(inFlight);
          CompletableFuture<Void> handed = handOver(event, replay.destinations());
          handed.whenComplete(
              (ok, error) -> {
                if (error != null) {
                  failure.compareAndSet(null, error);
                }
                inFlight.release();
              });
          if (failure.get() != null) {
            break;
          }
          position = stored.position();
          replayed++;
        }
        if (failure.get() != null) {
          throw new IllegalStateException(failure.get().getMessage(), failure.get());
        }
        // Every event handed over is durable before the position moves past it.
        acquire(inFlight, maxInFlight);
        inFlight.release(maxInFlight);
        if (failure.get() != null) {
          throw new IllegalStateException(failure.get().getMessage(), failure.get());
        }
        if (!replays.progress(
            replay.name(), replicaId, replayed, position, clock.millis() + lease.toMillis())) {
          log.info(
              "replay {} stopped after {} events: cancelled or taken over",
              LogSafe.text(replay.name()),
              replayed);
          return;
        }
        if (page.size() < pageSize) {
          replays.finish(replay.name(), replicaId, Replay.State.COMPLETED, null, clock.millis());
          log.info("replay {} completed: {} events", LogSafe.text(replay.name()), replayed);
          return;
        }
      }
    } catch (RuntimeException e) {
      log.warn(
          "replay {} failed after {} events: {}",
          LogSafe.text(replay.name()),
          replayed,
          LogSafe.text(e.toString(), 1024));
      replays.finish(
          replay.name(), replicaId, Replay.State.FAILED, cut(e.getMessage()), clock.millis());
    }
  }

  /** Traces replays with {@code tracing}: each replayed event in a span linked to the original. */
  void tracing(EventTracing tracing) {
    this.tracing = tracing == null ? EventTracing.NONE : tracing;
  }

  /** Hands an event over; never throws. The event's span ends once it was taken over. */
  private CompletableFuture<Void> handOver(RoutableEvent event, Replay.Destinations destinations) {
    CompletableFuture<Void> handed;
    try {
      handed = target.replay(event, destinations);
    } catch (RuntimeException e) {
      handed = CompletableFuture.failedFuture(e);
    }
    EventTracing.Hop hop = event.trace();
    if (hop.recording()) {
      handed.whenComplete((ok, error) -> hop.end(error));
    }
    return handed;
  }

  /**
   * The archived event as replayed: with {@code replayname}, and under a span of its own (a new
   * trace linked to the original's), which its deliveries continue. The event keeps the original
   * {@code traceparent}: it still names the trace that started it.
   */
  private RoutableEvent replayed(ArchivedEvent stored, String replay) {
    CloudEvent original = CloudEventJson.decode(stored.json().getBytes(StandardCharsets.UTF_8));
    CloudEvent copy =
        CloudEventBuilder.from(original).withExtension(REPLAY_EXTENSION, replay).build();
    return RoutableEvent.of(copy).trace(tracing.replayed(copy, replay));
  }

  private void acquire(Semaphore s) {
    acquire(s, 1);
  }

  private void acquire(Semaphore s, int permits) {
    try {
      if (!s.tryAcquire(permits, 5, TimeUnit.MINUTES)) {
        throw new IllegalStateException("replayed events were not taken over within 5 minutes");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static String cut(String s) {
    return s == null || s.length() <= 1000 ? s : s.substring(0, 1000);
  }

  @Override
  public void close() {
    closed = true;
    nudge();
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
