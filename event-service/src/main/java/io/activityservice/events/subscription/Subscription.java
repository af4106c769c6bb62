package io.activityservice.events.subscription;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.channel.DeliveryFormat;
import io.activityservice.events.transform.Transform;
import io.activityservice.events.webhook.TargetSettings;
import java.time.OffsetDateTime;

/**
 * A consumer's interest in events and where to deliver them.
 *
 * @param id service-assigned identifier
 * @param name human-readable name
 * @param pattern EventBridge-style event pattern over the structured CloudEvent JSON, or {@code
 *     null} for all events
 * @param filter CESQL expression over the event's attributes, or {@code null}
 * @param target channel URI the matching events are sent to
 * @param retry delivery retry policy
 * @param deadLetter channel URI for events whose delivery failed for good, or {@code null}
 * @param createdAt creation time
 * @param owner identity that created it (e.g. {@code key:<id>} or {@code jwt:<subject>}), or {@code
 *     null}
 * @param webhook signing, connection and flow control of a webhook target, or {@code null} for none
 * @param transform JSONata expressions that reshape each delivered event, or {@code null}
 * @param format how events go on the wire, or {@code null} for the transport's default
 * @param ordering ordering per key, or {@code null} for none
 */
public record Subscription(
    String id,
    String name,
    JsonNode pattern,
    String filter,
    String target,
    RetryPolicy retry,
    String deadLetter,
    OffsetDateTime createdAt,
    String owner,
    TargetSettings webhook,
    Transform transform,
    DeliveryFormat format,
    Ordering ordering) {

  /** A subscription without ordering per key. */
  public Subscription(
      String id,
      String name,
      JsonNode pattern,
      String filter,
      String target,
      RetryPolicy retry,
      String deadLetter,
      OffsetDateTime createdAt,
      String owner,
      TargetSettings webhook,
      Transform transform,
      DeliveryFormat format) {
    this(
        id,
        name,
        pattern,
        filter,
        target,
        retry,
        deadLetter,
        createdAt,
        owner,
        webhook,
        transform,
        format,
        null);
  }

  /**
   * A subscription with webhook settings, delivering events as they are in the transport's default
   * format.
   */
  public Subscription(
      String id,
      String name,
      JsonNode pattern,
      String filter,
      String target,
      RetryPolicy retry,
      String deadLetter,
      OffsetDateTime createdAt,
      String owner,
      TargetSettings webhook) {
    this(
        id,
        name,
        pattern,
        filter,
        target,
        retry,
        deadLetter,
        createdAt,
        owner,
        webhook,
        null,
        null);
  }

  /** A subscription without webhook settings that may transform events and choose their format. */
  public Subscription(
      String id,
      String name,
      JsonNode pattern,
      String filter,
      String target,
      RetryPolicy retry,
      String deadLetter,
      OffsetDateTime createdAt,
      String owner,
      Transform transform,
      DeliveryFormat format) {
    this(
        id,
        name,
        pattern,
        filter,
        target,
        retry,
        deadLetter,
        createdAt,
        owner,
        null,
        transform,
        format);
  }

  /** A subscription without webhook settings that delivers events as they are. */
  public Subscription(
      String id,
      String name,
      JsonNode pattern,
      String filter,
      String target,
      RetryPolicy retry,
      String deadLetter,
      OffsetDateTime createdAt,
      String owner) {
    this(id, name, pattern, filter, target, retry, deadLetter, createdAt, owner, null, null, null);
  }

  /** A subscription without an owner. */
  public Subscription(
      String id,
      String name,
      JsonNode pattern,
      String filter,
      String target,
      RetryPolicy retry,
      String deadLetter,
      OffsetDateTime createdAt) {
    this(id, name, pattern, filter, target, retry, deadLetter, createdAt, null, null);
  }
}
