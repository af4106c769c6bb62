package io.activityservice.app.config;

import io.activityservice.events.delivery.DeliverySettings;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of durable delivery ({@code activity.delivery.*}); {@code park-after} is {@code
 * activity.routing.park-after}.
 *
 * @param lease how long a replica holds a parked delivery it claimed before others may take it
 *     over; must exceed park-after and the slowest channel's send timeout
 * @param pollInterval longest a replica's retry worker sleeps: it wakes when the earliest parked
 *     delivery is due, when this replica parks or reschedules one, and (on PostgreSQL) when another
 *     replica parks one; this periodic check finds deliveries whose lease ran out on a replica that
 *     died
 * @param claimBatch most deliveries claimed per query
 * @param maxConcurrentAttempts retry attempts in flight per replica
 * @param maxAttemptsPerSubscription retry attempts in flight per replica and subscription
 * @param maxQueuedParks parks waiting for the database; beyond it routing refuses (503 /
 *     redelivery)
 * @param deadLetterRetention how long dead letters are kept for browsing and redrive
 * @param maxSubscriptionTags distinct subscription tag values per delivery metric before {@code
 *     other}
 */
@ConfigurationProperties("activity.delivery")
public record DeliveryProperties(
    @DefaultValue("60s") Duration lease,
    @DefaultValue("5s") Duration pollInterval,
    @DefaultValue("100") Integer claimBatch,
    @DefaultValue("256") Integer maxConcurrentAttempts,
    @DefaultValue("64") Integer maxAttemptsPerSubscription,
    @DefaultValue("100000") Integer maxQueuedParks,
    @DefaultValue("14d") Duration deadLetterRetention,
    @DefaultValue("500") Integer maxSubscriptionTags) {

  public DeliveryProperties {
    if (maxSubscriptionTags < 1) {
      throw new IllegalArgumentException(
          "activity.delivery.max-subscription-tags must be at least 1, e.g. 500");
    }
  }

  /**
   * The settings, validated (a bad value fails start-up with a message saying which property to
   * fix).
   *
   * @param replicaId this replica's name in the store's lock columns ({@code
   *     activity.cluster.replica-id})
   */
  public DeliverySettings toSettings(Duration parkAfter, String replicaId) {
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
}
