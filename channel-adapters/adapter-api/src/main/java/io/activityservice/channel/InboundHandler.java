package io.activityservice.channel;

import io.cloudevents.CloudEvent;

/**
 * Receives the events of an {@link InboundChannel}. Implemented by the Event Service's router.
 *
 * <p>Called on the adapter's thread: implementations must return quickly and finish the work
 * asynchronously, calling {@link Acknowledgement#ack()} or {@link Acknowledgement#nack(Throwable)}
 * when done (only the first call counts). A handler that throws is treated as a nack. A nacked
 * event comes back to the handler after the redelivery backoff, with a new acknowledgement.
 */
@FunctionalInterface
public interface InboundHandler {

  /** Handles one event; {@code acknowledgement} settles the underlying transport message. */
  void onEvent(CloudEvent event, Acknowledgement acknowledgement);
}
