package io.activityservice.channel.sqs;

import io.activityservice.channel.Backoff;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundHandler;
import io.activityservice.channel.OnceOnlyAcknowledgement;
import io.cloudevents.CloudEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageResponse;

/**
 * Receives from one queue with {@code pollers} concurrent long-polling ReceiveMessage requests.
 *
 * <p>At most {@code maxInFlight} messages are unsettled at a time: a poller asks for only as many
 * messages as there are free slots and parks when there are none; settling a message frees its
 * slot and wakes a parked poller. {@code ack()} deletes through a DeleteMessageBatch batcher (the
 * slot is freed when the delete is done); {@code nack()} sets the message's visibility timeout to the
 * redelivery backoff of its receive count (ChangeMessageVisibility), so it stays on the queue and
 * the next receive after the delay returns it; other messages are not affected. Messages still being routed after half the
 * visibility timeout get it extended with ChangeMessageVisibilityBatch. Pollers back off after
 * errors and stop on {@link #close()}.
 *
 * <p>Threads: the SDK's response threads only complete the receive futures; decoding, handing
 * events to the handler (routing) and the next poll run on the adapter's worker threads, and so do
 * the delete and visibility batchers' responses.
 */
final class SqsInboundChannel implements InboundChannel {

  private static final Logger log = LoggerFactory.getLogger(SqsInboundChannel.class);
  private static final long MAX_POLL_BACKOFF_MS = 5_000;
  /** The longest visibility timeout SQS accepts. */
  private static final long MAX_VISIBILITY_SECONDS = 43_200;

  private final ChannelUri uri;
  private final String queue;
  private final SqsAsyncClient client;
  private final QueueResolver resolver;
  private final InboundMessages messages;
  private final InboundHandler handler;
  private final ScheduledExecutorService scheduler;
  private final Executor worker;
  private final int waitSeconds;
  private final int visibilitySeconds;
  private final Backoff redelivery;
  private final Batcher<String> deletes;
  private final Batcher<VisibilityChange> visibility;
  private final Runnable onClose;

  private final AtomicInteger freeSlots;
  private final ConcurrentLinkedQueue<Integer> parked = new ConcurrentLinkedQueue<>();
  private final Set<InFlight> inFlight = ConcurrentHashMap.newKeySet();
  private final Set<CompletableFuture<?>> receives = ConcurrentHashMap.newKeySet();
  private final long[] backoffMs;
  private volatile boolean closed;
  private volatile ScheduledFuture<?> extender;

  /** A received message not yet settled. */
  private static final class InFlight {
    final String receiptHandle;
    volatile long lastVisibleUntilNanos;

    InFlight(String receiptHandle, long lastVisibleUntilNanos) {
      this.receiptHandle = receiptHandle;
      this.lastVisibleUntilNanos = lastVisibleUntilNanos;
    }
  }

  /** One ChangeMessageVisibility entry. */
  record VisibilityChange(String receiptHandle, int seconds) {
  }

  SqsInboundChannel(ChannelUri uri, String queue, SqsAsyncClient client, QueueResolver resolver,
      InboundMessages messages, InboundHandler handler, SqsChannelProperties properties,
      ScheduledExecutorService scheduler, Executor worker, Runnable onClose) {
    this.uri = uri;
    this.queue = queue;
    this.client = client;
    this.resolver = resolver;
    this.messages = messages;
    this.handler = handler;
    this.scheduler = scheduler;
    this.worker = worker;
    this.onClose = onClose;
    this.waitSeconds = (int) properties.waitTime().toSeconds();
    this.visibilitySeconds = (int) Math.max(1, properties.visibilityTimeout().toSeconds());
    this.redelivery = properties.redelivery().backoff();
    this.freeSlots = new AtomicInteger(properties.maxInFlight());
    this.backoffMs = new long[properties.pollers()];
    Batcher.Limits limits = new Batcher.Limits(Long.MAX_VALUE, properties.maxBatchRequestsInFlight(),
        Integer.MAX_VALUE, 3, java.time.Duration.ofMillis(100));
    this.deletes = new Batcher<>("sqs delete " + uri, limits,
        properties.newBatchPolicy(limits.maxRequestsInFlight()), this::deleteBatch,
        SqsErrors::isRetryable, scheduler, worker);
    this.visibility = new Batcher<>("sqs visibility " + uri, limits,
        properties.newBatchPolicy(limits.maxRequestsInFlight()), this::visibilityBatch,
        SqsErrors::isRetryable, scheduler, worker);
  }

  /** Starts the pollers and the visibility extender. */
  SqsInboundChannel start() {
    long period = Math.max(250, visibilitySeconds * 1000L / 4);
    extender = scheduler.scheduleWithFixedDelay(this::extendVisibility, period, period,
        TimeUnit.MILLISECONDS);
    for (int i = 0; i < backoffMs.length; i++) {
      poll(i);
    }
    return this;
  }

  @Override
  public ChannelUri uri() {
    return uri;
  }

  /** Unsettled messages (received, not yet acked and deleted or nacked). For tests and metrics. */
  int inFlight() {
    return inFlight.size();
  }

  // ------------------------------------------------------------------ polling

  private void poll(int poller) {
    if (closed) {
      return;
    }
    int wanted = reserveSlots();
    if (wanted == 0) {
      parked.add(poller);
      if (freeSlots.get() > 0 && parked.remove(poller)) {
        execute(() -> poll(poller));
      }
      return;
    }
    CompletableFuture<ReceiveMessageResponse> receive;
    try {
      receive = resolver.url(queue).thenCompose(url -> track(client.receiveMessage(r -> r
          .queueUrl(url)
          .maxNumberOfMessages(wanted)
          .waitTimeSeconds(waitSeconds)
          .visibilityTimeout(visibilitySeconds)
          .messageAttributeNames("All")
          .messageSystemAttributeNames(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT,
              MessageSystemAttributeName.SENT_TIMESTAMP))));
    } catch (RuntimeException e) {
      receive = CompletableFuture.failedFuture(e);
    }
    // The SDK's response thread only completes the future: decoding, routing and the next poll run on the
    // adapter's worker threads.
    track(receive).whenCompleteAsync((response, error) -> received(poller, wanted, response, error), this::onWorker);
  }

  /** Remembers a pending receive so that close() can cancel (abort) it. */
  private <R> CompletableFuture<R> track(CompletableFuture<R> receive) {
    receives.add(receive);
    receive.whenComplete((r, e) -> receives.remove(receive));
    if (closed) {
      receive.cancel(true);
    }
    return receive;
  }

  private void received(int poller, int wanted, ReceiveMessageResponse response, Throwable error) {
    if (error != null) {
      releaseSlots(wanted);
      if (closed) {
        return;
      }
      long backoff = backoffMs[poller] = Math.min(MAX_POLL_BACKOFF_MS, Math.max(100, backoffMs[poller] * 2));
      log.warn("receiving from {} failed, retrying in {} ms: {}", uri, backoff, SqsErrors.describe(error));
      try {
        scheduler.schedule(() -> poll(poller), backoff, TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException e) {
        closed = true;
      }
      return;
    }
    backoffMs[poller] = 0;
    List<Message> batch = response.messages();
    releaseSlots(wanted - batch.size());
    if (closed) {
      makeVisible(batch);
      return;
    }
    poll(poller);
    for (Message m : batch) {
      deliver(m);
    }
  }

  private int reserveSlots() {
    while (true) {
      int free = freeSlots.get();
      if (free <= 0) {
        return 0;
      }
      int take = Math.min(Batcher.MAX_ENTRIES, free);
      if (freeSlots.compareAndSet(free, free - take)) {
        return take;
      }
    }
  }

  private void releaseSlots(int n) {
    if (n <= 0) {
      return;
    }
    freeSlots.addAndGet(n);
    while (freeSlots.get() > 0 && !closed) {
      Integer poller = parked.poll();
      if (poller == null) {
        break;
      }
      execute(() -> poll(poller));
    }
  }

  private void execute(Runnable task) {
    try {
      worker.execute(task);
    } catch (RejectedExecutionException e) {
      closed = true;
    }
  }

  /** Runs a response handler on a worker; inline if the adapter is shutting down, so slots are still released. */
  private void onWorker(Runnable task) {
    try {
      worker.execute(task);
    } catch (RejectedExecutionException e) {
      task.run();
    }
  }

  // ------------------------------------------------------------------ delivery

  private void deliver(Message message) {
    InFlight f = new InFlight(message.receiptHandle(),
        System.nanoTime() + TimeUnit.SECONDS.toNanos(visibilitySeconds));
    inFlight.add(f);
    CloudEvent event;
    try {
      event = messages.toEvent(message);
    } catch (IllegalArgumentException e) {
      log.warn("{}: message {} is not a CloudEvent ({}) and the channel has no defaultType; "
          + "deleting it", uri, message.messageId(), firstLine(e.getMessage()));
      new Settlement(f, receiveCount(message)).ack();
      return;
    }
    Settlement settlement = new Settlement(f, receiveCount(message));
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

  private static int receiveCount(Message m) {
    try {
      return Integer.parseInt(m.attributes().getOrDefault(
          MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT, "1"));
    } catch (NumberFormatException e) {
      return 1;
    }
  }

  /** Settles one message once: ack deletes it, nack hides it for the redelivery backoff. */
  private final class Settlement extends OnceOnlyAcknowledgement {
    private final InFlight message;
    private final int receiveCount;

    Settlement(InFlight message, int receiveCount) {
      this.message = message;
      this.receiveCount = receiveCount;
    }

    @Override
    protected void onAck() {
      inFlight.remove(message);
      deletes.submit(message.receiptHandle, 0).whenComplete((ok, error) -> {
        if (error != null) {
          log.warn("{}: deleting an acked message failed, it may be redelivered: {}", uri,
              SqsErrors.describe(error));
        }
        releaseSlots(1);
      });
    }

    @Override
    protected void onNack(Throwable cause) {
      inFlight.remove(message);
      int delay = nackDelaySeconds(redelivery, receiveCount);
      log.debug("{}: message nacked (receive count {}), visible again in {}s: {}", uri,
          receiveCount, delay, cause == null ? "" : cause.toString());
      visibility.submit(new VisibilityChange(message.receiptHandle, delay), 0)
          .whenComplete((ok, error) -> releaseSlots(1));
    }
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

  private void extendVisibility() {
    try {
      long now = System.nanoTime();
      long margin = TimeUnit.SECONDS.toNanos(visibilitySeconds) / 2;
      for (InFlight f : inFlight) {
        if (f.lastVisibleUntilNanos - now <= margin) {
          f.lastVisibleUntilNanos = now + TimeUnit.SECONDS.toNanos(visibilitySeconds);
          visibility.submit(new VisibilityChange(f.receiptHandle, visibilitySeconds), 0)
              .whenComplete((ok, error) -> {
                if (error != null && inFlight.contains(f)) {
                  log.warn("{}: extending the visibility of a message still being routed failed, "
                      + "it may be redelivered: {}", uri, SqsErrors.describe(error));
                }
              });
        }
      }
    } catch (RuntimeException e) {
      log.warn("{}: visibility extension failed: {}", uri, e.toString());
    }
  }

  private void makeVisible(List<Message> batch) {
    for (Message m : batch) {
      visibility.submit(new VisibilityChange(m.receiptHandle(), 0), 0)
          .whenComplete((ok, error) -> releaseSlots(1));
    }
  }

  private CompletableFuture<List<Batcher.Outcome>> deleteBatch(List<String> handles) {
    return resolver.url(queue).thenCompose(url -> client.deleteMessageBatch(r -> {
      List<software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry> entries =
          new ArrayList<>(handles.size());
      for (int i = 0; i < handles.size(); i++) {
        entries.add(software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry.builder()
            .id(Integer.toString(i)).receiptHandle(handles.get(i)).build());
      }
      r.queueUrl(url).entries(entries);
    })).thenApply(r -> {
      List<Batcher.Outcome> outcomes = nulls(handles.size());
      r.successful().forEach(s -> SqsOutboundChannel.set(outcomes, s.id(), Batcher.Outcome.OK));
      r.failed().forEach(e -> SqsOutboundChannel.set(outcomes, e.id(),
          new Batcher.Outcome(new SqsBatchEntryException(e), !Boolean.TRUE.equals(e.senderFault()))));
      return outcomes;
    });
  }

  private CompletableFuture<List<Batcher.Outcome>> visibilityBatch(List<VisibilityChange> changes) {
    return resolver.url(queue).thenCompose(url -> client.changeMessageVisibilityBatch(r -> {
      List<software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchRequestEntry> entries =
          new ArrayList<>(changes.size());
      for (int i = 0; i < changes.size(); i++) {
        entries.add(software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchRequestEntry
            .builder().id(Integer.toString(i)).receiptHandle(changes.get(i).receiptHandle())
            .visibilityTimeout(changes.get(i).seconds()).build());
      }
      r.queueUrl(url).entries(entries);
    })).thenApply(r -> {
      List<Batcher.Outcome> outcomes = nulls(changes.size());
      r.successful().forEach(s -> SqsOutboundChannel.set(outcomes, s.id(), Batcher.Outcome.OK));
      r.failed().forEach(e -> SqsOutboundChannel.set(outcomes, e.id(),
          new Batcher.Outcome(new SqsBatchEntryException(e), !Boolean.TRUE.equals(e.senderFault()))));
      return outcomes;
    });
  }

  private static List<Batcher.Outcome> nulls(int n) {
    List<Batcher.Outcome> list = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      list.add(null);
    }
    return list;
  }

  // ------------------------------------------------------------------ close

  /** Stops polling. Acks and nacks of messages already handed out are still carried out. */
  @Override
  public void close() {
    if (closed && extender == null) {
      return;
    }
    closed = true;
    onClose.run();
    ScheduledFuture<?> task = extender;
    extender = null;
    if (task != null) {
      task.cancel(false);
    }
    for (CompletableFuture<?> receive : receives) {
      receive.cancel(true);
    }
  }

  /** Closes and flushes pending deletes and visibility changes; completes when they are done. */
  CompletableFuture<Void> shutdown() {
    close();
    return CompletableFuture.allOf(deletes.close(), visibility.close());
  }
}
