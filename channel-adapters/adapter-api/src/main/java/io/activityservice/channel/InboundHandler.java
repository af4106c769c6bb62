package io.activityservice.channel;

import io.cloudevents.CloudEvent;

/**
 * Receives the events of an {@link InboundChannel}. Implemented by the Event Service's router.
 *
 * <p>Called on the adapter's thread: implementations must return quickly and finish the work
 * asynchronously, calling exactly one of {@link Acknowledgement#ack()} or
 * {@link Acknowledgement#nack(Throwable)} when done.
 */
@FunctionalInterface
public interface InboundHandler {

  /** Handles one event; {@code acknowledgement} settles the underlying transport message. */
  void onEvent(CloudEvent event, Acknowledgement acknowledgement);
}
