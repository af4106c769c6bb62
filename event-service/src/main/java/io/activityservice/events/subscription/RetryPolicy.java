package io.activityservice.events.subscription;

import io.activityservice.channel.Backoff;
import io.activityservice.events.problem.InvalidInputException;
import java.time.Duration;

/**
 * How often and how long delivery to a subscription's target is retried before the event is
 * dead-lettered, and how many deliveries may wait for a retry at once. Backoff doubles from {@code
 * initialBackoff} up to {@code maxBackoff}, with full jitter, and no attempt starts after {@code
 * maxAge} since the event was received. The bounds are EventBridge's: up to 185 attempts and 24 h.
 *
 * @param maxAttempts attempts in total, 1 to {@value #MAX_ATTEMPTS}
 * @param initialBackoff wait before the second attempt
 * @param maxBackoff cap of a single wait
 * @param maxAge age after which the event is dead-lettered instead of retried, at most 24 h
 * @param maxPending deliveries of this subscription that may wait for a retry at once; beyond it
 *     the oldest are dead-lettered (1 to {@value #MAX_PENDING})
 */
public record RetryPolicy(
    int maxAttempts,
    Duration initialBackoff,
    Duration maxBackoff,
    Duration maxAge,
    int maxPending) {

  /** Most attempts a policy may ask for (EventBridge's bound). */
  public static final int MAX_ATTEMPTS = 185;

  /** Longest retry window a policy may ask for (EventBridge's bound). */
  public static final Duration MAX_AGE = Duration.ofHours(24);

  /** Largest {@code maxPending}. */
  public static final int MAX_PENDING = 1_000_000;

  /** Default {@code maxPending}. */
  public static final int DEFAULT_MAX_PENDING = 10_000;

  /** Defaults: 5 attempts, 100 ms doubling to 5 s, 5 min, 10,000 pending. */
  public static final RetryPolicy DEFAULT =
      new RetryPolicy(
          5,
          Duration.ofMillis(100),
          Duration.ofSeconds(5),
          Duration.ofMinutes(5),
          DEFAULT_MAX_PENDING);

  public RetryPolicy {
    if (maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS) {
      throw new InvalidInputException("retry.maxAttempts", "must be between 1 and " + MAX_ATTEMPTS);
    }
    requirePositive("retry.initialBackoff", initialBackoff);
    requirePositive("retry.maxBackoff", maxBackoff);
    requirePositive("retry.maxAge", maxAge);
    if (maxBackoff.compareTo(initialBackoff) < 0) {
      throw new InvalidInputException(
          "retry.maxBackoff", "must not be shorter than retry.initialBackoff");
    }
    if (maxAge.compareTo(MAX_AGE) > 0) {
      throw new InvalidInputException("retry.maxAge", "must be at most PT24H");
    }
    if (maxPending < 1 || maxPending > MAX_PENDING) {
      throw new InvalidInputException("retry.maxPending", "must be between 1 and " + MAX_PENDING);
    }
  }

  /** A policy with the default {@code maxPending}. */
  public RetryPolicy(
      int maxAttempts, Duration initialBackoff, Duration maxBackoff, Duration maxAge) {
    this(maxAttempts, initialBackoff, maxBackoff, maxAge, DEFAULT_MAX_PENDING);
  }

  /** The wait before attempt {@code attempt + 1} (attempt counts from 1), with full jitter. */
  public Duration backoff(int attempt) {
    return new Backoff(initialBackoff, maxBackoff).delay(Math.max(1, attempt));
  }

  /**
   * Whether another attempt may follow attempt {@code attempt}.
   *
   * @param ageMillis how long ago the event was received
   * @param delayMillis the wait before the next attempt
   */
  public boolean allowsAnotherAttempt(int attempt, long ageMillis, long delayMillis) {
    return attempt < maxAttempts && ageMillis + delayMillis < maxAge.toMillis();
  }

  private static void requirePositive(String field, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new InvalidInputException(field, "must be a positive duration, e.g. PT0.2S");
    }
  }
}
