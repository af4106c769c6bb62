package io.activityservice.events.subscription;

import io.activityservice.events.cluster.PartitionKey;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.problem.InvalidInputException;
import java.time.Duration;

/**
 * Ordering per key of a subscription ({@code "ordering"}): its deliveries of one key go out one at
 * a time, in the order the service accepted the events; while one is waiting for a retry, the later
 * ones of its key wait behind it and other keys go on. An event may hold up its key for at most
 * {@code maxWait} (counted from its first attempt): past it, it is dead-lettered with that reason
 * and its key flows again. See docs/delivery-semantics.md.
 *
 * @param key the key: a CloudEvents attribute or extension ({@code subject}, {@code tenant}) or a
 *     path into the JSON data ({@code data.orderId}); events without a value share the key {@value
 *     PartitionKey#NONE}
 * @param maxWait how long one event may hold up its key, positive and at most 24 h
 */
public record Ordering(PartitionKey key, Duration maxWait) {

  /** Longest {@code maxWait} (as {@code retry.maxAge}). */
  public static final Duration MAX_WAIT = RetryPolicy.MAX_AGE;

  /** Longest key value kept: longer values are cut (their events then share the cut key). */
  public static final int MAX_KEY_LENGTH = 1024;

  public Ordering {
    if (key == null) {
      throw new InvalidInputException("ordering.key", "is required");
    }
    if (maxWait == null || maxWait.isZero() || maxWait.isNegative()) {
      throw new InvalidInputException(
          "ordering.maxWait", "must be a positive ISO-8601 duration, e.g. PT30S");
    }
    if (maxWait.compareTo(MAX_WAIT) > 0) {
      throw new InvalidInputException("ordering.maxWait", "must be at most PT24H");
    }
  }

  /**
   * Parses a request's ordering.
   *
   * @param maxWait {@code null} for the subscription's {@code retry.maxAge}
   * @throws InvalidInputException naming {@code ordering.key} or {@code ordering.maxWait}
   */
  public static Ordering of(String key, Duration maxWait, RetryPolicy retry) {
    PartitionKey k = PartitionKey.parse(key, "ordering.key");
    if (k == null) {
      throw new InvalidInputException(
          "ordering.key", "is required: an attribute name (subject) or a data path (data.id)");
    }
    return new Ordering(
        k, maxWait != null ? maxWait : (retry == null ? RetryPolicy.DEFAULT : retry).maxAge());
  }

  /** The key of an event, at most {@link #MAX_KEY_LENGTH} characters. */
  public String keyOf(RoutableEvent event) {
    String k = key.of(event);
    return k.length() > MAX_KEY_LENGTH ? k.substring(0, MAX_KEY_LENGTH) : k;
  }
}
