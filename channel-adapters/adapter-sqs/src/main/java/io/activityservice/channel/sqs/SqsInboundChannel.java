package io.activityservice.channel.sqs;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundHandler;
import io.cloudevents.CloudEvent;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * One SQS queue as an inbound channel: a {@link ReceiveLoop} of long polls within the in-flight
 * bound (receiving), each received batch routed as a unit (here), and the settlements turned into
 * batched deletes and visibility changes by {@link InboundSettlements}.
 *
 * <p><b>A received batch is routed as a unit.</b> Its messages are decoded and handed to the
 * handler one after the other on one of the adapter's worker threads, inside a {@link SendCork}:
 * the events the router sends to SQS queues on that thread leave in one SendMessageBatch per queue
 * when the batch has been routed.
 *
 * <p><b>Settlement.</b> {@code ack()} frees the message's in-flight slot at once and queues its
 * receipt handle for a DeleteMessageBatch; {@code nack()} frees the slot and queues a
 * ChangeMessageVisibility to the redelivery backoff of the message's receive count, so it stays on
 * the queue and the next receive after the delay returns it (other messages are not affected).
 * Deletes collect up to 10 entries or {@code delete-linger} (at once on FIFO queues, which hold a
 * message group back until its in-flight message is deleted); the acknowledgements one send answer
 * completes arrive together and leave together. Batches still being routed after half the
 * visibility timeout get it extended, all their unsettled messages in one
 * ChangeMessageVisibilityBatch.
 *
 * <p><b>Threads.</b> The SDK's I/O thread completes the receive, sends the next one and hands the
 * batch to a worker (the one hop of the inbound path: routing is the handler's work and must not
 * hold an I/O thread); the answers of deletes and visibility changes are settled where they arrive.
 */
final class SqsInboundChannel implements InboundChannel, ReceivedBatch.Settler {

  private static final Logger log = LoggerFactory.getLogger(SqsInboundChannel.class);

  private final ChannelUri uri;
  private final InboundMessages messages;
  private final InboundHandler handler;
  private final ScheduledExecutorService scheduler;
  private final Executor worker;
  private final int visibilitySeconds;
  private final long visibilityNanos;
  private final ReceiveLoop receiver;
  private final InboundSettlements settlements;
  private final Runnable onClose;
  private final Set<ReceivedBatch> openBatches = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile ScheduledFuture<?> extender;

  SqsInboundChannel(
      ChannelUri uri,
      String queue,
      SqsAsyncClient client,
      QueueResolver resolver,
      InboundMessages messages,
      InboundHandler handler,
      SqsChannelProperties properties,
      ScheduledExecutorService scheduler,
      Executor worker,
      Runnable onClose) {
    this.uri = uri;
    this.messages = messages;
    this.handler = handler;
    this.scheduler = scheduler;
    this.worker = worker;
    this.onClose = onClose;
    this.visibilitySeconds = (int) Math.max(1, properties.visibilityTimeout().toSeconds());
    this.visibilityNanos = TimeUnit.SECONDS.toNanos(visibilitySeconds);
    SqsRequests requests = new SqsRequests(client, resolver, queue);
    this.settlements =
        new InboundSettlements(uri, queue, requests, properties, visibilitySeconds, scheduler);
    this.receiver =
        new ReceiveLoop(
            uri,
            requests,
            properties.maxInFlight(),
            properties.pollers(),
            (int) properties.waitTime().toSeconds(),
            visibilitySeconds,
            properties.receiveLinger(),
            scheduler,
            this::received,
            settlements::release);
  }

  /** Starts polling and the visibility extender. */
  SqsInboundChannel start() {
    long period = Math.max(250, visibilitySeconds * 1000L / 4);
    extender =
        scheduler.scheduleWithFixedDelay(
            this::extendVisibility, period, period, TimeUnit.MILLISECONDS);
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
      log.warn(
          "{}: message {} is not a CloudEvent ({}) and the channel has no defaultType; deleting it",
          uri,
          message.messageId(),
          firstLine(e.getMessage()));
      settlement.ack();
      return;
    }
    try {
      handler.onEvent(event, settlement);
    } catch (RuntimeException e) {
      log.warn(
          "{}: handler threw for event {}; the message will be redelivered", uri, event.getId(), e);
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
    settlements.delete(message);
    receiver.release(1);
  }

  @Override
  public void nacked(
      ReceivedBatch batch, ReceivedBatch.Settlement message, Throwable cause, boolean last) {
    if (last) {
      openBatches.remove(batch);
    }
    settlements.hide(message, cause);
    receiver.release(1);
  }

  // ------------------------------------------------------------------ visibility

  /**
   * Extends the visibility of batches still being routed after half the timeout, one request per
   * round.
   */
  private void extendVisibility() {
    try (SendCork cork = SendCork.open()) {
      long now = System.nanoTime();
      long margin = visibilityNanos / 2;
      for (ReceivedBatch batch : openBatches) {
        if (batch.settled()) {
          openBatches.remove(batch);
        } else if (batch.visibleUntilNanos() - now <= margin) {
          batch.visibleUntilNanos(now + visibilityNanos);
          settlements.extend(batch);
        }
      }
    } catch (RuntimeException e) {
      log.warn("{}: visibility extension failed: {}", uri, e.toString());
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
    return settlements.close();
  }
}
