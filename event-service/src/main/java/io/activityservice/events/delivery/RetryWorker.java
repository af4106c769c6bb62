package io.activityservice.events.delivery;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.support.DaemonThreads;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.subscription.SubscriptionIndex;
import io.activityservice.events.transform.TransformException;
import io.activityservice.events.webhook.DeliveryDeferred;
import io.cloudevents.CloudEvent;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims due parked deliveries from the store and attempts them, with at most {@code
 * maxConcurrentAttempts} in flight on this replica and at most {@code maxAttemptsPerSubscription}
 * per subscription (subscriptions at their bound are left out of the next claim, so one failing
 * subscription cannot starve the others). Runs on its own thread (the claims are JDBC); attempts
 * are asynchronous and settle through the {@link Settler}.
 */
final class RetryWorker implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RetryWorker.class);

  /** Bound on the subscriptions named in one claim's exclusion list. */
  private static final int MAX_SKIPPED = 200;

  /** How long a delivery of a subscription this replica does not know yet is put back. */
  private static final long UNKNOWN_SUBSCRIPTION_DELAY_MILLIS = 1_000;

  /**
   * Wait when deliveries are due but none could be claimed (saturated subscriptions, a concurrent
   * claim).
   */
  private static final long MIN_WAIT_MILLIS = 50;

  private final DeliveryStore store;
  private final Settler settler;
  private final DurableDelivery owner;
  private final DeadLetters deadLetters;
  private final Function<String, SubscriptionIndex.Entry> subscriptions;
  private final DeliverySettings settings;
  private final Clock clock;
  private final Semaphore permits;
  private final Map<String, AtomicInteger> perSubscription = new ConcurrentHashMap<>();
  private final Object wake = new Object();

  /**
   * Set by {@link #nudge()}, cleared before each claim (guarded by {@code wake}'s monitor for the
   * wait).
   */
  private volatile boolean nudged;

  /**
   * When the sleeping worker wakes up by itself (epoch millis); {@code Long.MAX_VALUE} while it is
   * awake.
   */
  private long wakeAt = Long.MAX_VALUE;

  private final Thread thread;
  private volatile boolean closed;

  /** PostgreSQL: wakes the worker when another replica parks a delivery; {@code null} on H2. */
  private AutoCloseable listener;

  RetryWorker(
      DeliveryStore store,
      Settler settler,
      DurableDelivery owner,
      DeadLetters deadLetters,
      Function<String, SubscriptionIndex.Entry> subscriptions,
      DeliverySettings settings,
      Clock clock) {
    this.store = store;
    this.settler = settler;
    this.owner = owner;
    this.deadLetters = deadLetters;
    this.subscriptions = subscriptions;
    this.settings = settings;
    this.clock = clock;
    this.permits = new Semaphore(settings.maxConcurrentAttempts());
    this.thread = DaemonThreads.thread("delivery-retry-worker", this::run);
  }

  void start() {
    thread.start();
    try {
      listener = store.database().listenForDueDeliveries(this::nudge);
    } catch (RuntimeException e) {
      log.warn(
          "not listening for deliveries parked by other replicas (found by the periodic check instead): {}",
          e.toString());
    }
  }

  /** Attempts in flight on this replica. */
  int inFlight() {
    return settings.maxConcurrentAttempts() - permits.availablePermits();
  }

  /**
   * Sleeps until the earliest free delivery is due, at most {@code poll-interval}, then claims what
   * is due. This replica is woken sooner when it parks or reschedules a delivery due before that,
   * when an attempt ends and frees a slot, and on a redrive; the periodic check finds deliveries of
   * other replicas whose lease ran out, and — on PostgreSQL — work another replica parked (it is
   * woken by their notification too).
   */
  private void run() {
    while (!closed) {
      try {
        nudged = false;
        int free = Math.min(permits.availablePermits(), settings.claimBatch());
        if (free == 0) {
          pause(settings.pollInterval().toMillis()); // woken when an attempt ends
          continue;
        }
        // Look before claiming: a claim is a locking transaction, the look one indexed read, and
        // most wake-ups find
        // nothing due yet (the periodic check, a delivery parked with a backoff).
        long now = clock.millis();
        long max = settings.pollInterval().toMillis();
        Long due = store.nextDue(now);
        if (due == null || due > now) {
          pause(due == null ? max : Math.min(max, due - now));
        } else if (claimAndAttempt(free) == 0) {
          // Due but not claimed: its subscription is at its bound of attempts here (woken when one
          // ends) or another
          // replica is claiming it right now.
          pause(Math.min(max, MIN_WAIT_MILLIS));
        }
      } catch (RuntimeException e) {
        if (!closed) {
          log.warn(
              "claiming parked deliveries failed, trying again in {}: {}",
              settings.pollInterval(),
              e.toString());
          pause(settings.pollInterval().toMillis());
        }
      }
    }
  }

  private int claimAndAttempt(int max) {
    long now = clock.millis();
    List<ParkedDelivery> rows =
        store.claim(
            max,
            now,
            settings.replicaId(),
            now + settings.lease().toMillis(),
            saturatedSubscriptions());
    for (ParkedDelivery row : rows) {
      permits.acquireUninterruptibly();
      perSubscription
          .computeIfAbsent(row.subscriptionId(), k -> new AtomicInteger())
          .incrementAndGet();
      CompletableFuture<?> attempt;
      try {
        attempt = attempt(row);
      } catch (RuntimeException e) {
        attempt = CompletableFuture.failedFuture(e);
      }
      attempt.whenComplete(
          (ok, error) -> {
            if (error != null) {
              log.warn(
                  "attempt on parked delivery {} failed unexpectedly; its lease will expire: {}",
                  row.id(),
                  error.toString());
            }
            done(row);
          });
    }
    return rows.size();
  }

  /**
   * One attempt; the future completes when the attempt ended (its settlement is queued, not
   * awaited).
   */
  private CompletableFuture<?> attempt(ParkedDelivery row) {
    SubscriptionIndex.Entry entry = subscriptions.apply(row.subscriptionId());
    if (entry == null) {
      if (store.subscriptionExists(row.subscriptionId())) {
        // Created on another replica and not applied here yet: leave it for later.
        settler.release(
            row,
            UNKNOWN_SUBSCRIPTION_DELAY_MILLIS,
            "subscription not yet known to replica " + settings.replicaId());
      } else {
        store.deleteClaimed(Settler.claim(row));
      }
      return CompletableFuture.completedFuture(null);
    }
    CloudEvent event;
    try {
      event = CloudEventJson.decode(row.eventJson().getBytes(StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      return settler.giveUp(
          Settler.claim(row),
          entry,
          "the stored event could not be read: " + e.getMessage(),
          e.getMessage(),
          clock.millis());
    }
    long timeout = settings.lease().toMillis();
    if (row.phase() == ParkedDelivery.Phase.RETRY) {
      if (!row.shaped() && entry.transform() != null) {
        // A row parked as received (e.g. a redriven transformation failure): transform it now.
        try {
          event = entry.transform().apply(RoutableEvent.of(event));
        } catch (TransformException e) {
          return settler.giveUp(
              Settler.claim(row),
              entry,
              DurableDelivery.transformFailure(e),
              e.getMessage(),
              clock.millis());
        }
      }
      return owner
          .retry(
              entry,
              event,
              row.attempts(),
              DeliveryDeferred.holdsReservation(row.lastError()),
              row.createdAt(),
              row.orderingKey())
          .orTimeout(timeout, TimeUnit.MILLISECONDS)
          .handle((ok, error) -> settler.afterAttempt(row, entry, error));
    }
    ChannelUri to = deadLetters.channelFor(entry.deadLetter());
    if (to == null) {
      // The dead-letter channel was removed meanwhile: keep it in the table only.
      return settler.afterDeadLetterSend(row, entry, null);
    }
    DeadLetters.DeadLetter letter =
        new DeadLetters.DeadLetter(
            event,
            row.subscriptionId(),
            Settler.origin(entry),
            row.attempts(),
            row.deadLetterReason());
    return deadLetters
        .forward(letter, to)
        .orTimeout(timeout, TimeUnit.MILLISECONDS)
        .handle((ok, error) -> settler.afterDeadLetterSend(row, entry, error));
  }

  private void done(ParkedDelivery row) {
    AtomicInteger n = perSubscription.get(row.subscriptionId());
    boolean subscriptionWasFull =
        n != null && n.getAndDecrement() >= settings.maxAttemptsPerSubscription();
    boolean wasFull = permits.availablePermits() == 0;
    permits.release();
    if (wasFull || subscriptionWasFull) {
      nudge();
    }
  }

  private List<String> saturatedSubscriptions() {
    List<String> skip = new ArrayList<>();
    for (Map.Entry<String, AtomicInteger> e : perSubscription.entrySet()) {
      if (e.getValue().get() >= settings.maxAttemptsPerSubscription()
          && skip.size() < MAX_SKIPPED) {
        skip.add(e.getKey());
      }
    }
    perSubscription.values().removeIf(n -> n.get() <= 0);
    return skip;
  }

  private void pause(long millis) {
    synchronized (wake) {
      if (closed || nudged || millis <= 0) {
        return;
      }
      wakeAt = clock.millis() + millis;
      try {
        wake.wait(millis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        closed = true;
      } finally {
        wakeAt = Long.MAX_VALUE;
      }
    }
  }

  /**
   * Deliveries were committed that are due at {@code dueAt} (epoch millis): wakes the worker if
   * that is before its planned wake-up (or if it is claiming now, so it looks again).
   */
  void dueAt(long dueAt) {
    synchronized (wake) {
      if (dueAt < wakeAt) {
        nudged = true;
        wake.notifyAll();
      }
    }
  }

  /**
   * Wakes the worker early: a delivery was parked or rescheduled (it may be due before the worker's
   * wake-up), an attempt freed a slot, a redrive made deliveries due. A nudge during a claim is not
   * lost: the worker claims again.
   */
  void nudge() {
    synchronized (wake) {
      nudged = true;
      wake.notifyAll();
    }
  }

  @Override
  public void close() {
    closed = true;
    if (listener != null) {
      try {
        listener.close();
      } catch (Exception e) {
        log.debug("closing the delivery listener: {}", e.toString());
      }
    }
    nudge();
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
