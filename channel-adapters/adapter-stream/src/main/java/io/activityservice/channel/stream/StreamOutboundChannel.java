package io.activityservice.channel.stream;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.OutboundEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.cloud.stream.binder.Binding;
import org.springframework.integration.channel.DirectChannel;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageChannel;
import org.springframework.messaging.support.MessageBuilder;

/**
 * One {@code kafka:<topic>} destination: a {@link DirectChannel} bound as a producer through the
 * binder with {@code sync=true}, so the binder's handler returns only once Kafka acknowledged the
 * record (or throws). That wait happens on the adapter's bounded send executor, never on the
 * caller's thread. The binding is created on the first send, also on that executor.
 *
 * <p>The record is the event's shared {@link KafkaCloudEventCodec#BINARY} encoding, keyed by the
 * send's partition key (no key: the producer's partitioner spreads the records).
 */
final class StreamOutboundChannel implements OutboundChannel {

  private static final Logger log = LoggerFactory.getLogger(StreamOutboundChannel.class);

  private final ChannelUri uri;
  private final Executor executor;
  private final Function<MessageChannel, Binding<MessageChannel>> bind;
  private final Duration closeTimeout;
  private final DirectChannel channel = new DirectChannel();
  private final Set<CompletableFuture<Void>> inFlight = ConcurrentHashMap.newKeySet();
  private final Runnable onClose;
  private Binding<MessageChannel> binding;
  private volatile boolean closed;

  StreamOutboundChannel(ChannelUri uri, Executor executor,
      Function<MessageChannel, Binding<MessageChannel>> bind, Duration closeTimeout, Runnable onClose) {
    this.uri = uri;
    this.executor = executor;
    this.bind = bind;
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
      return CompletableFuture.failedFuture(new IllegalStateException("channel " + uri + " is closed"));
    }
    CompletableFuture<Void> result = new CompletableFuture<>();
    try {
      Message<byte[]> message = toMessage(event.encoded(KafkaCloudEventCodec.BINARY), event.partitionKey());
      inFlight.add(result);
      result.whenComplete((ok, error) -> inFlight.remove(result));
      executor.execute(() -> deliver(message, result));
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(new RejectedExecutionException("too many Kafka sends in flight;"
          + " retry later or raise activity.channels.kafka.max-in-flight", e));
    } catch (RuntimeException e) {
      result.completeExceptionally(e);
    }
    return result;
  }

  private void deliver(Message<byte[]> message, CompletableFuture<Void> result) {
    try {
      ensureBound();
      // sync=true: returns when Kafka acknowledged the record, throws when it failed/timed out.
      channel.send(message);
      result.complete(null);
    } catch (RuntimeException e) {
      result.completeExceptionally(rootCause(e));
    }
  }

  private synchronized void ensureBound() {
    if (closed) {
      throw new IllegalStateException("channel " + uri + " is closed");
    }
    if (binding == null) {
      binding = bind.apply(channel);
    }
  }

  private static Message<byte[]> toMessage(KafkaCloudEventCodec.Encoded record, String key) {
    MessageBuilder<byte[]> builder = MessageBuilder.withPayload(record.value());
    record.headers().forEach(builder::setHeader);
    if (key != null) {
      builder.setHeader(KafkaHeaders.KEY, key.getBytes(StandardCharsets.UTF_8));
    }
    return builder.build();
  }

  private static Throwable rootCause(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t
        && (t instanceof org.springframework.messaging.MessagingException || t instanceof ExecutionException)) {
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
      }
    }
    onClose.run();
  }
}
