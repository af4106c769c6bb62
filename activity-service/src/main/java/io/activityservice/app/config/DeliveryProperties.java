package io.activityservice.app.config;

import io.activityservice.events.delivery.DeliverySettings;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of durable delivery ({@code activity.delivery.*}); {@code park-after} is {@code activity.routing.park-after}.
 *
 * @param lease                      how long a replica holds a parked delivery it claimed before others may take it
 *                                   over (default 60s); must exceed park-after and the slowest channel's send timeout
 * @param pollInterval               longest a replica's retry worker sleeps (default 5s): it wakes when the earliest
 *                                   parked delivery is due, when this replica parks or reschedules one, and (on
 *                                   PostgreSQL) when another replica parks one; this periodic check finds deliveries
 *                                   whose lease ran out on a replica that died
 * @param claimBatch                 most deliveries claimed per query (default 100)
 * @param maxConcurrentAttempts      retry attempts in flight per replica (default 256)
 * @param maxAttemptsPerSubscription retry attempts in flight per replica and subscription (default 64)
 * @param maxQueuedParks             parks waiting for the database; beyond it routing refuses (503 / redelivery)
 *                                   (default 100000)
 * @param deadLetterRetention        how long dead letters are kept for browsing and redrive (default 14d)
 * @param maxSubscriptionTags        distinct subscription tag values per delivery metric before {@code other} (default 500)
 */
@ConfigurationProperties("activity.delivery")
public record DeliveryProperties(Duration lease, Duration pollInterval, Integer claimBatch,
                                 Integer maxConcurrentAttempts, Integer maxAttemptsPerSubscription,
                                 Integer maxQueuedParks, Duration deadLetterRetention, Integer maxSubscriptionTags) {

  public DeliveryProperties {
    lease = lease == null ? Duration.ofSeconds(60) : lease;
    pollInterval = pollInterval == null ? Duration.ofSeconds(5) : pollInterval;
    claimBatch = claimBatch == null ? 100 : claimBatch;
    maxConcurrentAttempts = maxConcurrentAttempts == null ? 256 : maxConcurrentAttempts;
    maxAttemptsPerSubscription = maxAttemptsPerSubscription == null ? 64 : maxAttemptsPerSubscription;
    maxQueuedParks = maxQueuedParks == null ? 100_000 : maxQueuedParks;
    deadLetterRetention = deadLetterRetention == null ? Duration.ofDays(14) : deadLetterRetention;
    maxSubscriptionTags = maxSubscriptionTags == null ? 500 : maxSubscriptionTags;
    if (maxSubscriptionTags < 1) {
      throw new IllegalArgumentException("activity.delivery.max-subscription-tags must be at least 1, e.g. 500");
    }
  }

  /**
   * The settings, validated (a bad value fails start-up with a message saying which property to fix).
   *
   * @param replicaId this replica's name in the store's lock columns ({@code activity.cluster.replica-id})
   */
  public DeliverySettings toSettings(Duration parkAfter, String replicaId) {
    return new DeliverySettings(parkAfter, lease, pollInterval, claimBatch, maxConcurrentAttempts,
        maxAttemptsPerSubscription, maxQueuedParks, deadLetterRetention, replicaId);
  }

}
