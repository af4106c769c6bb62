package io.activityservice.events.delivery;

import io.activityservice.channel.support.DaemonThreads;
import io.activityservice.events.internal.QueueBatches;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes to the {@link DeliveryStore} on one thread, off the hot path, batching what arrived
 * meanwhile into one transaction per kind of write (group commit): under load one commit carries
 * hundreds of parks or settlements. Each write's future completes when its transaction committed. A
 * batch that fails is retried write by write, so one bad row fails only its own future.
 *
 * <p>Parks are bounded ({@code maxQueuedParks}): beyond it {@link #park} fails at once, so the
 * caller nacks or answers 503 instead of queueing without bound. Settlements are bounded by the
 * attempts in flight.
 */
final class StoreWriter implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(StoreWriter.class);
  private static final int MAX_BATCH = 500;

  /**
   * How long an idle writer waits for work before looking at its closed flag again (close() wakes
   * it anyway).
   */
  private static final long IDLE_WAIT_MILLIS = 60_000;

  /** One queued write. */
  private sealed interface Write
      permits ParkWrite,
          DeleteWrite,
          RescheduleWrite,
          GiveUpWrite,
          BuryWrite,
          DeadLetterWrite,
          Wake {
    CompletableFuture<Void> done();
  }

  /** Wakes the writer to notice that it is closed; writes nothing. */
  private record Wake(CompletableFuture<Void> done) implements Write {}

  private record ParkWrite(DeliveryStore.Park park, CompletableFuture<Void> done)
      implements Write {}

  private record DeleteWrite(DeliveryStore.Claim claim, CompletableFuture<Void> done)
      implements Write {}

  private record RescheduleWrite(DeliveryStore.Reschedule change, CompletableFuture<Void> done)
      implements Write {}

  private record GiveUpWrite(DeliveryStore.GiveUp change, CompletableFuture<Void> done)
      implements Write {}

  private record BuryWrite(DeliveryStore.Bury burial, CompletableFuture<Void> done)
      implements Write {}

  private record DeadLetterWrite(DeadLetterRecord record, CompletableFuture<Void> done)
      implements Write {}

  private final DeliveryStore store;
  private final int maxQueuedParks;
  private final Consumer<Set<String>> afterParks;
  private final java.util.function.LongConsumer afterDueChange;
  private final BlockingQueue<Write> queue = new LinkedBlockingQueue<>();
  private final AtomicInteger queuedParks = new AtomicInteger();
  private final Thread thread;
  private volatile boolean closed;

  /**
   * @param afterParks called on the writer thread with the subscriptions that got parked deliveries
   *     in a batch (to enforce {@code retry.maxPending})
   */
  public StoreWriter(DeliveryStore store, int maxQueuedParks, Consumer<Set<String>> afterParks) {
    this(store, maxQueuedParks, afterParks, due -> {});
  }

  /**
   * @param afterDueChange called on the writer thread after a batch committed deliveries free for
   *     any replica to claim (parked, rescheduled), with the earliest time one of them is due: the
   *     retry worker wakes if that is before its own wake-up
   */
  public StoreWriter(
      DeliveryStore store,
      int maxQueuedParks,
      Consumer<Set<String>> afterParks,
      java.util.function.LongConsumer afterDueChange) {
    this.store = store;
    this.maxQueuedParks = maxQueuedParks;
    this.afterParks = afterParks;
    this.afterDueChange = afterDueChange;
    this.thread = DaemonThreads.thread("delivery-store-writer", this::run);
    thread.start();
  }

  /** Parks a delivery; fails fast when too many parks are queued. */
  public CompletableFuture<Void> park(DeliveryStore.Park park) {
    if (queuedParks.incrementAndGet() > maxQueuedParks) {
      queuedParks.decrementAndGet();
      return CompletableFuture.failedFuture(
          new RejectedExecutionException(
              "delivery store is at its bound of "
                  + maxQueuedParks
                  + " queued parks (activity.delivery.max-queued-parks); retry later"));
    }
    return enqueue(new ParkWrite(park, new CompletableFuture<>()));
  }

  public CompletableFuture<Void> delete(DeliveryStore.Claim claim) {
    return enqueue(new DeleteWrite(claim, new CompletableFuture<>()));
  }

  public CompletableFuture<Void> reschedule(DeliveryStore.Reschedule change) {
    return enqueue(new RescheduleWrite(change, new CompletableFuture<>()));
  }

  public CompletableFuture<Void> giveUp(DeliveryStore.GiveUp change) {
    return enqueue(new GiveUpWrite(change, new CompletableFuture<>()));
  }

  public CompletableFuture<Void> bury(DeliveryStore.Bury burial) {
    return enqueue(new BuryWrite(burial, new CompletableFuture<>()));
  }

  public CompletableFuture<Void> deadLetter(DeadLetterRecord record) {
    return enqueue(new DeadLetterWrite(record, new CompletableFuture<>()));
  }

  /** Writes waiting to be committed. */
  public int queued() {
    return queue.size();
  }

  private CompletableFuture<Void> enqueue(Write w) {
    if (closed) {
      if (w instanceof ParkWrite) {
        queuedParks.decrementAndGet();
      }
      w.done()
          .completeExceptionally(new RejectedExecutionException("delivery store writer is closed"));
      return w.done();
    }
    queue.add(w);
    return w.done();
  }

  private void run() {
    List<Write> batch = new ArrayList<>(MAX_BATCH);
    while (!closed || !queue.isEmpty()) {
      try {
        // No linger: a group commit of whatever queued while the previous one ran keeps the answer
        // latency low.
        // Idle, the thread just waits for the queue (close() wakes it).
        if (QueueBatches.take(queue, batch, MAX_BATCH, IDLE_WAIT_MILLIS, 0)) {
          write(batch);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } catch (RuntimeException e) {
        log.error("delivery store writer failed on a batch", e);
        batch.forEach(w -> w.done().completeExceptionally(e));
      } finally {
        batch.clear();
      }
    }
    Write w;
    while ((w = queue.poll()) != null) {
      if (w instanceof ParkWrite) {
        queuedParks.decrementAndGet();
      }
      w.done()
          .completeExceptionally(new RejectedExecutionException("delivery store writer closed"));
    }
  }

  /**
   * Applies a batch: parks first, so a settlement that follows its park in the same batch finds the
   * row.
   */
  private void write(List<Write> batch) {
    List<ParkWrite> parks = new ArrayList<>();
    List<RescheduleWrite> reschedules = new ArrayList<>();
    List<GiveUpWrite> giveUps = new ArrayList<>();
    List<BuryWrite> burials = new ArrayList<>();
    List<DeleteWrite> deletes = new ArrayList<>();
    List<DeadLetterWrite> deadLetters = new ArrayList<>();
    for (Write w : batch) {
      // Java 17: no pattern matching for switch yet.
      if (w instanceof ParkWrite p) {
        parks.add(p);
      } else if (w instanceof RescheduleWrite r) {
        reschedules.add(r);
      } else if (w instanceof GiveUpWrite g) {
        giveUps.add(g);
      } else if (w instanceof BuryWrite b) {
        burials.add(b);
      } else if (w instanceof DeleteWrite d) {
        deletes.add(d);
      } else if (w instanceof DeadLetterWrite d) {
        deadLetters.add(d);
      }
    }
    if (!parks.isEmpty()) {
      queuedParks.addAndGet(-parks.size());
      apply(parks, list -> store.park(list.stream().map(ParkWrite::park).toList()));
      Set<String> subscriptions = new LinkedHashSet<>();
      parks.forEach(p -> subscriptions.add(p.park().row().subscriptionId()));
      try {
        afterParks.accept(subscriptions);
      } catch (RuntimeException e) {
        log.warn("enforcing retry.maxPending failed: {}", e.toString());
      }
    }
    apply(
        reschedules, list -> store.reschedule(list.stream().map(RescheduleWrite::change).toList()));
    apply(
        giveUps, list -> store.toDeadLetterPhase(list.stream().map(GiveUpWrite::change).toList()));
    long due = Long.MAX_VALUE;
    for (ParkWrite p : parks) {
      if (p.park().lockedBy()
          == null) { // a delivery parked while its first attempt runs is leased, not due
        due = Math.min(due, p.park().row().nextAttemptAt());
      }
    }
    for (RescheduleWrite r : reschedules) {
      due = Math.min(due, r.change().nextAttemptAt());
    }
    if (!giveUps.isEmpty()) {
      due = Long.MIN_VALUE; // handed to the dead-letter channel at once
    }
    if (due != Long.MAX_VALUE) {
      try {
        afterDueChange.accept(due);
      } catch (RuntimeException e) {
        log.warn("waking the retry worker failed: {}", e.toString());
      }
    }
    apply(burials, list -> store.bury(list.stream().map(BuryWrite::burial).toList()));
    apply(deletes, list -> store.delete(list.stream().map(DeleteWrite::claim).toList()));
    apply(
        deadLetters,
        list -> store.deadLetters().insert(list.stream().map(DeadLetterWrite::record).toList()));
  }

  /**
   * Runs one transaction for the whole list; if it fails, one per write, so only the bad ones fail.
   */
  private <W extends Write> void apply(List<W> writes, Consumer<List<W>> op) {
    if (writes.isEmpty()) {
      return;
    }
    try {
      op.accept(writes);
      writes.forEach(w -> w.done().complete(null));
    } catch (RuntimeException batchError) {
      if (writes.size() == 1) {
        writes.get(0).done().completeExceptionally(batchError);
        return;
      }
      for (W w : writes) {
        try {
          op.accept(List.of(w));
          w.done().complete(null);
        } catch (RuntimeException e) {
          w.done().completeExceptionally(e);
        }
      }
    }
  }

  /** Commits what is queued (waits up to 10 s), then stops the thread. */
  @Override
  public void close() {
    closed = true;
    queue.add(new Wake(new CompletableFuture<>()));
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
