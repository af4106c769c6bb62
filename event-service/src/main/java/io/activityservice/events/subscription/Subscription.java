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
 * @param delivery webhook settings, transformation, format and ordering ({@link
 *     DeliveryOptions#NONE} for none of them; {@code null} reads as that)
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
    DeliveryOptions delivery) {

  public Subscription {
    delivery = delivery == null ? DeliveryOptions.NONE : delivery;
  }

  /** A subscription that delivers events as they are, without webhook settings. */
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
    this(id, name, pattern, filter, target, retry, deadLetter, createdAt, owner, null);
  }

  /** A subscription without an owner that delivers events as they are. */
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

  /** Signing, connection and flow control of a webhook target, or {@code null} for none. */
  public TargetSettings webhook() {
    return delivery.webhook();
  }

  /** JSONata expressions that reshape each delivered event, or {@code null}. */
  public Transform transform() {
    return delivery.transform();
  }

  /** How events go on the wire, or {@code null} for the transport's default. */
  public DeliveryFormat format() {
    return delivery.format();
  }

  /** Ordering per key, or {@code null} for none. */
  public Ordering ordering() {
    return delivery.ordering();
  }
}
