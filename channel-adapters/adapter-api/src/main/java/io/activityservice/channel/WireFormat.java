package io.activityservice.channel;

import io.cloudevents.CloudEvent;

/**
 * One way of encoding a CloudEvent for a transport: structured JSON ({@link
 * CloudEventJson#STRUCTURED}), JMS binary-mode properties and body, Kafka headers and value…
 *
 * <p>A wire format is the key of {@link OutboundEvent#encoded(WireFormat)}'s cache, so each format
 * is one shared instance (a constant), and its encoding depends on the event only: never on the
 * channel, the partition key or other per-send options (those are applied per send). The result is
 * shared by every channel and thread that sends the event and must not be modified.
 *
 * @param <T> the encoded form
 */
@FunctionalInterface
public interface WireFormat<T> {

  /**
   * Encodes an event. Must not call {@link OutboundEvent#encoded(WireFormat)}.
   *
   * @return the encoding, never {@code null}
   * @throws RuntimeException if the event cannot be encoded; the send fails with it
   */
  T encode(CloudEvent event);
}
