package io.activityservice.channel;

import io.cloudevents.CloudEvent;
import java.util.concurrent.CompletableFuture;

/**
 * A destination the service delivers events to. Thread-safe.
 *
 * <p>{@link #send(CloudEvent)} never blocks on I/O and never throws: failures complete the future
 * exceptionally. The future completes normally once the transport has accepted the event (broker
 * acknowledged the send, SQS answered the batch entry, webhook answered 2xx).
 */
public interface OutboundChannel extends AutoCloseable {

  /** The address this channel sends to. */
  ChannelUri uri();

  /** Sends one event; completes when the transport has taken responsibility for it. */
  CompletableFuture<Void> send(CloudEvent event);

  /** Flushes what is buffered and releases resources. Never throws. */
  @Override
  void close();
}
