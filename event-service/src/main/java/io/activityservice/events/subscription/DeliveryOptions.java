package io.activityservice.events.subscription;

import io.activityservice.channel.DeliveryFormat;
import io.activityservice.events.transform.Transform;
import io.activityservice.events.webhook.TargetSettings;

/**
 * How a subscription delivers beyond its target; every part optional.
 *
 * @param webhook signing, connection and flow control (webhook targets only), or {@code null}
 * @param transform JSONata expressions that reshape each event (compiled at create: a syntax error
 *     names the expression's field and position), or {@code null}
 * @param format how events go on the wire (refused if the target's adapter cannot send it), or
 *     {@code null} for the transport's default
 * @param ordering ordering per key, or {@code null} for none
 */
public record DeliveryOptions(
    TargetSettings webhook, Transform transform, DeliveryFormat format, Ordering ordering) {

  /** Events as they are, in the transport's default format, without webhook settings. */
  public static final DeliveryOptions NONE = new DeliveryOptions(null, null, null, null);

  /** These options with {@code webhook} settings. */
  public DeliveryOptions withWebhook(TargetSettings webhook) {
    return new DeliveryOptions(webhook, transform, format, ordering);
  }

  /** These options with a transformation and a format. */
  public DeliveryOptions withTransform(Transform transform, DeliveryFormat format) {
    return new DeliveryOptions(webhook, transform, format, ordering);
  }

  /** These options with ordering per key. */
  public DeliveryOptions withOrdering(Ordering ordering) {
    return new DeliveryOptions(webhook, transform, format, ordering);
  }
}
