package io.activityservice.events.archive;

import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.OutboundEvent;
import io.activityservice.channel.support.DaemonThreads;
import io.activityservice.events.internal.QueueBatches;
import io.activityservice.events.log.LogSafe;
import io.activityservice.events.model.RoutableEvent;
import io.cloudevents.CloudEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Archives routed events off the hot path: the router hands each event over ({@link #archive}: one
 * pattern match and a queue offer), a writer thread inserts what queued up in batches, one
 * transaction per batch. When the bounded queue is full the event is refused (the route fails:
 * inbound redelivery or 503), so the archive never silently misses events under load; what is
 * queued but not yet written when the process dies is lost (at most one batch, written every 50
 * ms). Replayed events ({@code replayname}) are never archived again.
 */
final class ArchiveWriter implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ArchiveWriter.class);
  private static final int BATCH = 1000;

  /** How long the writer waits for a fuller batch; bounds what a crash can lose from archives. */
  private static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  /**
   * How long an idle writer waits before looking at its closed flag again (close() wakes it
   * anyway).
   */
  private static final long IDLE_WAIT_MILLIS = 60_000;

  /** Queued by close() to wake the writer; archives nothing. */
  private static final Pending WAKE = new Pending(-1, null, 0, 0);

  private final ArchiveIndex index;
  private final ArchivedEventStore store;
  private final ArchivePartitions partitions;
  private final ArchiveRepository repository;
  private final Clock clock;
  private final BlockingQueue<Pending> queue;
  private final Counter archived;
  private final Counter failed;
  private final Thread thread;
  private volatile boolean closed;

  ArchiveWriter(
      ArchiveIndex index,
      ArchivedEventStore store,
      ArchivePartitions partitions,
      ArchiveRepository repository,
      Clock clock,
      int capacity,
      MeterRegistry meters) {
    this.index = index;
    this.store = store;
    this.partitions = partitions;
    this.repository = repository;
    this.clock = clock;
    this.queue = new ArrayBlockingQueue<>(capacity);
    this.archived =
        Counter.builder("activity.archive.events")
            .description("Events written to archives")
            .register(meters);
    this.failed =
        Counter.builder("activity.archive.failed")
            .description("Archive writes that failed (events lost" + " from archives)")
            .register(meters);
    this.thread = DaemonThreads.thread("archive-writer", this::run);
    thread.start();
  }

  /**
   * An event waiting for the writer: the outbound form (the CloudEvent and its cached encodings,
   * not the parsed JSON tree, so a full queue stays about the size of the events). Encoding and row
   * ids are the writer's work, off the routing thread.
   */
  private record Pending(long archiveId, OutboundEvent event, long archivedAt, long eventTime) {}

  /** Router forwarder: queues the event for each archive it matches. Never blocks, never throws. */
  CompletableFuture<Void> archive(RoutableEvent event) {
    if (index.isEmpty() || event.event().getExtension(ReplayRunner.REPLAY_EXTENSION) != null) {
      return CompletableFuture.completedFuture(null);
    }
    try {
      List<Archive> matches = index.match(event);
      if (matches.isEmpty()) {
        return CompletableFuture.completedFuture(null);
      }
      long now = clock.millis();
      long time =
          event.event().getTime() == null
              ? now
              : event.event().getTime().toInstant().toEpochMilli();
      for (Archive a : matches) {
        if (!queue.offer(new Pending(a.id(), event.outbound(), now, time))) {
          return CompletableFuture.failedFuture(
              new RejectedExecutionException(
                  "the archive writer is at its bound"
                      + " (activity.archive.queue-capacity); retry later"));
        }
      }
      return CompletableFuture.completedFuture(null);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * The row of a pending event: structured JSON (encoded once per event, shared with any structured
   * delivery).
   */
  private static ArchivedEvent row(Pending p) {
    CloudEvent e = p.event().event();
    String json = new String(p.event().encoded(CloudEventJson.STRUCTURED), StandardCharsets.UTF_8);
    // A row id only breaks ties within one event time and archive time: random bits from the
    // thread's generator
    // are plenty, and unlike UUID.randomUUID() they do not draw on the operating system's entropy.
    ThreadLocalRandom random = ThreadLocalRandom.current();
    String rowId = new UUID(random.nextLong(), random.nextLong()).toString();
    return new ArchivedEvent(
        p.archiveId(),
        rowId,
        p.archivedAt(),
        p.eventTime(),
        e.getId(),
        e.getSource().toString(),
        e.getType(),
        json);
  }

  /** Events waiting to be written. */
  int queued() {
    return queue.size();
  }

  private void run() {
    List<Pending> batch = new ArrayList<>(BATCH);
    while (!closed || !queue.isEmpty()) {
      try {
        // Linger a little for a fuller batch: one transaction per ~LINGER instead of one per few
        // events, which
        // costs the routing threads far less CPU (and the database far fewer commits) at moderate
        // rates.
        // Idle, the thread just waits for the queue (close() wakes it).
        if (QueueBatches.take(queue, batch, BATCH, IDLE_WAIT_MILLIS, LINGER_NANOS)) {
          batch.remove(WAKE);
          if (!batch.isEmpty()) {
            write(rows(batch));
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } finally {
        batch.clear();
      }
    }
  }

  private List<ArchivedEvent> rows(List<Pending> batch) {
    List<ArchivedEvent> rows = new ArrayList<>(batch.size());
    for (Pending p : batch) {
      try {
        rows.add(row(p));
      } catch (RuntimeException e) {
        // An event that cannot be encoded cannot be archived; the others of the batch still are.
        failed.increment();
        log.warn(
            "event {} could not be encoded for its archive: {}",
            LogSafe.text(p.event().event().getId()),
            LogSafe.text(e.toString(), 1024));
      }
    }
    return rows;
  }

  private void write(List<ArchivedEvent> batch) {
    for (int attempt = 1; ; attempt++) {
      try {
        Map<Long, long[]> counts = new HashMap<>();
        for (ArchivedEvent e : batch) {
          partitions.ensure(e.archiveId(), e.archivedAt());
          long[] c = counts.computeIfAbsent(e.archiveId(), k -> new long[2]);
          c[0]++;
          c[1] += e.json().length();
        }
        store.insert(batch);
        counts.forEach((id, c) -> repository.addCounts(id, c[0], c[1]));
        archived.increment(batch.size());
        return;
      } catch (RuntimeException e) {
        if (attempt >= 3 || closed) {
          // E.g. the archive was deleted meanwhile (its partition is gone): nothing to keep these
          // events for.
          failed.increment(batch.size());
          log.warn("{} events could not be archived: {}", batch.size(), e.toString());
          return;
        }
        try {
          Thread.sleep(200L * attempt);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /** Writes what is queued (waits up to 10 s), then stops. */
  @Override
  public void close() {
    closed = true;
    queue.offer(WAKE); // if the queue is full, the writer is not waiting anyway
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
