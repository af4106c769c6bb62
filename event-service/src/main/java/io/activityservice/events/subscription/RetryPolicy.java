package io.activityservice.events.subscription;

import io.activityservice.events.problem.InvalidInputException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How often and how long delivery to a subscription's target is retried before the event is
 * dead-lettered. Backoff doubles from {@code initialBackoff} up to {@code maxBackoff}, with full
 * jitter, and no attempt starts after {@code maxAge} since the event was received.
 *
 * @param maxAttempts    attempts in total, at least 1
 * @param initialBackoff wait before the second attempt
 * @param maxBackoff     cap of a single wait
 * @param maxAge         age after which the event is dead-lettered instead of retried
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff, Duration maxAge) {

  /** Defaults short enough that a failing target does not hold inbound messages for long. */
  public static final RetryPolicy DEFAULT =
      new RetryPolicy(5, Duration.ofMillis(100), Duration.ofSeconds(5), Duration.ofMinutes(5));

  public RetryPolicy {
    if (maxAttempts < 1 || maxAttempts > 100) {
      throw new InvalidInputException("retry.maxAttempts", "must be between 1 and 100");
    }
    requirePositive("retry.initialBackoff", initialBackoff);
    requirePositive("retry.maxBackoff", maxBackoff);
    requirePositive("retry.maxAge", maxAge);
    if (maxBackoff.compareTo(initialBackoff) < 0) {
      throw new InvalidInputException("retry.maxBackoff", "must not be shorter than retry.initialBackoff");
    }
  }

  /** The wait before attempt {@code attempt + 1} (attempt counts from 1), with full jitter. */
  public Duration backoff(int attempt) {
    long base = initialBackoff.toMillis();
    long capped = Math.min(maxBackoff.toMillis(), base << Math.min(attempt - 1, 20));
    long half = capped / 2;
    return Duration.ofMillis(half + ThreadLocalRandom.current().nextLong(half + 1));
  }

  private static void requirePositive(String field, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new InvalidInputException(field, "must be a positive duration, e.g. PT0.2S");
    }
  }
}
