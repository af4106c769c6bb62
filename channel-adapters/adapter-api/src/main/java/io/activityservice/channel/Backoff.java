package io.activityservice.channel;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential backoff, optionally with full jitter: the ceiling of attempt {@code n} (counted from
 * 1) is {@code min(max, initial × 2^(n-1))}; with jitter the delay is drawn uniformly from {@code
 * [0, ceiling]} ("full jitter", which spreads retries of many clients best), without it the delay
 * is the ceiling itself (predictable, for tests and debugging).
 *
 * <p>General purpose: adapters use it for redelivery after a nack (see {@link RedeliverySettings}),
 * and retry policies may use it for their attempts. Immutable and thread-safe.
 *
 * @param initial ceiling of the first attempt; positive
 * @param max largest ceiling; not less than {@code initial}
 * @param jitter whether delays are drawn from {@code [0, ceiling]} (true) or equal the ceiling
 */
public record Backoff(Duration initial, Duration max, boolean jitter) {

  public Backoff {
    Objects.requireNonNull(initial, "initial");
    Objects.requireNonNull(max, "max");
    if (initial.isNegative() || initial.isZero()) {
      throw new IllegalArgumentException(
          "a backoff's initial delay must be positive, e.g. 1s; was " + initial);
    }
    if (max.compareTo(initial) < 0) {
      throw new IllegalArgumentException(
          "a backoff's max delay ("
              + max
              + ") must not be less than its initial delay ("
              + initial
              + ")");
    }
    try {
      max.toNanos();
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("a backoff's max delay is too large: " + max, e);
    }
  }

  /** A backoff with full jitter. */
  public Backoff(Duration initial, Duration max) {
    this(initial, max, true);
  }

  /** The same delays without jitter. */
  public Backoff withoutJitter() {
    return new Backoff(initial, max, false);
  }

  /**
   * The largest delay of an attempt: {@code min(max, initial × 2^(attempt-1))}.
   *
   * @param attempt counted from 1 (the first retry, the first redelivery)
   * @throws IllegalArgumentException if {@code attempt < 1}
   */
  public Duration ceiling(int attempt) {
    if (attempt < 1) {
      throw new IllegalArgumentException("backoff attempts count from 1; was " + attempt);
    }
    long initialNanos = initial.toNanos();
    long maxNanos = max.toNanos();
    int shift = attempt - 1;
    // Saturate instead of overflowing: past the cap every attempt gets max.
    if (shift >= Long.numberOfLeadingZeros(initialNanos) - 1 || initialNanos << shift >= maxNanos) {
      return max;
    }
    return Duration.ofNanos(initialNanos << shift);
  }

  /**
   * The delay before an attempt: uniformly random in {@code [0, ceiling(attempt)]} with jitter,
   * else {@link #ceiling(int)}.
   *
   * @param attempt counted from 1
   * @throws IllegalArgumentException if {@code attempt < 1}
   */
  public Duration delay(int attempt) {
    Duration ceiling = ceiling(attempt);
    if (!jitter) {
      return ceiling;
    }
    return Duration.ofNanos(ThreadLocalRandom.current().nextLong(ceiling.toNanos() + 1));
  }
}
