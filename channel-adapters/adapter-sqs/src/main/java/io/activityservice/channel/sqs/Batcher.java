package io.activityservice.channel.sqs;

import io.activityservice.channel.Backoff;
import io.activityservice.channel.batching.BatchPolicy;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Groups single entries into SQS batch requests (SendMessageBatch, DeleteMessageBatch,
 * ChangeMessageVisibilityBatch): at most {@value #MAX_ENTRIES} entries (or the policy's smaller
 * {@link BatchPolicy#maxBatch()}) and {@code maxBatchBytes} per request. A full batch (by count or
 * by bytes) goes at once; when a partial one goes is the {@link BatchPolicy}'s decision, asked
 * whenever an entry arrives, a request completes or a linger expires — except while a {@link
 * SendCork} that submitted entries here is open: then partial batches wait until no such cork is
 * open, so a group submitted as one unit of work (the events of one received batch) is decided on
 * as a whole, and the groups of concurrent units fill each other's batches. At most {@code
 * maxRequestsInFlight} requests run at once; entries wait in a bounded buffer meanwhile. Entries
 * that fail with a retryable error are retried after the {@link Backoff} of their attempt, up to
 * {@code maxAttempts} attempts, before their future fails.
 *
 * <p>Threads: a request's answer is settled on the thread that completes its future — with the
 * adapter's client, the SDK's I/O thread, as the client completes futures directly ({@code
 * FUTURE_COMPLETION_EXECUTOR}): completing the entries' futures is short, and what it triggers
 * (acknowledgements, the next batch) is non-blocking. The entries one answer completes are
 * completed inside a {@link SendCork}, so the deletes they trigger leave together. Never blocks and
 * never throws from {@link #submit}; locking is short, no future is completed and no request is
 * sent while holding the lock, and concurrent or re-entrant calls to send what is ready are merged
 * (one thread at a time sends, the others leave it the work), so a transport that answers at once
 * cannot recurse.
 *
 * @param <T> the entry type
 */
final class Batcher<T> {

  /** The SQS limit of entries per batch request. */
  static final int MAX_ENTRIES = 10;

  /**
   * Delay before retrying failed entries (I/O errors, throttling, 5xx, entries SQS failed on its
   * side): up to 100 ms after the first attempt, 200 ms after the second, 400 ms after the third …
   * (full jitter, so the entries of many failed requests do not come back together), at most 2 s.
   */
  static final Backoff RETRY_BACKOFF =
      new Backoff(java.time.Duration.ofMillis(100), java.time.Duration.ofSeconds(2));

  private static final Logger log = LoggerFactory.getLogger(Batcher.class);

  /**
   * Batching limits; how entries are grouped within them is the {@link BatchPolicy}'s.
   *
   * @param retryBackoff delay before retrying entries whose attempt {@code n} failed: {@code
   *     delay(n)}
   */
  record Limits(
      long maxBatchBytes,
      int maxRequestsInFlight,
      int maxPending,
      int maxAttempts,
      Backoff retryBackoff) {}

  /**
   * The result of one entry of a batch request.
   *
   * @param error null on success
   * @param retryable whether sending the entry again may succeed
   */
  record Outcome(Throwable error, boolean retryable) {
    static final Outcome OK = new Outcome(null, false);

    boolean ok() {
      return error == null;
    }
  }

  /** Sends one batch; one outcome per item, in the order of the items. May fail as a whole. */
  @FunctionalInterface
  interface Transport<T> {
    CompletableFuture<List<Outcome>> send(List<T> items);
  }

  private static final class Entry<T> {
    final T item;
    final long bytes;
    final long enqueuedNanos;
    final CompletableFuture<Void> result = new CompletableFuture<>();
    int attempts;

    Entry(T item, long bytes, long enqueuedNanos) {
      this.item = item;
      this.bytes = bytes;
      this.enqueuedNanos = enqueuedNanos;
    }
  }

  private final String name;
  private final Limits limits;
  private final BatchPolicy policy;
  private final int maxEntries;
  private final Transport<T> transport;
  private final Predicate<Throwable> retryable;
  private final ScheduledExecutorService scheduler;
  private final CompletableFuture<Void> drained = new CompletableFuture<>();

  /** Calls to {@link #drain()} not yet served; the caller that raised it from 0 serves them all. */
  private final AtomicInteger drainRequests = new AtomicInteger();

  private final Object lock = new Object();
  private final ArrayDeque<Entry<T>> pending = new ArrayDeque<>();
  private int inFlight;
  private int retriesWaiting;

  /**
   * Corks that submitted entries and have not closed yet: while any is open, only full batches go.
   */
  private int openCorks;

  /**
   * When the scheduled re-decision runs (nanoTime), or {@code Long.MAX_VALUE} if none is scheduled.
   */
  private long timerDue = Long.MAX_VALUE;

  private boolean closing;

  /**
   * @param policy decides when partial batches go out; used by this batcher only
   * @param retryable which request failures may succeed when sent again
   * @param scheduler runs linger timers and retry backoffs
   */
  Batcher(
      String name,
      Limits limits,
      BatchPolicy policy,
      Transport<T> transport,
      Predicate<Throwable> retryable,
      ScheduledExecutorService scheduler) {
    this.name = name;
    this.limits = limits;
    this.policy = policy;
    this.maxEntries = Math.min(MAX_ENTRIES, policy.maxBatch());
    this.transport = transport;
    this.retryable = retryable;
    this.scheduler = scheduler;
  }

  /**
   * Queues one entry of {@code bytes} bytes; the future completes when its batch entry succeeded.
   * With a {@link SendCork} open on this thread, a partial batch waits for the cork to close.
   */
  CompletableFuture<Void> submit(T item, long bytes) {
    if (bytes > limits.maxBatchBytes()) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException(
              name
                  + ": entry of "
                  + bytes
                  + " bytes exceeds the limit of "
                  + limits.maxBatchBytes()
                  + " bytes per SQS message"));
    }
    SendCork cork = SendCork.current();
    boolean firstOfCork = cork != null && cork.hold(this);
    Entry<T> entry = new Entry<>(item, bytes, System.nanoTime());
    String rejected = null;
    boolean decide;
    synchronized (lock) {
      if (firstOfCork) {
        openCorks++; // until the cork closes (release), accepted entry or not
      }
      if (closing) {
        rejected = name + " is closed";
      } else if (pending.size() >= limits.maxPending()) {
        rejected =
            name
                + ": "
                + pending.size()
                + " entries already wait for a batch slot "
                + "(send buffer full; SQS is slower than the producers)";
      } else {
        pending.addLast(entry);
        policy.arrived(entry.enqueuedNanos);
      }
      // Under a cork only a full batch is worth a decision now; the rest waits for the cork to
      // close.
      decide = cork == null || pending.size() >= maxEntries;
    }
    if (rejected != null) {
      return CompletableFuture.failedFuture(new RejectedExecutionException(rejected));
    }
    if (decide) {
      drain();
    }
    return entry.result;
  }

  /** A cork that submitted entries here has closed: once none is open, decide on what waits. */
  void release() {
    synchronized (lock) {
      openCorks--;
    }
    drain();
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

  /** Sends what is ready; merged with concurrent and re-entrant calls (see the class comment). */
  private void drain() {
    if (drainRequests.getAndIncrement() != 0) {
      return;
    }
    int missed = 1;
    do {
      drainOnce();
      missed = drainRequests.addAndGet(-missed);
    } while (missed != 0);
  }

  private void drainOnce() {
    List<List<Entry<T>>> ready = null;
    long timerDelay = -1;
    boolean done;
    synchronized (lock) {
      long now = System.nanoTime();
      while (inFlight < limits.maxRequestsInFlight() && !pending.isEmpty()) {
        int fit = headBatchSize();
        boolean full =
            fit == maxEntries
                || fit < pending.size(); // by count, or the next entry's bytes do not fit
        int n;
        if (closing || full) {
          n = fit;
        } else if (openCorks > 0) {
          break; // a group is still being submitted: the close of its cork decides
        } else {
          BatchPolicy.Decision decision =
              policy.decide(now, pending.size(), now - pending.peekFirst().enqueuedNanos, inFlight);
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
        if (ready == null) {
          ready = new ArrayList<>(2);
        }
        ready.add(batch);
      }
      done = closing && pending.isEmpty() && inFlight == 0 && retriesWaiting == 0;
    }
    if (timerDelay >= 0) {
      schedule(this::lingerExpired, timerDelay);
    }
    if (ready != null) {
      for (List<Entry<T>> batch : ready) {
        dispatch(batch);
      }
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
    // Settled where the answer arrives: no hand-off to another thread for completing a few futures.
    response.whenComplete((outcomes, error) -> settle(batch, sent, outcomes, error));
  }

  private void settle(List<Entry<T>> batch, long sent, List<Outcome> outcomes, Throwable error) {
    synchronized (lock) {
      inFlight--;
      policy.completed(batch.size(), System.nanoTime() - sent);
    }
    Outcome whole = error == null ? null : new Outcome(error, retryable.test(error));
    List<Entry<T>> retry = null;
    // What completing these entries triggers (acknowledgements → deletes) leaves as one group.
    try (SendCork cork = SendCork.open()) {
      for (int i = 0; i < batch.size(); i++) {
        Entry<T> e = batch.get(i);
        Outcome o =
            whole != null
                ? whole
                : outcomes != null && i < outcomes.size() && outcomes.get(i) != null
                    ? outcomes.get(i)
                    : new Outcome(
                        new IllegalStateException("SQS returned no result for entry " + i), true);
        e.attempts++;
        if (o.ok()) {
          e.result.complete(null);
        } else if (o.retryable() && e.attempts < limits.maxAttempts()) {
          if (retry == null) {
            retry = new ArrayList<>();
          }
          retry.add(e);
        } else {
          e.result.completeExceptionally(o.error());
        }
      }
    }
    if (retry != null) {
      int attempt = retry.get(0).attempts;
      long backoff = limits.retryBackoff().delay(attempt).toNanos();
      log.debug(
          "{}: retrying {} of {} entries in {} ms (attempt {} failed)",
          name,
          retry.size(),
          batch.size(),
          backoff / 1_000_000,
          attempt);
      synchronized (lock) {
        retriesWaiting++;
      }
      List<Entry<T>> again = retry;
      schedule(() -> requeue(again), backoff);
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
