package io.activityservice.events.delivery;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of durable delivery.
 *
 * @param parkAfter how long an inbound message waits for a delivery's first attempt before the
 *     delivery is parked in the store and the message is settled
 * @param lease how long a replica holds a parked delivery it claimed; after that another replica
 *     may attempt it (a crashed replica's work is taken over then)
 * @param pollInterval longest the retry worker sleeps: it wakes when the earliest parked delivery
 *     is due, when this replica parks or reschedules one, when an attempt frees a slot, and on
 *     PostgreSQL when another replica parks one; this check finds deliveries whose lease ran out on
 *     a replica that died
 * @param claimBatch most deliveries claimed by one query
 * @param maxConcurrentAttempts retry attempts in flight per replica
 * @param maxAttemptsPerSubscription retry attempts in flight per replica and subscription, so one
 *     failing subscription cannot take every attempt slot
 * @param maxQueuedParks parks waiting to be written; beyond it routing fails fast (redelivery /
 *     503)
 * @param deadLetterRetention how long dead letters are kept for browsing and redrive
 * @param replicaId this replica's identity in the store's lock columns
 */
public record DeliverySettings(
    Duration parkAfter,
    Duration lease,
    Duration pollInterval,
    int claimBatch,
    int maxConcurrentAttempts,
    int maxAttemptsPerSubscription,
    int maxQueuedParks,
    Duration deadLetterRetention,
    String replicaId) {

  public DeliverySettings {
    Objects.requireNonNull(replicaId, "replicaId");
    requirePositive("park-after", parkAfter);
    requirePositive("lease", lease);
    requirePositive("poll-interval", pollInterval);
    requirePositive("dead-letter-retention", deadLetterRetention);
    if (claimBatch < 1
        || maxConcurrentAttempts < 1
        || maxAttemptsPerSubscription < 1
        || maxQueuedParks < 1) {
      throw new IllegalArgumentException(
          "activity.delivery: claim-batch, max-concurrent-attempts, "
              + "max-attempts-per-subscription and max-queued-parks must be at least 1");
    }
    if (lease.compareTo(parkAfter) <= 0) {
      throw new IllegalArgumentException(
          "activity.delivery.lease ("
              + lease
              + ") must be longer than "
              + "activity.routing.park-after ("
              + parkAfter
              + "), e.g. 60s");
    }
  }

  /** Defaults for tests and embedded use: park after 1 s, lease 60 s, check at least every 5 s. */
  public static DeliverySettings defaults(String replicaId) {
    return new DeliverySettings(
        Duration.ofSeconds(1),
        Duration.ofSeconds(60),
        Duration.ofSeconds(5),
        100,
        256,
        64,
        100_000,
        Duration.ofDays(14),
        replicaId);
  }

  /** The same settings with another park-after. */
  public DeliverySettings withParkAfter(Duration d) {
    return new DeliverySettings(
        d,
        lease,
        pollInterval,
        claimBatch,
        maxConcurrentAttempts,
        maxAttemptsPerSubscription,
        maxQueuedParks,
        deadLetterRetention,
        replicaId);
  }

  /** The same settings with another lease and poll interval. */
  public DeliverySettings withLease(Duration lease, Duration pollInterval) {
    return new DeliverySettings(
        parkAfter,
        lease,
        pollInterval,
        claimBatch,
        maxConcurrentAttempts,
        maxAttemptsPerSubscription,
        maxQueuedParks,
        deadLetterRetention,
        replicaId);
  }

  private static void requirePositive(String name, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(
          "activity.delivery." + name + " must be a positive duration, e.g. 1s");
    }
  }
}
