package io.activityservice.channel;

/**
 * Settles one inbound message. Exactly one of the two methods is called, once, from any thread.
 */
public interface Acknowledgement {

  /** The event was routed: the transport may forget the message. */
  void ack();

  /** The event could not be routed now: the transport should redeliver it later. */
  void nack(Throwable cause);
}
