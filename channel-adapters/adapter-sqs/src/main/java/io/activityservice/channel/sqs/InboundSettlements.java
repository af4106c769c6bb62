package io.activityservice.channel.sqs;

import io.activityservice.channel.Backoff;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.batching.FixedBatchPolicy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The settlement side of one inbound queue, in batch requests: an ack becomes an entry of a
 * DeleteMessageBatch, a nack a ChangeMessageVisibility to the redelivery backoff of the message's
 * receive count, a batch still being routed gets its unsettled messages' visibility extended, and
 * messages received after close are made visible again at once. Deletes collect up to 10 entries or
 * {@code delete-linger} (at once on FIFO queues, which hold a message group back until its
 * in-flight message is deleted); visibility changes go at once. Failed requests are retried twice
 * (retryable errors only). Never throws; failures are logged, as SQS redelivers what was not
 * deleted.
 */
final class InboundSettlements {

  private static final Logger log = LoggerFactory.getLogger(InboundSettlements.class);

  /** The longest visibility timeout SQS accepts. */
  private static final long MAX_VISIBILITY_SECONDS = 43_200;

  /** Retries of failed deletes and visibility changes (3 attempts: 2 retries). */
  private static final int MAX_ATTEMPTS = 3;

  private final ChannelUri uri;
  private final int visibilitySeconds;
  private final Backoff redelivery;
  private final Batcher<String> deletes;
  private final Batcher<SqsRequests.VisibilityChange> visibility;
  private final BiConsumer<Void, Throwable> deleteDone;

  InboundSettlements(
      ChannelUri uri,
      String queue,
      SqsRequests requests,
      SqsChannelProperties properties,
      int visibilitySeconds,
      ScheduledExecutorService scheduler) {
    this.uri = uri;
    this.visibilitySeconds = visibilitySeconds;
    this.redelivery = properties.redelivery().backoff();
    Batcher.Limits limits =
        new Batcher.Limits(
            Long.MAX_VALUE,
            properties.maxBatchRequestsInFlight(),
            Integer.MAX_VALUE,
            MAX_ATTEMPTS,
            Batcher.RETRY_BACKOFF);
    Duration deleteLinger = SqsQueues.isFifo(queue) ? Duration.ZERO : properties.deleteLinger();
    this.deletes =
        new Batcher<>(
            "sqs delete " + uri,
            limits,
            new FixedBatchPolicy(Batcher.MAX_ENTRIES, deleteLinger),
            requests::delete,
            SqsErrors::isRetryable,
            scheduler);
    this.visibility =
        new Batcher<>(
            "sqs visibility " + uri,
            limits,
            new FixedBatchPolicy(Batcher.MAX_ENTRIES, Duration.ZERO),
            requests::changeVisibility,
            SqsErrors::isRetryable,
            scheduler);
    this.deleteDone =
        (ok, error) -> {
          if (error != null) {
            log.warn(
                "{}: deleting an acked message failed, it may be redelivered: {}",
                uri,
                SqsErrors.describe(error));
          }
        };
  }

  /** An acked message: deleted in the next DeleteMessageBatch. */
  void delete(ReceivedBatch.Settlement message) {
    deletes.submit(message.receiptHandle(), 0).whenComplete(deleteDone);
  }

  /**
   * A nacked message: hidden for the redelivery backoff of its receive count, then received again.
   */
  void hide(ReceivedBatch.Settlement message, Throwable cause) {
    int delay = nackDelaySeconds(redelivery, message.receiveCount());
    log.debug(
        "{}: message nacked (receive count {}), visible again in {}s: {}",
        uri,
        message.receiveCount(),
        delay,
        cause == null ? "" : cause.toString());
    visibility.submit(new SqsRequests.VisibilityChange(message.receiptHandle(), delay), 0);
  }

  /** Hides the unsettled messages of a batch still being routed for another visibility timeout. */
  void extend(ReceivedBatch batch) {
    for (int i = 0; i < batch.size(); i++) {
      ReceivedBatch.Settlement s = batch.settlement(i);
      if (!s.isSettled()) {
        visibility
            .submit(new SqsRequests.VisibilityChange(s.receiptHandle(), visibilitySeconds), 0)
            .whenComplete(
                (ok, error) -> {
                  if (error != null && !s.isSettled()) {
                    log.warn(
                        "{}: extending the visibility of a message still being routed failed, "
                            + "it may be redelivered: {}",
                        uri,
                        SqsErrors.describe(error));
                  }
                });
      }
    }
  }

  /**
   * Messages nobody will route (received after close): visible again at once, for the next
   * receiver.
   */
  void release(List<Message> batch) {
    try (SendCork cork = SendCork.open()) {
      for (Message m : batch) {
        visibility.submit(new SqsRequests.VisibilityChange(m.receiptHandle(), 0), 0);
      }
    }
  }

  /** Sends what is pending; completes when every delete and visibility change has been settled. */
  CompletableFuture<Void> close() {
    return CompletableFuture.allOf(deletes.close(), visibility.close());
  }

  /**
   * The visibility timeout after a nack: the backoff delay of the receive count (the n-th receive
   * is nacked for the n-th time, as far as SQS counts), rounded up to whole seconds.
   */
  static int nackDelaySeconds(Backoff backoff, int receiveCount) {
    long millis = backoff.delay(Math.max(1, receiveCount)).toMillis();
    return (int) Math.min(MAX_VISIBILITY_SECONDS, (millis + 999) / 1000);
  }
}
