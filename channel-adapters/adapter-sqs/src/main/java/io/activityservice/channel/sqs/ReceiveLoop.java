package io.activityservice.channel.sqs;

import io.activityservice.channel.Backoff;
import io.activityservice.channel.ChannelUri;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageResponse;

/**
 * The long polls of one inbound channel, within its in-flight bound.
 *
 * <p><b>Slots.</b> At most {@code maxInFlight} received messages are unsettled at a time. Every
 * ReceiveMessage asks for a full batch ({@code batch} = 10, or {@code maxInFlight} if smaller) and
 * reserves that many slots; the slots of messages it did not return are freed with its answer, the
 * others when their message is settled ({@link #release}), not when the delete that follows is
 * done.
 *
 * <p><b>How many receives.</b> One long poll while the queue is idle or keeps up (each answer then
 * takes everything that arrived while the previous request was on the wire, so batches grow with
 * the rate); one more whenever an answer comes back full (a backlog), up to {@code maxReceives} and
 * as far as free slots allow; one fewer when an answer is partial. An empty queue costs one request
 * per {@code waitSeconds}; no timer runs. With a {@code linger} (receive-linger), a partial answer
 * while no other receive is out delays the next receive by that much, so that more messages gather
 * for it.
 *
 * <p><b>Threads.</b> The next receive is sent from the thread that delivers the answer (the SDK's
 * I/O thread), right after the messages are handed to {@code sink} (a worker), so polling never
 * waits for routing and routing does not wait for the next request to be built. After a failure no
 * receive starts until the {@link Backoff} of the consecutive failures has passed.
 */
final class ReceiveLoop {

  private static final Logger log = LoggerFactory.getLogger(ReceiveLoop.class);

  /** Delay after consecutive receive failures: 100 ms doubling up to 5 s, full jitter. */
  static final Backoff ERROR_BACKOFF = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(5));

  private final ChannelUri uri;
  private final SqsRequests requests;
  private final int batch;
  private final int maxReceives;
  private final int waitSeconds;
  private final int visibilitySeconds;
  private final long lingerNanos;
  private final ScheduledExecutorService scheduler;
  private final Consumer<List<Message>> sink;
  private final Consumer<List<Message>> afterClose;
  private final Set<CompletableFuture<?>> pendingReceives = ConcurrentHashMap.newKeySet();

  private final Object lock = new Object();
  private int freeSlots;
  private int receiving;
  private int wanted = 1;
  private int failures;
  private boolean pausedAfterFailure;
  private boolean lingering;
  private volatile boolean closed;

  /**
   * @param sink takes the messages of each non-empty answer (called on the answering thread)
   * @param afterClose takes the messages of answers that arrive after {@link #close()} (to be made
   *     visible again); their slots are released by the caller through {@link #release}
   */
  ReceiveLoop(
      ChannelUri uri,
      SqsRequests requests,
      int maxInFlight,
      int maxReceives,
      int waitSeconds,
      int visibilitySeconds,
      Duration linger,
      ScheduledExecutorService scheduler,
      Consumer<List<Message>> sink,
      Consumer<List<Message>> afterClose) {
    this.uri = uri;
    this.requests = requests;
    this.batch = Math.min(Batcher.MAX_ENTRIES, maxInFlight);
    this.maxReceives = Math.max(1, Math.min(maxReceives, maxInFlight / batch));
    this.freeSlots = maxInFlight;
    this.waitSeconds = waitSeconds;
    this.visibilitySeconds = visibilitySeconds;
    this.lingerNanos = linger.toNanos();
    this.scheduler = scheduler;
    this.sink = sink;
    this.afterClose = afterClose;
  }

  void start() {
    pump();
  }

  /** {@code n} received messages were settled: their slots are free. */
  void release(int n) {
    synchronized (lock) {
      freeSlots += n;
    }
    pump();
  }

  /** Stops polling: no new receive starts and the pending ones are cancelled. */
  void close() {
    closed = true;
    for (CompletableFuture<?> receive : pendingReceives) {
      receive.cancel(true);
    }
  }

  /** Starts as many receives as wanted and the free slots allow. */
  private void pump() {
    int start = 0;
    synchronized (lock) {
      while (!closed
          && !pausedAfterFailure
          && !lingering
          && receiving < wanted
          && freeSlots >= batch) {
        receiving++;
        freeSlots -= batch;
        start++;
      }
    }
    for (int i = 0; i < start; i++) {
      receive();
    }
  }

  private void receive() {
    CompletableFuture<ReceiveMessageResponse> receive =
        requests.receive(batch, waitSeconds, visibilitySeconds);
    pendingReceives.add(receive);
    if (closed) {
      receive.cancel(true);
    }
    receive.whenComplete(
        (response, error) -> {
          pendingReceives.remove(receive);
          received(response, error);
        });
  }

  private void received(ReceiveMessageResponse response, Throwable error) {
    if (error != null) {
      failed(error);
      return;
    }
    List<Message> messages = response.messages();
    int n = messages.size();
    boolean linger;
    synchronized (lock) {
      receiving--;
      freeSlots += batch - n;
      failures = 0;
      if (n == batch) {
        wanted = Math.min(maxReceives, wanted + 1);
      } else {
        wanted = Math.max(1, wanted - 1);
      }
      // A partial answer with no other receive out: let the next batch gather for a moment.
      linger = lingerNanos > 0 && n > 0 && n < batch && receiving == 0 && !lingering;
      lingering |= linger;
    }
    if (linger) {
      try {
        scheduler.schedule(this::lingered, lingerNanos, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        lingered();
      }
    }
    if (closed) {
      if (n > 0) {
        afterClose.accept(messages);
      }
      return;
    }
    if (n > 0) {
      sink.accept(
          messages); // hands the batch to a worker: routing starts while the next receive is built
    }
    pump();
  }

  private void failed(Throwable error) {
    long delayMillis;
    synchronized (lock) {
      receiving--;
      freeSlots += batch;
      if (closed) {
        return;
      }
      failures++;
      wanted = 1;
      pausedAfterFailure = true;
      delayMillis = Math.max(1, ERROR_BACKOFF.delay(Math.min(failures, 30)).toMillis());
    }
    log.warn(
        "receiving from {} failed, retrying in {} ms: {}",
        uri,
        delayMillis,
        SqsErrors.describe(error));
    try {
      scheduler.schedule(this::resume, delayMillis, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      closed = true; // the adapter is shutting down
    }
  }

  private void lingered() {
    synchronized (lock) {
      lingering = false;
    }
    pump();
  }

  private void resume() {
    synchronized (lock) {
      pausedAfterFailure = false;
    }
    pump();
  }
}
