package io.activityservice.events.delivery;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.OutboundEvent;
import io.activityservice.events.subscription.SubscriptionIndex;
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
 * Claims due parked deliveries from the store and attempts them, with at most {@code maxConcurrentAttempts} in
 * flight on this replica and at most {@code maxAttemptsPerSubscription} per subscription (subscriptions at their
 * bound are left out of the next claim, so one failing subscription cannot starve the others). Runs on its own
 * thread (the claims are JDBC); attempts are asynchronous and settle through the {@link Settler}.
 */
final class RetryWorker implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RetryWorker.class);
  /** Bound on the subscriptions named in one claim's exclusion list. */
  private static final int MAX_SKIPPED = 200;
  /** How long a delivery of a subscription this replica does not know yet is put back. */
  private static final long UNKNOWN_SUBSCRIPTION_DELAY_MILLIS = 1_000;

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
  private final Thread thread;
  private volatile boolean closed;

  RetryWorker(DeliveryStore store, Settler settler, DurableDelivery owner, DeadLetters deadLetters,
              Function<String, SubscriptionIndex.Entry> subscriptions, DeliverySettings settings, Clock clock) {
    this.store = store;
    this.settler = settler;
    this.owner = owner;
    this.deadLetters = deadLetters;
    this.subscriptions = subscriptions;
    this.settings = settings;
    this.clock = clock;
    this.permits = new Semaphore(settings.maxConcurrentAttempts());
    this.thread = new Thread(this::run, "delivery-retry-worker");
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** Attempts in flight on this replica. */
  int inFlight() {
    return settings.maxConcurrentAttempts() - permits.availablePermits();
  }

  private void run() {
    while (!closed) {
      try {
        int free = Math.min(permits.availablePermits(), settings.claimBatch());
        int claimed = free == 0 ? 0 : claimAndAttempt(free);
        if (claimed < free || free == 0) {
          pause();
        }
      } catch (RuntimeException e) {
        if (!closed) {
          log.warn("claiming parked deliveries failed, trying again in {}: {}", settings.pollInterval(), e.toString());
          pause();
        }
      }
    }
  }

  private int claimAndAttempt(int max) {
    long now = clock.millis();
    List<ParkedDelivery> rows = store.claim(max, now, settings.replicaId(), now + settings.lease().toMillis(),
        saturatedSubscriptions());
    for (ParkedDelivery row : rows) {
      permits.acquireUninterruptibly();
      perSubscription.computeIfAbsent(row.subscriptionId(), k -> new AtomicInteger()).incrementAndGet();
      CompletableFuture<?> attempt;
      try {
        attempt = attempt(row);
      } catch (RuntimeException e) {
        attempt = CompletableFuture.failedFuture(e);
      }
      attempt.whenComplete((ok, error) -> {
        if (error != null) {
          log.warn("attempt on parked delivery {} failed unexpectedly; its lease will expire: {}", row.id(),
              error.toString());
        }
        done(row);
      });
    }
    return rows.size();
  }

  /** One attempt; the future completes when the attempt ended (its settlement is queued, not awaited). */
  private CompletableFuture<?> attempt(ParkedDelivery row) {
    SubscriptionIndex.Entry entry = subscriptions.apply(row.subscriptionId());
    if (entry == null) {
      if (store.subscriptionExists(row.subscriptionId())) {
        // Created on another replica and not applied here yet: leave it for later.
        settler.release(row, UNKNOWN_SUBSCRIPTION_DELAY_MILLIS, "subscription not yet known to replica "
            + settings.replicaId());
      } else {
        store.deleteClaimed(Settler.claim(row));
      }
      return CompletableFuture.completedFuture(null);
    }
    CloudEvent event;
    try {
      event = CloudEventJson.decode(row.eventJson().getBytes(StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      return settler.giveUp(Settler.claim(row), entry, "the stored event could not be read: " + e.getMessage(),
          e.getMessage(), clock.millis());
    }
    long timeout = settings.lease().toMillis();
    if (row.phase() == ParkedDelivery.Phase.RETRY) {
      return owner.send(entry.target(), OutboundEvent.of(event)).orTimeout(timeout, TimeUnit.MILLISECONDS)
          .handle((ok, error) -> settler.afterAttempt(row, entry, error));
    }
    ChannelUri to = deadLetters.channelFor(entry.deadLetter());
    if (to == null) {
      // The dead-letter channel was removed meanwhile: keep it in the table only.
      return settler.afterDeadLetterSend(row, entry, null);
    }
    DeadLetters.DeadLetter letter = new DeadLetters.DeadLetter(event, row.subscriptionId(), Settler.origin(entry),
        row.attempts(), row.deadLetterReason());
    return deadLetters.forward(letter, to).orTimeout(timeout, TimeUnit.MILLISECONDS)
        .handle((ok, error) -> settler.afterDeadLetterSend(row, entry, error));
  }

  private void done(ParkedDelivery row) {
    AtomicInteger n = perSubscription.get(row.subscriptionId());
    if (n != null) {
      n.decrementAndGet();
    }
    boolean wasFull = permits.availablePermits() == 0;
    permits.release();
    if (wasFull) {
      synchronized (wake) {
        wake.notifyAll();
      }
    }
  }

  private List<String> saturatedSubscriptions() {
    List<String> skip = new ArrayList<>();
    for (Map.Entry<String, AtomicInteger> e : perSubscription.entrySet()) {
      if (e.getValue().get() >= settings.maxAttemptsPerSubscription() && skip.size() < MAX_SKIPPED) {
        skip.add(e.getKey());
      }
    }
    perSubscription.values().removeIf(n -> n.get() <= 0);
    return skip;
  }

  private void pause() {
    synchronized (wake) {
      if (closed) {
        return;
      }
      try {
        wake.wait(settings.pollInterval().toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        closed = true;
      }
    }
  }

  /** Wakes the worker early (e.g. after a redrive made deliveries due). */
  void nudge() {
    synchronized (wake) {
      wake.notifyAll();
    }
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
