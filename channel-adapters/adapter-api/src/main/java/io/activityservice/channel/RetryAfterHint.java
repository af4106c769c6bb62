package io.activityservice.channel;

import java.time.Duration;

/**
 * Implemented by send failures after which the target asked not to be called again for a while (a
 * webhook's {@code 429} or {@code 503} with {@code Retry-After}). The service's retry schedule
 * waits at least that long before the next attempt, within the subscription's retry policy.
 */
public interface RetryAfterHint {

  /** How long the target asked to wait, or {@code null} if it did not say. */
  Duration retryAfter();
}
