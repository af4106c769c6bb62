package io.activityservice.channel;

import java.time.Duration;

/**
 * How a nacked inbound message comes back (see {@link Acknowledgement#nack(Throwable)}): the {@code
 * redelivery} settings every adapter has under its properties, e.g. {@code
 * activity.channels.jms.redelivery.initial=1s}, {@code .max=60s}, {@code .jitter=true}. Every field
 * is optional; {@code null} means the default.
 *
 * @param initial delay ceiling after the first nack of a message (default 1s)
 * @param max largest delay, however often the message was nacked (default 60s, at most 12h)
 * @param jitter full jitter: each delay is random between 0 and its ceiling, so that many messages
 *     failing together do not come back together (default true); false gives exact delays of
 *     initial, 2 × initial, 4 × initial …, e.g. for tests
 */
public record RedeliverySettings(Duration initial, Duration max, Boolean jitter) {

  /** Default delay ceiling after the first nack. */
  public static final Duration DEFAULT_INITIAL = Duration.ofSeconds(1);

  /** Default largest delay. */
  public static final Duration DEFAULT_MAX = Duration.ofSeconds(60);

  /** Largest accepted {@code max}: the longest SQS visibility timeout. */
  public static final Duration LIMIT = Duration.ofHours(12);

  public RedeliverySettings {
    initial = initial == null ? DEFAULT_INITIAL : initial;
    max = max == null ? (initial.compareTo(DEFAULT_MAX) > 0 ? initial : DEFAULT_MAX) : max;
    jitter = jitter == null || jitter;
    if (initial.isNegative() || initial.isZero()) {
      throw new IllegalArgumentException(
          "redelivery.initial must be positive, e.g. 1s; was " + initial);
    }
    if (max.compareTo(initial) < 0 || max.compareTo(LIMIT) > 0) {
      throw new IllegalArgumentException(
          "redelivery.max must be between redelivery.initial ("
              + initial
              + ") and 12h, e.g. 60s; was "
              + max);
    }
  }

  /** All defaults: 1s, 2s, 4s … up to 60s, with full jitter. */
  public static RedeliverySettings defaults() {
    return new RedeliverySettings(null, null, null);
  }

  /** The backoff these settings describe. */
  public Backoff backoff() {
    return new Backoff(initial, max, jitter);
  }
}
