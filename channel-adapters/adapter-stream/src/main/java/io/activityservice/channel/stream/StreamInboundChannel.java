package io.activityservice.channel.stream;

import io.activityservice.channel.Acknowledgement;
import io.activityservice.channel.Backoff;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundHandler;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OnceOnlyAcknowledgement;
import io.cloudevents.CloudEvent;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.cloud.stream.binder.Binding;
import org.springframework.integration.channel.DirectChannel;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageChannel;
import org.springframework.messaging.MessageHeaders;

/**
 * A consumer binding on one topic in a consumer group, with manual acknowledgement.
 *
 * <p>Records arrive on the binder's consumer thread and are handed to the handler there; the
 * handler settles them later from any thread. Per partition, {@link ContiguousAcks} releases a
 * commit (the container's {@link Acknowledgment} of the last record of the acknowledged prefix)
 * only when every earlier record was acknowledged. A nacked event stays uncommitted and is handed
 * to the handler again after the redelivery backoff, growing with each nack of that record (the
 * container's own {@code nack} re-seek works only on the consumer thread, and would re-fetch every
 * later record of the partition too). At most {@code maxUnacknowledged} events are unsettled at a
 * time; beyond that the consumer thread waits. Released commits are handed to the container in
 * batches, at most once per {@code commitInterval}.
 */
final class StreamInboundChannel implements InboundChannel {

  private static final Logger log = LoggerFactory.getLogger(StreamInboundChannel.class);

  private final ChannelUri uri;
  private final InboundSettings settings;
  private final InboundHandler handler;
  private final ScheduledExecutorService scheduler;
  private final Backoff redelivery;
  private final Semaphore permits;
  private final Runnable onClose;
  private final Map<Integer, ContiguousAcks<Acknowledgment>> partitions = new ConcurrentHashMap<>();
  private final long commitIntervalNanos;
  private final AtomicBoolean commitScheduled = new AtomicBoolean();
  private final DirectChannel input = new DirectChannel();
  private Binding<MessageChannel> binding;
  private volatile boolean closed;

  StreamInboundChannel(
      ChannelUri uri,
      InboundSettings settings,
      InboundHandler handler,
      ScheduledExecutorService scheduler,
      Backoff redelivery,
      int maxUnacknowledged,
      Duration commitInterval,
      Runnable onClose) {
    this.uri = uri;
    this.settings = settings;
    this.handler = handler;
    this.scheduler = scheduler;
    this.redelivery = redelivery;
    this.permits = new Semaphore(maxUnacknowledged);
    this.commitIntervalNanos = commitInterval.toNanos();
    this.onClose = onClose;
    input.setBeanName("activity-kafka-in:" + uri.address());
    input.subscribe(this::onMessage);
  }

  /** Binds the consumer; the binder starts its listener container. */
  StreamInboundChannel open(Function<MessageChannel, Binding<MessageChannel>> bind) {
    binding = bind.apply(input);
    return this;
  }

  @Override
  public ChannelUri uri() {
    return uri;
  }

  /** Runs on the consumer thread. Never throws: a throw would make the container retry/seek. */
  private void onMessage(Message<?> message) {
    MessageHeaders headers = message.getHeaders();
    Acknowledgment commit = headers.get(KafkaHeaders.ACKNOWLEDGMENT, Acknowledgment.class);
    Integer partition = headers.get(KafkaHeaders.RECEIVED_PARTITION, Integer.class);
    Long offset = headers.get(KafkaHeaders.OFFSET, Long.class);
    String topic = headers.get(KafkaHeaders.RECEIVED_TOPIC, String.class);
    if (commit == null || partition == null || offset == null) {
      log.error(
          "{}: record without acknowledgment/partition/offset headers; is ackMode MANUAL?", uri);
      return;
    }
    if (!acquirePermit()) {
      return; // closing: the record stays uncommitted and is redelivered to the group
    }
    ContiguousAcks<Acknowledgment> acks =
        partitions.computeIfAbsent(partition, p -> new ContiguousAcks<>());
    if (!acks.add(offset, commit)) {
      permits.release(); // re-fetched after a rebalance while still being processed here
      return;
    }
    Long timestamp = headers.get(KafkaHeaders.RECEIVED_TIMESTAMP, Long.class);
    Delivery delivery = new Delivery(acks, offset, sentAt(timestamp, headers));
    CloudEvent event;
    try {
      Object payload = message.getPayload();
      byte[] value = payload instanceof byte[] bytes ? bytes : null;
      String origin = (topic == null ? uri.address() : topic) + "-" + partition + "-" + offset;
      event =
          KafkaCloudEventCodec.decode(headers, value, origin, uri.address(), timestamp, settings);
    } catch (RuntimeException e) {
      log.warn(
          "{}: skipping record {}-{} that is not a CloudEvent: {}",
          uri,
          partition,
          offset,
          e.getMessage());
      settle(delivery);
      return;
    }
    dispatch(delivery, event);
  }

  private boolean acquirePermit() {
    try {
      while (!closed) {
        if (permits.tryAcquire(200, TimeUnit.MILLISECONDS)) {
          return true;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return false;
  }

  private void dispatch(Delivery delivery, CloudEvent event) {
    Settlement settlement = new Settlement(delivery, event);
    try {
      handler.onEvent(event, settlement);
    } catch (RuntimeException e) {
      settlement.nack(e);
    }
  }

  private void settle(Delivery delivery) {
    permits.release();
    if (delivery.acks.ack(delivery.offset) != null && !closed) {
      scheduleCommit();
    }
  }

  /**
   * Commits in batches: the first released prefix schedules one commit of every partition's latest
   * released prefix after the commit interval, so the consumer thread commits (a broker round trip)
   * a few times a second instead of once per poll with anything new.
   */
  private void scheduleCommit() {
    if (commitIntervalNanos == 0) {
      commitReleased();
      return;
    }
    if (commitScheduled.compareAndSet(false, true)) {
      try {
        scheduler.schedule(
            () -> {
              commitScheduled.set(false);
              commitReleased();
            },
            commitIntervalNanos,
            TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        commitScheduled.set(false);
        commitReleased();
      }
    }
  }

  /**
   * Hands the latest released prefix of every partition to the container (committed on its thread).
   */
  private void commitReleased() {
    for (ContiguousAcks<Acknowledgment> acks : partitions.values()) {
      Acknowledgment commit = acks.takeCommittable();
      if (commit != null) {
        try {
          commit.acknowledge(); // queued by the container, committed on its thread (ackMode MANUAL)
        } catch (RuntimeException e) {
          log.debug(
              "{}: commit not handed to the container ({}); the records may come again",
              uri,
              e.toString());
        }
      }
    }
  }

  private void redeliver(Delivery delivery, CloudEvent event, Throwable cause) {
    if (closed) {
      return;
    }
    int attempt = ++delivery.nacks;
    Duration delay = redelivery.delay(attempt);
    log.debug(
        "{}: event {} nacked ({} time(s)), redelivering in {}",
        uri,
        event.getId(),
        attempt,
        delay,
        cause);
    try {
      scheduler.schedule(
          () -> {
            if (!closed) {
              dispatch(delivery, event);
            }
          },
          delay.toNanos(),
          TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      log.debug("{}: adapter closing, event {} left uncommitted", uri, event.getId());
    }
  }

  /**
   * The record's timestamp when it is the producer's ({@code CreateTime}: when the producer sent
   * it); a {@code LogAppendTime} (the broker's) or a missing one gives {@link
   * Acknowledgement#NO_SENT_TIME}.
   */
  static long sentAt(Long timestamp, MessageHeaders headers) {
    if (timestamp == null
        || timestamp < 0
        || !CREATE_TIME.equals(String.valueOf(headers.get(KafkaHeaders.TIMESTAMP_TYPE)))) {
      return Acknowledgement.NO_SENT_TIME;
    }
    return timestamp;
  }

  private static final String CREATE_TIME = "CREATE_TIME";

  /** One consumed record; {@code nacks} is only touched by its one current hand-out. */
  private static final class Delivery {
    final ContiguousAcks<Acknowledgment> acks;
    final long offset;
    final long sentAt;
    int nacks;

    Delivery(ContiguousAcks<Acknowledgment> acks, long offset, long sentAt) {
      this.acks = acks;
      this.offset = offset;
      this.sentAt = sentAt;
    }
  }

  /** One hand-out of an event; exactly the first ack/nack counts. */
  private final class Settlement extends OnceOnlyAcknowledgement {
    private final Delivery delivery;
    private final CloudEvent event;

    Settlement(Delivery delivery, CloudEvent event) {
      this.delivery = delivery;
      this.event = event;
    }

    @Override
    public long sentAtMillis() {
      return delivery.sentAt;
    }

    @Override
    protected void onAck() {
      settle(delivery);
    }

    @Override
    protected void onNack(Throwable cause) {
      redeliver(delivery, event, cause);
    }
  }

  /** Unbinds (stops the consumer, leaving the group); unsettled events are redelivered later. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    commitReleased(); // what was acknowledged before the close
    synchronized (this) {
      if (binding != null) {
        try {
          binding.unbind();
        } catch (RuntimeException e) {
          log.warn("unbinding consumer of {} failed", uri, e);
        }
        binding = null;
      }
    }
    onClose.run();
  }
}
