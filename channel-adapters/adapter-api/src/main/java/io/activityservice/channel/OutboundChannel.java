package io.activityservice.channel;

import io.cloudevents.CloudEvent;
import java.util.concurrent.CompletableFuture;

/**
 * A destination the service delivers events to. Thread-safe.
 *
 * <p>{@link #send(OutboundEvent)} never blocks on I/O and never throws: failures complete the
 * future exceptionally. The future completes normally once the transport has accepted the event
 * (broker acknowledged the send, SQS answered the batch entry, webhook answered 2xx).
 *
 * <p>Per-event options travel in the {@link OutboundEvent}: its partition key (order and one
 * consumer per key among competing consumers, where the transport gives it; see {@link
 * OutboundEvent}) and its encodings, which a channel takes from {@link
 * OutboundEvent#encoded(WireFormat)} so that an event sent to many channels of one format is
 * encoded once.
 */
public interface OutboundChannel extends AutoCloseable {

  /** The address this channel sends to. */
  ChannelUri uri();

  /**
   * Sends one event; completes when the transport has taken responsibility for it.
   *
   * <p>Every adapter implements this method. The default only serves channels written against the
   * earlier SPI, which implement {@link #send(CloudEvent)} instead: it passes them the bare event
   * (no partition key, no shared encoding).
   */
  default CompletableFuture<Void> send(OutboundEvent event) {
    if (LegacyChannels.implementsOnlyTheDefaults(getClass())) {
      return CompletableFuture.failedFuture(
          new UnsupportedOperationException(
              getClass().getName()
                  + " implements neither send(OutboundEvent) nor send(CloudEvent)"));
    }
    return send(event.event());
  }

  /** Sends one event with the default options: {@code send(OutboundEvent.of(event))}. */
  default CompletableFuture<Void> send(CloudEvent event) {
    if (event == null) {
      return CompletableFuture.failedFuture(new NullPointerException("event"));
    }
    return send(OutboundEvent.of(event));
  }

  /** Flushes what is buffered and releases resources. Never throws. */
  @Override
  void close();
}
