package io.activityservice.channel;

import java.util.Locale;

/**
 * How a subscription wants its events on the wire. {@code null} (no format chosen) is each
 * transport's default: structured JSON for SQS and webhooks, binary mode for JMS and Kafka.
 *
 * <ul>
 *   <li>{@link #STRUCTURED}: the whole event as one {@code application/cloudevents+json} body;
 *   <li>{@link #BINARY}: the data as the body, the attributes as the transport's headers or
 *       properties ({@code cloudEvents_*} for JMS, {@code ce_*} for Kafka);
 *   <li>{@link #DATA}: the data alone, with its content type where the transport has a place for
 *       it, and no attributes: what a consumer written before CloudEvents reads (a JMS Text or
 *       Bytes message, an SQS body, a Kafka value, a webhook body).
 * </ul>
 *
 * An adapter declares the formats it can send ({@link ChannelAdapter#formats()}); a subscription
 * that asks for another is refused when it is created.
 */
public enum DeliveryFormat {
  STRUCTURED,
  BINARY,
  DATA;

  /**
   * The data alone, as bytes (empty for an event without data): the body of {@link #DATA}
   * deliveries, encoded once per event.
   */
  public static final WireFormat<byte[]> DATA_BYTES =
      event -> event.getData() == null ? new byte[0] : event.getData().toBytes();

  /**
   * The body an HTTP target receives for {@code event}: the data alone for {@link #DATA} and {@link
   * #BINARY} (whose attributes travel as {@code ce-*} headers), otherwise the structured JSON. One
   * rule for the webhook channel and for whoever signs what it sends.
   */
  public static byte[] httpBody(OutboundEvent event) {
    return event.format() == DATA || event.format() == BINARY
        ? event.encoded(DATA_BYTES)
        : event.encoded(CloudEventJson.STRUCTURED);
  }

  /** The lower-case name used in the API ({@code structured}, {@code binary}, {@code data}). */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The format of an API name, case-insensitive.
   *
   * @throws IllegalArgumentException naming the accepted values
   */
  public static DeliveryFormat parse(String name) {
    for (DeliveryFormat f : values()) {
      if (f.wireName().equalsIgnoreCase(name == null ? "" : name.trim())) {
        return f;
      }
    }
    throw new IllegalArgumentException("must be one of structured, binary, data");
  }
}
