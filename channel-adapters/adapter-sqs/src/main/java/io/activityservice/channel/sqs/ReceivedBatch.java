package io.activityservice.channel.sqs;

import io.activityservice.channel.Acknowledgement;
import io.activityservice.channel.OnceOnlyAcknowledgement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * The messages of one ReceiveMessage answer, routed together and tracked together until each is
 * settled: one acknowledgement per message, one visibility deadline for the batch (they were
 * received together, so they are extended together).
 */
final class ReceivedBatch {

  /** What settling a message does; implemented by the inbound channel. */
  interface Settler {
    /** {@code message} was acked; {@code last}: it was the batch's last unsettled message. */
    void acked(ReceivedBatch batch, Settlement message, boolean last);

    /** {@code message} was nacked; {@code last}: it was the batch's last unsettled message. */
    void nacked(ReceivedBatch batch, Settlement message, Throwable cause, boolean last);
  }

  private final Settlement[] settlements;
  private final AtomicInteger unsettled;

  /** Until when (nanoTime) SQS hides the batch's unsettled messages, as last requested. */
  private volatile long visibleUntilNanos;

  ReceivedBatch(List<Message> messages, long visibleUntilNanos, Settler settler) {
    this.settlements = new Settlement[messages.size()];
    for (int i = 0; i < settlements.length; i++) {
      settlements[i] = new Settlement(this, messages.get(i), settler);
    }
    this.unsettled = new AtomicInteger(settlements.length);
    this.visibleUntilNanos = visibleUntilNanos;
  }

  int size() {
    return settlements.length;
  }

  /** The acknowledgement of the {@code i}-th message. */
  Settlement settlement(int i) {
    return settlements[i];
  }

  long visibleUntilNanos() {
    return visibleUntilNanos;
  }

  void visibleUntilNanos(long nanos) {
    visibleUntilNanos = nanos;
  }

  /** Whether every message has been acked or nacked. */
  boolean settled() {
    return unsettled.get() == 0;
  }

  /**
   * Epoch milliseconds of an SQS {@code SentTimestamp} attribute, or {@link
   * Acknowledgement#NO_SENT_TIME} if it is absent or not a number.
   */
  static long sentMillis(String sentTimestamp) {
    if (sentTimestamp == null) {
      return Acknowledgement.NO_SENT_TIME;
    }
    try {
      return Long.parseLong(sentTimestamp);
    } catch (NumberFormatException e) {
      return Acknowledgement.NO_SENT_TIME;
    }
  }

  /** Counts one settled message; true for the last one. */
  private boolean countSettled() {
    return unsettled.decrementAndGet() == 0;
  }

  /** Settles one message once: ack deletes it, nack hides it for the redelivery backoff. */
  static final class Settlement extends OnceOnlyAcknowledgement {
    private final ReceivedBatch batch;
    private final String receiptHandle;
    private final String receiveCount;
    private final String sentTimestamp;
    private final Settler settler;

    Settlement(ReceivedBatch batch, Message message, Settler settler) {
      this.batch = batch;
      this.receiptHandle = message.receiptHandle();
      Map<MessageSystemAttributeName, String> attributes = message.attributes();
      this.receiveCount = attributes.get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT);
      this.sentTimestamp = attributes.get(MessageSystemAttributeName.SENT_TIMESTAMP);
      this.settler = settler;
    }

    /** The {@code SentTimestamp} system attribute (ReceiveMessage asks for it). */
    @Override
    public long sentAtMillis() {
      return sentMillis(sentTimestamp);
    }

    String receiptHandle() {
      return receiptHandle;
    }

    /** SQS's approximate receive count of the message (1 on its first receive). */
    int receiveCount() {
      try {
        return receiveCount == null ? 1 : Integer.parseInt(receiveCount);
      } catch (NumberFormatException e) {
        return 1;
      }
    }

    @Override
    protected void onAck() {
      settler.acked(batch, this, batch.countSettled());
    }

    @Override
    protected void onNack(Throwable cause) {
      settler.nacked(batch, this, cause, batch.countSettled());
    }
  }
}
