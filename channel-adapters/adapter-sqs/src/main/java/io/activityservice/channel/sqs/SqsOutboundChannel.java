package io.activityservice.channel.sqs;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.DeliveryFormat;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.OutboundEvent;
import io.activityservice.channel.PlainMessages;
import io.activityservice.channel.TraceContext;
import io.activityservice.channel.WireFormat;
import io.activityservice.channel.batching.BatchPolicy;
import io.cloudevents.CloudEvent;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.regex.Pattern;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;

/**
 * Sends events as structured-mode CloudEvent JSON bodies (the shared {@link
 * CloudEventJson#STRUCTURED} encoding, never encoded again here) through a {@link Batcher} of
 * SendMessageBatch requests, batched by the configured {@link BatchPolicy}; events routed from one
 * received SQS batch leave together (see {@link SendCork}). FIFO queues get the event's partition
 * key as message group ({@value #UNKEYED_GROUP} for events without one) and a hash of source and id
 * as deduplication id; standard queues ignore partition keys.
 */
final class SqsOutboundChannel implements OutboundChannel {

  /** Message group of events without a partition key on FIFO queues. */
  static final String UNKEYED_GROUP = "default";

  /** The FIFO deduplication id of an event: SHA-256 of source and id, computed once per event. */
  static final WireFormat<String> DEDUPLICATION_ID =
      event -> sha256(event.getSource() + "\n" + event.getId());

  /** Characters SQS accepts in a message group id: letters, digits and ASCII punctuation. */
  private static final Pattern GROUP_ID = Pattern.compile("[\\x21-\\x7E]{1,128}");

  private final ChannelUri uri;
  private final boolean fifo;
  private final long maxBytes;
  private final Batcher<SqsRequests.Outgoing> batcher;
  private final Runnable onClose;

  SqsOutboundChannel(
      ChannelUri uri,
      String queue,
      SqsAsyncClient client,
      QueueResolver resolver,
      Batcher.Limits limits,
      BatchPolicy policy,
      ScheduledExecutorService scheduler,
      Runnable onClose) {
    this.uri = uri;
    this.fifo = SqsQueues.isFifo(queue);
    this.maxBytes = limits.maxBatchBytes();
    this.onClose = onClose;
    this.batcher =
        new Batcher<>(
            "sqs outbound " + uri,
            limits,
            policy,
            new SqsRequests(client, resolver, queue)::send,
            SqsErrors::isRetryable,
            scheduler);
  }

  @Override
  public ChannelUri uri() {
    return uri;
  }

  @Override
  public CompletableFuture<Void> send(OutboundEvent outbound) {
    try {
      CloudEvent event = outbound.event();
      boolean dataOnly = outbound.format() == DeliveryFormat.DATA;
      byte[] json =
          dataOnly
              ? outbound.encoded(DeliveryFormat.DATA_BYTES)
              : outbound.encoded(CloudEventJson.STRUCTURED);
      if (dataOnly && !PlainMessages.isUtf8(json)) {
        return CompletableFuture.failedFuture(
            new IllegalArgumentException(
                "event "
                    + event.getId()
                    + " has data that is not UTF-8 text; an SQS body must be text, so format"
                    + " \"data\" cannot carry it (deliver it structured, or transform it to text)"));
      }
      // The trace context also travels as message attributes (the distributed-tracing extension's
      // SQS binding), for consumers that read it there; the structured body keeps it too. Two of
      // the ten attributes SQS allows; the adapter sends no others.
      Map<String, String> traceContext = TraceContext.of(event);
      long size = json.length + SqsRequests.attributeBytes(traceContext);
      if (size > maxBytes) {
        return CompletableFuture.failedFuture(
            new IllegalArgumentException(
                "event "
                    + event.getId()
                    + " is "
                    + size
                    + (dataOnly ? " bytes of data" : " bytes as CloudEvent JSON")
                    + (traceContext.isEmpty() ? "" : " and trace context attributes")
                    + "; SQS channel "
                    + uri
                    + " accepts at most "
                    + maxBytes
                    + " bytes per message (send large data by reference)"));
      }
      String body = new String(json, StandardCharsets.UTF_8);
      SqsRequests.Outgoing out =
          fifo
              ? new SqsRequests.Outgoing(
                  body,
                  groupOf(outbound.partitionKey()),
                  outbound.encoded(DEDUPLICATION_ID),
                  traceContext)
              : new SqsRequests.Outgoing(body, null, null, traceContext);
      return batcher.submit(out, size);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Sends what is buffered now; completes when every accepted send has been settled. */
  CompletableFuture<Void> closeAsync() {
    onClose.run();
    return batcher.close();
  }

  @Override
  public void close() {
    closeAsync();
  }

  /** The message group of a key: the key itself if SQS accepts it, else its SHA-256. */
  static String groupOf(String partitionKey) {
    if (partitionKey == null) {
      return UNKEYED_GROUP;
    }
    return GROUP_ID.matcher(partitionKey).matches() ? partitionKey : sha256(partitionKey);
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
