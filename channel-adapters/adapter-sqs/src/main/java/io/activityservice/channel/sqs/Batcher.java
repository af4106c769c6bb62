package io.activityservice.channel.sqs;

import io.activityservice.channel.batching.BatchPolicy;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Groups single entries into SQS batch requests (SendMessageBatch, DeleteMessageBatch,
 * ChangeMessageVisibilityBatch): at most {@value #MAX_ENTRIES} entries (or the policy's smaller
 * {@link BatchPolicy#maxBatch()}) and {@code maxBatchBytes} per request. When a batch goes out is
 * the {@link BatchPolicy}'s decision (adaptive by default: at once at low load, full batches under
 * overload; or a fixed size and linger), asked whenever an entry arrives, a request completes or a
 * linger expires; a batch that reaches the byte limit goes at once. At most
 * {@code maxRequestsInFlight} requests run at once; entries wait in a bounded buffer meanwhile.
 * Entries that fail with a retryable error are retried with exponential backoff, up to
 * {@code maxAttempts} attempts, before their future fails.
 *
 * <p>Threads: responses are handled on the adapter's {@code executor}, never on the SDK's response
 * threads (they only complete the futures), so settling entries and sending the next batch (which
 * marshals the request) cost the SDK nothing. Never blocks and never throws from {@link #submit};
 * all locking is short and no future is completed while holding the lock.
 *
 * @param <T> the entry type
 */
final class Batcher<T> {

  /** The SQS limit of entries per batch request. */
  static final int MAX_ENTRIES = 10;

  private static final Logger log = LoggerFactory.getLogger(Batcher.class);

  /** Batching limits; how entries are grouped within them is the {@link BatchPolicy}'s. */
  record Limits(long maxBatchBytes, int maxRequestsInFlight, int maxPending, int maxAttempts, Duration retryBackoff) {
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
  private final BatchPolicy policy;
  private final int maxEntries;
  private final Transport<T> transport;
  private final Function<Throwable, Boolean> retryable;
  private final ScheduledExecutorService scheduler;
  private final Executor executor;
  private final CompletableFuture<Void> drained = new CompletableFuture<>();

  private final Object lock = new Object();
  private final ArrayDeque<Entry<T>> pending = new ArrayDeque<>();
  private int inFlight;
  private int retriesWaiting;
  /** When the scheduled re-decision runs (nanoTime), or {@code Long.MAX_VALUE} if none is scheduled. */
  private long timerDue = Long.MAX_VALUE;
  private boolean closing;

  /**
   * @param policy    decides when batches go out; used by this batcher only
   * @param scheduler runs linger timers and retry backoffs
   * @param executor  handles responses (settling entries, sending the next batch)
   */
  Batcher(String name, Limits limits, BatchPolicy policy, Transport<T> transport,
      Function<Throwable, Boolean> retryable, ScheduledExecutorService scheduler, Executor executor) {
    this.name = name;
    this.limits = limits;
    this.policy = policy;
    this.maxEntries = Math.min(MAX_ENTRIES, policy.maxBatch());
    this.transport = transport;
    this.retryable = retryable;
    this.scheduler = scheduler;
    this.executor = executor;
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
        policy.arrived(entry.enqueuedNanos);
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
        int fit = headBatchSize();
        boolean bytesFull = fit < pending.size() && fit < maxEntries;
        int n;
        if (closing || bytesFull) {
          n = fit;
        } else {
          BatchPolicy.Decision decision = policy.decide(now, pending.size(), now - pending.peekFirst().enqueuedNanos,
              inFlight);
          if (decision.send() == 0) {
            long due = now + decision.waitNanos();
            if (due < timerDue) {
              timerDue = due;
              timerDelay = decision.waitNanos();
            }
            break;
          }
          n = Math.min(fit, decision.send());
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
      if (timerDue <= System.nanoTime()) {
        timerDue = Long.MAX_VALUE;
      }
    }
    drain();
  }

  /** Entries at the head of the queue that fit in one request (at least one). */
  private int headBatchSize() {
    int n = 0;
    long bytes = 0;
    for (Entry<T> e : pending) {
      if (n == maxEntries || (n > 0 && bytes + e.bytes > limits.maxBatchBytes())) {
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
    long sent = System.nanoTime();
    CompletableFuture<List<Outcome>> response;
    try {
      response = transport.send(items);
    } catch (RuntimeException e) {
      response = CompletableFuture.failedFuture(e);
    }
    // Off the SDK's response thread: it only completes the future; settling and the next batch run here.
    response.whenCompleteAsync((outcomes, error) -> settle(batch, sent, outcomes, error), this::execute);
  }

  /** Runs on the executor; inline if it refuses (the adapter is closing), so no entry is left unsettled. */
  private void execute(Runnable task) {
    try {
      executor.execute(task);
    } catch (RejectedExecutionException e) {
      task.run();
    }
  }

  private void settle(List<Entry<T>> batch, long sent, List<Outcome> outcomes, Throwable error) {
    synchronized (lock) {
      inFlight--;
      policy.completed(batch.size(), System.nanoTime() - sent);
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
