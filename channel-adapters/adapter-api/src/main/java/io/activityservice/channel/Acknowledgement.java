package io.activityservice.channel;

/**
 * Settles one inbound message: the contract every adapter keeps, whatever its transport.
 *
 * <p><b>{@link #ack()}</b>: the event was handled (routed); the adapter removes the message from
 * its transport (JMS: the commit of the message's transaction, once every message of that batch is
 * settled; SQS DeleteMessage; Kafka offset commit once every earlier record of the partition is
 * settled too) and frees the message's in-flight slot. An adapter may remove acknowledged messages
 * in batches, some time after {@code ack()}: until then a crash brings an acknowledged message back
 * too (at-least-once; at most the channel's in-flight limit of messages). A channel that is closed
 * removes what was acknowledged before {@code close()} returns, so a clean close brings none of it
 * back.
 *
 * <p><b>{@link #nack(Throwable)}</b>: the event could not be handled now. The adapter hands the
 * <em>same</em> event to the handler again, with a new {@code Acknowledgement}, after a delay that
 * grows with each nack of that message: the {@link Backoff} of the adapter's {@code redelivery}
 * settings ({@link RedeliverySettings}; by default 1 s, then 2 s, 4 s … capped at 60 s, with full
 * jitter). A nack never tears the connection down and never affects other messages in flight: only
 * the nacked message comes again. Until it is finally acked the message stays unsettled on the
 * transport and keeps its in-flight slot, so a crash or a closed channel also brings it back
 * (at-least-once; consumers deduplicate by {@code (source, id)}). How each transport keeps the
 * message meanwhile: JMS and Kafka keep it unacknowledged/uncommitted and redispatch it locally;
 * SQS sets its visibility timeout to the delay (ChangeMessageVisibility), so the next receive
 * returns it.
 *
 * <p>Only the first call counts: later calls to either method are ignored. Both methods may be
 * called from any thread, never block on I/O and never throw. Adapters implement this contract by
 * extending {@link OnceOnlyAcknowledgement}.
 *
 * <p>An acknowledgement stands for its transport message, so it also answers {@link
 * #sentAtMillis()}: when the transport accepted the message (no allocation per message for it).
 */
public interface Acknowledgement {

  /** {@link #sentAtMillis()} of a transport that gives no send time. */
  long NO_SENT_TIME = Long.MIN_VALUE;

  /**
   * When the transport took the message from its producer, in epoch milliseconds by the transport's
   * clock: JMS {@code JMSTimestamp}, the SQS {@code SentTimestamp} system attribute, a Kafka record
   * timestamp of type {@code CreateTime}; {@link #NO_SENT_TIME} when the transport gives none (a
   * producer that disabled JMS timestamps, a Kafka {@code LogAppendTime} topic, HTTP). The router
   * measures the time an event waited in the inbound transport from it, else from the event's
   * {@code time}. The same for every hand-out of the message.
   */
  default long sentAtMillis() {
    return NO_SENT_TIME;
  }

  /** The event was handled: the transport may forget the message. Later calls are ignored. */
  void ack();

  /**
   * The event could not be handled now: it is handed to the handler again after the redelivery
   * backoff. Later calls are ignored.
   *
   * @param cause why (logged at debug level); may be {@code null}
   */
  void nack(Throwable cause);
}
