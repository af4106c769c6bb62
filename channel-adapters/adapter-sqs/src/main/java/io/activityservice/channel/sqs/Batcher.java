package io.activityservice.channel.sqs;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Groups single entries into SQS batch requests (SendMessageBatch, DeleteMessageBatch,
 * ChangeMessageVisibilityBatch): at most {@value #MAX_ENTRIES} entries and {@code maxBatchBytes}
 * per request. A batch goes out as soon as it is full, or when its oldest entry has waited
 * {@code linger}. At most {@code maxRequestsInFlight} requests run at once; entries wait in a bounded
 * buffer meanwhile. Entries that fail with a retryable error are retried with exponential backoff,
 * up to {@code maxAttempts} attempts, before their future fails.
 *
 * <p>Never blocks and never throws from {@link #submit}; all locking is short and no future is
 * completed while holding the lock.
 *
 * @param <T> the entry type
 */
final class Batcher<T> {

  /** The SQS limit of entries per batch request. */
  static final int MAX_ENTRIES = 10;

  private static final Logger log = LoggerFactory.getLogger(Batcher.class);

  /** Batching limits. */
  record Limits(long maxBatchBytes, Duration linger, int maxRequestsInFlight, int maxPending,
                int maxAttempts, Duration retryBackoff) {
  }

  /**
   * The result of one entry of a batch request.
   *
   * @param error     null on success
   * @param retryable whether sending the entry again may succeed
   */
  record Outcome(Throwable error, boolean retryable) {
    static final Outcome OK = new Outcome(null, false);

    boolean ok() {
      return error == null;
    }
  }

  /** Sends one batch; the outcomes are in the order of the items. May fail as a whole. */
  @FunctionalInterface
  interface Transport<T> {
    CompletableFuture<List<Outcome>> send(List<T> items);
  }

  private static final class Entry<T> {
    final T item;
    final long bytes;
    final long enqueuedNanos = System.nanoTime();
    final CompletableFuture<Void> result = new CompletableFuture<>();
    int attempts;

    Entry(T item, long bytes) {
      this.item = item;
      this.bytes = bytes;
    }
  }

  private final String name;
  private final Limits limits;
  private final long lingerNanos;
  private final Transport<T> transport;
  private final Function<Throwable, Boolean> retryable;
  private final ScheduledExecutorService scheduler;
  private final CompletableFuture<Void> drained = new CompletableFuture<>();

  private final Object lock = new Object();
  private final ArrayDeque<Entry<T>> pending = new ArrayDeque<>();
  private int inFlight;
  private int retriesWaiting;
  private boolean timerScheduled;
  private boolean closing;

  Batcher(String name, Limits limits, Transport<T> transport, Function<Throwable, Boolean> retryable,
      ScheduledExecutorService scheduler) {
    this.name = name;
    this.limits = limits;
    this.lingerNanos = limits.linger().toNanos();
    this.transport = transport;
    this.retryable = retryable;
    this.scheduler = scheduler;
  }

  /**
   * Queues one entry of {@code bytes} bytes; the future completes when its batch entry succeeded.
   */
  CompletableFuture<Void> submit(T item, long bytes) {
    if (bytes > limits.maxBatchBytes()) {
      return CompletableFuture.failedFuture(new IllegalArgumentException(name + ": entry of " + bytes
          + " bytes exceeds the limit of " + limits.maxBatchBytes() + " bytes per SQS message"));
    }
    Entry<T> entry = new Entry<>(item, bytes);
    String rejected = null;
    synchronized (lock) {
      if (closing) {
        rejected = name + " is closed";
      } else if (pending.size() >= limits.maxPending()) {
        rejected = name + ": " + pending.size() + " entries already wait for a batch slot "
            + "(send buffer full; SQS is slower than the producers)";
      } else {
        pending.addLast(entry);
      }
    }
    if (rejected != null) {
      return CompletableFuture.failedFuture(new RejectedExecutionException(rejected));
    }
    drain();
    return entry.result;
  }

  /**
   * Sends what is buffered without waiting for the linger and accepts no new entries.
   *
   * @return completes when every accepted entry has been settled
   */
  CompletableFuture<Void> close() {
    synchronized (lock) {
      closing = true;
    }
    drain();
    return drained;
  }

  private void drain() {
    List<List<Entry<T>>> ready = new ArrayList<>();
    long timerDelay = -1;
    boolean done;
    synchronized (lock) {
      long now = System.nanoTime();
      while (inFlight < limits.maxRequestsInFlight() && !pending.isEmpty()) {
        int n = headBatchSize();
        boolean full = n == MAX_ENTRIES || n < pending.size();
        long waited = now - pending.peekFirst().enqueuedNanos;
        if (!full && !closing && waited < lingerNanos) {
          if (!timerScheduled) {
            timerScheduled = true;
            timerDelay = lingerNanos - waited;
          }
          break;
        }
        List<Entry<T>> batch = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          batch.add(pending.pollFirst());
        }
        inFlight++;
        ready.add(batch);
      }
      done = closing && pending.isEmpty() && inFlight == 0 && retriesWaiting == 0;
    }
    if (timerDelay >= 0) {
      schedule(this::lingerExpired, timerDelay);
    }
    for (List<Entry<T>> batch : ready) {
      dispatch(batch);
    }
    if (done) {
      drained.complete(null);
    }
  }

  private void lingerExpired() {
    synchronized (lock) {
      timerScheduled = false;
    }
    drain();
  }

  /** Entries at the head of the queue that fit in one request (at least one). */
  private int headBatchSize() {
    int n = 0;
    long bytes = 0;
    for (Entry<T> e : pending) {
      if (n == MAX_ENTRIES || (n > 0 && bytes + e.bytes > limits.maxBatchBytes())) {
        break;
      }
      bytes += e.bytes;
      n++;
    }
    return n;
  }

  private void dispatch(List<Entry<T>> batch) {
    List<T> items = new ArrayList<>(batch.size());
    for (Entry<T> e : batch) {
      items.add(e.item);
    }
    CompletableFuture<List<Outcome>> response;
    try {
      response = transport.send(items);
    } catch (RuntimeException e) {
      response = CompletableFuture.failedFuture(e);
    }
    response.whenComplete((outcomes, error) -> settle(batch, outcomes, error));
  }

  private void settle(List<Entry<T>> batch, List<Outcome> outcomes, Throwable error) {
    synchronized (lock) {
      inFlight--;
    }
    Outcome whole = error == null ? null : new Outcome(error, Boolean.TRUE.equals(retryable.apply(error)));
    List<Entry<T>> retry = new ArrayList<>();
    for (int i = 0; i < batch.size(); i++) {
      Entry<T> e = batch.get(i);
      Outcome o = whole != null ? whole
          : outcomes != null && i < outcomes.size() && outcomes.get(i) != null ? outcomes.get(i)
          : new Outcome(new IllegalStateException("SQS returned no result for entry " + i), true);
      e.attempts++;
      if (o.ok()) {
        e.result.complete(null);
      } else if (o.retryable() && e.attempts < limits.maxAttempts()) {
        retry.add(e);
      } else {
        e.result.completeExceptionally(o.error());
      }
    }
    if (!retry.isEmpty()) {
      int attempts = retry.get(0).attempts;
      long backoff = limits.retryBackoff().toNanos() << Math.min(attempts - 1, 10);
      log.debug("{}: retrying {} of {} entries in {} ms (attempt {} failed)", name, retry.size(),
          batch.size(), backoff / 1_000_000, attempts);
      synchronized (lock) {
        retriesWaiting++;
      }
      schedule(() -> requeue(retry), backoff);
    }
    drain();
  }

  private void requeue(List<Entry<T>> retry) {
    synchronized (lock) {
      retriesWaiting--;
      for (int i = retry.size() - 1; i >= 0; i--) {
        pending.addFirst(retry.get(i));
      }
    }
    drain();
  }

  private void schedule(Runnable task, long delayNanos) {
    try {
      scheduler.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // The adapter is shutting down: no timers any more, so flush now instead of later.
      synchronized (lock) {
        closing = true;
      }
      task.run();
    }
  }
}
