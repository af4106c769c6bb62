package io.activityservice.channel.sqs;

import io.activityservice.channel.Backoff;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundHandler;
import io.activityservice.channel.batching.FixedBatchPolicy;
import io.cloudevents.CloudEvent;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * One SQS queue as an inbound channel: a {@link ReceiveLoop} of long polls within the in-flight bound,
 * each received batch routed as a unit, and the settlements turned into batched deletes and
 * visibility changes.
 *
 * <p><b>A received batch is routed as a unit.</b> Its messages are decoded and handed to the handler
 * one after the other on one of the adapter's worker threads, inside a {@link SendCork}: the events
 * the router sends to SQS queues on that thread leave in one SendMessageBatch per queue when the batch
 * has been routed.
 *
 * <p><b>Settlement.</b> {@code ack()} frees the message's in-flight slot at once and queues its
 * receipt handle for a DeleteMessageBatch; {@code nack()} frees the slot and queues a
 * ChangeMessageVisibility to the redelivery backoff of the message's receive count, so it stays on the
 * queue and the next receive after the delay returns it (other messages are not affected). Deletes
 * collect up to 10 entries or {@code delete-linger} (at once on FIFO queues, which hold a message group
 * back until its in-flight message is deleted); the acknowledgements one send answer completes arrive
 * together and leave together. Batches still being routed after half the visibility timeout get it
 * extended, all their unsettled messages in one ChangeMessageVisibilityBatch.
 *
 * <p><b>Threads.</b> The SDK's I/O thread completes the receive, sends the next one and hands the batch
 * to a worker (the one hop of the inbound path: routing is the handler's work and must not hold an
 * I/O thread); the answers of deletes and visibility changes are settled where they arrive.
 */
final class SqsInboundChannel implements InboundChannel, ReceivedBatch.Settler {

  private static final Logger log = LoggerFactory.getLogger(SqsInboundChannel.class);
  /** The longest visibility timeout SQS accepts. */
  private static final long MAX_VISIBILITY_SECONDS = 43_200;
  /** Retries of failed deletes and visibility changes (3 attempts: 2 retries). */
  private static final int MAX_ATTEMPTS = 3;

  private final ChannelUri uri;
  private final InboundMessages messages;
  private final InboundHandler handler;
  private final ScheduledExecutorService scheduler;
  private final Executor worker;
  private final int visibilitySeconds;
  private final long visibilityNanos;
  private final Backoff redelivery;
  private final ReceiveLoop receiver;
  private final Batcher<String> deletes;
  private final Batcher<SqsRequests.VisibilityChange> visibility;
  private final Runnable onClose;
  private final Set<ReceivedBatch> openBatches = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final BiConsumer<Void, Throwable> deleteDone;
  private volatile ScheduledFuture<?> extender;

  SqsInboundChannel(ChannelUri uri, String queue, SqsAsyncClient client, QueueResolver resolver,
      InboundMessages messages, InboundHandler handler, SqsChannelProperties properties,
      ScheduledExecutorService scheduler, Executor worker, Runnable onClose) {
    this.uri = uri;
    this.messages = messages;
    this.handler = handler;
    this.scheduler = scheduler;
    this.worker = worker;
    this.onClose = onClose;
    this.visibilitySeconds = (int) Math.max(1, properties.visibilityTimeout().toSeconds());
    this.visibilityNanos = TimeUnit.SECONDS.toNanos(visibilitySeconds);
    this.redelivery = properties.redelivery().backoff();
    SqsRequests requests = new SqsRequests(client, resolver, queue);
    Batcher.Limits limits = new Batcher.Limits(Long.MAX_VALUE, properties.maxBatchRequestsInFlight(),
        Integer.MAX_VALUE, MAX_ATTEMPTS, Batcher.RETRY_BACKOFF);
    Duration deleteLinger = SqsQueues.isFifo(queue) ? Duration.ZERO : properties.deleteLinger();
    this.deletes = new Batcher<>("sqs delete " + uri, limits, new FixedBatchPolicy(Batcher.MAX_ENTRIES, deleteLinger),
        requests::delete, SqsErrors::isRetryable, scheduler);
    this.visibility = new Batcher<>("sqs visibility " + uri, limits,
        new FixedBatchPolicy(Batcher.MAX_ENTRIES, Duration.ZERO), requests::changeVisibility,
        SqsErrors::isRetryable, scheduler);
    this.receiver = new ReceiveLoop(uri, requests, properties.maxInFlight(), properties.pollers(),
        (int) properties.waitTime().toSeconds(), visibilitySeconds, properties.receiveLinger(), scheduler, this::received,
        this::receivedAfterClose);
    this.deleteDone = (ok, error) -> {
      if (error != null) {
        log.warn("{}: deleting an acked message failed, it may be redelivered: {}", uri, SqsErrors.describe(error));
      }
    };
  }

  /** Starts polling and the visibility extender. */
  SqsInboundChannel start() {
    long period = Math.max(250, visibilitySeconds * 1000L / 4);
    extender = scheduler.scheduleWithFixedDelay(this::extendVisibility, period, period, TimeUnit.MILLISECONDS);
    receiver.start();
    return this;
  }

  @Override
  public ChannelUri uri() {
    return uri;
  }

  /** Unsettled messages (received, not yet acked or nacked). For tests and metrics. */
  int inFlight() {
    int n = 0;
    for (ReceivedBatch b : openBatches) {
      for (int i = 0; i < b.size(); i++) {
        if (!b.settlement(i).isSettled()) {
          n++;
        }
      }
    }
    return n;
  }

  // ------------------------------------------------------------------ routing

  /** On the thread that completed the receive: one hand-off of the whole batch to a worker. */
  private void received(List<Message> batch) {
    ReceivedBatch received = new ReceivedBatch(batch, System.nanoTime() + visibilityNanos, this);
    openBatches.add(received);
    Runnable route = () -> route(batch, received);
    try {
      worker.execute(route);
    } catch (RejectedExecutionException e) {
      route.run(); // the adapter is shutting down: still hand the events out, so they are settled
    }
  }

  private void route(List<Message> batch, ReceivedBatch received) {
    try (SendCork cork = SendCork.open()) {
      for (int i = 0; i < batch.size(); i++) {
        deliver(batch.get(i), received.settlement(i));
      }
    }
  }

  private void deliver(Message message, ReceivedBatch.Settlement settlement) {
    CloudEvent event;
    try {
      event = messages.toEvent(message);
    } catch (IllegalArgumentException e) {
      log.warn("{}: message {} is not a CloudEvent ({}) and the channel has no defaultType; deleting it", uri,
          message.messageId(), firstLine(e.getMessage()));
      settlement.ack();
      return;
    }
    try {
      handler.onEvent(event, settlement);
    } catch (RuntimeException e) {
      log.warn("{}: handler threw for event {}; the message will be redelivered", uri, event.getId(), e);
      settlement.nack(e);
    }
  }

  private static String firstLine(String text) {
    return text == null ? "" : text.lines().findFirst().orElse("");
  }

  // ------------------------------------------------------------------ settlement

  @Override
  public void acked(ReceivedBatch batch, ReceivedBatch.Settlement message, boolean last) {
    if (last) {
      openBatches.remove(batch);
    }
    deletes.submit(message.receiptHandle(), 0).whenComplete(deleteDone);
    receiver.release(1);
  }

  @Override
  public void nacked(ReceivedBatch batch, ReceivedBatch.Settlement message, Throwable cause, boolean last) {
    if (last) {
      openBatches.remove(batch);
    }
    int delay = nackDelaySeconds(redelivery, message.receiveCount());
    log.debug("{}: message nacked (receive count {}), visible again in {}s: {}", uri, message.receiveCount(),
        delay, cause == null ? "" : cause.toString());
    visibility.submit(new SqsRequests.VisibilityChange(message.receiptHandle(), delay), 0);
    receiver.release(1);
  }

  /**
   * The visibility timeout after a nack: the backoff delay of the receive count (the n-th receive is
   * nacked for the n-th time, as far as SQS counts), rounded up to whole seconds.
   */
  static int nackDelaySeconds(Backoff backoff, int receiveCount) {
    long millis = backoff.delay(Math.max(1, receiveCount)).toMillis();
    return (int) Math.min(MAX_VISIBILITY_SECONDS, (millis + 999) / 1000);
  }

  // ------------------------------------------------------------------ visibility

  /** Extends the visibility of batches still being routed after half the timeout, one request per round. */
  private void extendVisibility() {
    try (SendCork cork = SendCork.open()) {
      long now = System.nanoTime();
      long margin = visibilityNanos / 2;
      for (ReceivedBatch batch : openBatches) {
        if (batch.settled()) {
          openBatches.remove(batch);
        } else if (batch.visibleUntilNanos() - now <= margin) {
          batch.visibleUntilNanos(now + visibilityNanos);
          for (int i = 0; i < batch.size(); i++) {
            ReceivedBatch.Settlement s = batch.settlement(i);
            if (!s.isSettled()) {
              visibility.submit(new SqsRequests.VisibilityChange(s.receiptHandle(), visibilitySeconds), 0)
                  .whenComplete((ok, error) -> {
                    if (error != null && !s.isSettled()) {
                      log.warn("{}: extending the visibility of a message still being routed failed, "
                          + "it may be redelivered: {}", uri, SqsErrors.describe(error));
                    }
                  });
            }
          }
        }
      }
    } catch (RuntimeException e) {
      log.warn("{}: visibility extension failed: {}", uri, e.toString());
    }
  }

  /** Messages whose receive completed after close: visible again at once, for the next receiver. */
  private void receivedAfterClose(List<Message> batch) {
    try (SendCork cork = SendCork.open()) {
      for (Message m : batch) {
        visibility.submit(new SqsRequests.VisibilityChange(m.receiptHandle(), 0), 0);
      }
    }
  }

  // ------------------------------------------------------------------ close

  /** Stops polling. Acks and nacks of messages already handed out are still carried out. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    onClose.run();
    ScheduledFuture<?> task = extender;
    extender = null;
    if (task != null) {
      task.cancel(false);
    }
    receiver.close();
  }

  /** Closes and flushes pending deletes and visibility changes; completes when they are done. */
  CompletableFuture<Void> shutdown() {
    close();
    return CompletableFuture.allOf(deletes.close(), visibility.close());
  }
}
