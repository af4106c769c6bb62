package io.activityservice.channel.stream;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.OutboundEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.cloud.stream.binder.Binding;
import org.springframework.integration.channel.DirectChannel;
import org.springframework.kafka.core.ProducerFactory;
import org.springframework.messaging.MessageChannel;

/**
 * One {@code kafka:<topic>} destination, bound as a producer through the binder, sending
 * asynchronously: the record goes to the binder's own producer (the one its producer factory made
 * for this binding, see {@link ProducerCapture}) with a callback, and the {@code send} future
 * completes on that callback, when Kafka acknowledged the record or the producer gave up on it
 * (after {@code delivery.timeout.ms}, the send timeout). No thread waits for an acknowledgement, so
 * as many records are in flight as {@code max-in-flight} allows and the producer batches them.
 *
 * <p>Records are handed to the producer by the channel's {@link SendLane} (never on the caller's
 * thread, since {@code KafkaProducer.send} may block for metadata or buffer space), in send order.
 * The binding is made on the lane on the first send. The record is the event's shared {@link
 * KafkaCloudEventCodec#BINARY} encoding, keyed by the send's partition key (no key: the producer's
 * partitioner spreads the records).
 */
final class StreamOutboundChannel implements OutboundChannel {

  private static final Logger log = LoggerFactory.getLogger(StreamOutboundChannel.class);

  private final ChannelUri uri;
  private final String topic;
  private final SendLane lane;
  private final Function<MessageChannel, Binding<MessageChannel>> bind;
  private final ProducerCapture capture;
  private final AtomicInteger adapterInFlight;
  private final int maxInFlight;
  private final Duration closeTimeout;
  private final DirectChannel channel = new DirectChannel();
  private final Set<CompletableFuture<Void>> inFlight = ConcurrentHashMap.newKeySet();
  private final Runnable onClose;

  /** Used by the lane's thread only (and by close, after the lane's tasks are done). */
  private Binding<MessageChannel> binding;

  private Producer<byte[], byte[]> producer;
  private volatile boolean closed;

  StreamOutboundChannel(
      ChannelUri uri,
      SendLane lane,
      Function<MessageChannel, Binding<MessageChannel>> bind,
      ProducerCapture capture,
      AtomicInteger adapterInFlight,
      int maxInFlight,
      Duration closeTimeout,
      Runnable onClose) {
    this.uri = uri;
    this.topic = uri.address();
    this.lane = lane;
    this.bind = bind;
    this.capture = capture;
    this.adapterInFlight = adapterInFlight;
    this.maxInFlight = maxInFlight;
    this.closeTimeout = closeTimeout;
    this.onClose = onClose;
    channel.setBeanName("activity-kafka-out:" + uri.address());
  }

  @Override
  public ChannelUri uri() {
    return uri;
  }

  @Override
  public CompletableFuture<Void> send(OutboundEvent event) {
    if (closed) {
      return CompletableFuture.failedFuture(
          new IllegalStateException("channel " + uri + " is closed"));
    }
    CompletableFuture<Void> result = new CompletableFuture<>();
    ProducerRecord<byte[], byte[]> record;
    try {
      record =
          toRecord(
              event.encoded(KafkaCloudEventCodec.wireFormat(event.format())), event.partitionKey());
    } catch (RuntimeException e) {
      result.completeExceptionally(e);
      return result;
    }
    if (adapterInFlight.incrementAndGet() > maxInFlight) {
      adapterInFlight.decrementAndGet();
      result.completeExceptionally(
          new RejectedExecutionException(
              "too many Kafka sends in flight;"
                  + " retry later or raise activity.channels.kafka.max-in-flight"));
      return result;
    }
    inFlight.add(result);
    result.whenComplete(
        (ok, error) -> {
          inFlight.remove(result);
          adapterInFlight.decrementAndGet();
        });
    if (!lane.offer(new Send(record, result))) {
      result.completeExceptionally(
          new IllegalStateException("the kafka channel adapter is closed"));
    }
    return result;
  }

  /** A record on its way to the producer. */
  private final class Send implements SendLane.Task {
    private final ProducerRecord<byte[], byte[]> record;
    private final CompletableFuture<Void> result;

    Send(ProducerRecord<byte[], byte[]> record, CompletableFuture<Void> result) {
      this.record = record;
      this.result = result;
    }

    @Override
    public void run() {
      if (result.isDone()) {
        return;
      }
      try {
        Producer<byte[], byte[]> p = producer();
        long handedOver = System.nanoTime();
        p.send(
            record,
            (metadata, error) -> {
              lane.completed(System.nanoTime() - handedOver);
              if (error == null) {
                result.complete(null);
              } else {
                result.completeExceptionally(error);
              }
            });
      } catch (RuntimeException e) {
        result.completeExceptionally(rootCause(e));
      }
    }

    @Override
    public void reject(Throwable reason) {
      result.completeExceptionally(reason);
    }
  }

  /** On the lane's thread: the producer of this channel's binding, binding on the first call. */
  @SuppressWarnings("unchecked")
  private Producer<byte[], byte[]> producer() {
    if (producer != null) {
      return producer;
    }
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("channel " + uri + " is closed");
      }
      ProducerFactory<?, ?> factory = capture.during(() -> binding = bind.apply(channel));
      if (factory == null) {
        throw new IllegalStateException(
            "the Kafka binder created no producer factory for "
                + uri
                + "; kafka: channels need a non-transactional Kafka binder"
                + " (no spring.cloud.stream.kafka.binder.transaction.transaction-id-prefix)");
      }
      producer = ((ProducerFactory<byte[], byte[]>) factory).createProducer();
      return producer;
    }
  }

  private ProducerRecord<byte[], byte[]> toRecord(
      KafkaCloudEventCodec.Encoded encoded, String key) {
    Map<String, byte[]> headers = encoded.headers();
    Header[] recordHeaders = new Header[headers.size()];
    int i = 0;
    for (Map.Entry<String, byte[]> h : headers.entrySet()) {
      recordHeaders[i++] = new RecordHeader(h.getKey(), h.getValue());
    }
    byte[] keyBytes = key == null ? null : key.getBytes(StandardCharsets.UTF_8);
    return new ProducerRecord<>(
        topic, null, null, keyBytes, encoded.value(), java.util.Arrays.asList(recordHeaders));
  }

  private static Throwable rootCause(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null
        && t.getCause() != t
        && (t instanceof org.springframework.messaging.MessagingException
            || t instanceof ExecutionException
            || t instanceof org.springframework.cloud.stream.binder.BinderException)) {
      t = t.getCause();
    }
    return t;
  }

  /** Waits (at most the send timeout) for accepted sends to be acknowledged, then unbinds. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new))
          .get(closeTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      log.debug("closing {} with sends still failing or pending", uri, e);
    }
    synchronized (this) {
      if (binding != null) {
        try {
          binding.unbind();
        } catch (RuntimeException e) {
          log.warn("unbinding producer of {} failed", uri, e);
        }
        binding = null;
        producer = null;
      }
    }
    onClose.run();
  }
}
