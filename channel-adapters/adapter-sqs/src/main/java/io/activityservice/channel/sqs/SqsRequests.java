package io.activityservice.channel.sqs;

import io.activityservice.channel.TraceContext;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchResultEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchResultEntry;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResultEntry;

/**
 * The SQS requests of one queue: ReceiveMessage and the three batch requests (SendMessageBatch,
 * DeleteMessageBatch, ChangeMessageVisibilityBatch), whose answers all go through one mapper
 * ({@link #outcomes}) into one {@link Batcher.Outcome} per entry. The queue URL is resolved once
 * and then kept. Never throws: failures complete the futures exceptionally.
 */
final class SqsRequests {

  /** Batch entry ids: the entry's index in its request. */
  private static final String[] IDS = new String[Batcher.MAX_ENTRIES];

  static {
    for (int i = 0; i < IDS.length; i++) {
      IDS[i] = Integer.toString(i);
    }
  }

  /**
   * One message body (and FIFO ids) to send, with the event's trace context as message attributes
   * ({@link TraceContext#of}; empty for most events: the shared empty map).
   */
  record Outgoing(
      String body, String groupId, String deduplicationId, Map<String, String> traceContext) {}

  /** The message attributes ReceiveMessage asks for: the W3C trace context. */
  static final List<String> TRACE_ATTRIBUTES =
      List.of(TraceContext.TRACEPARENT, TraceContext.TRACESTATE);

  /**
   * The bytes SQS counts for a message attribute of type String (name, type and value) in its
   * message size limit.
   */
  static int attributeBytes(Map<String, String> attributes) {
    if (attributes.isEmpty()) {
      return 0; // most events: no iterator on the hot path
    }
    int bytes = 0;
    for (Map.Entry<String, String> a : attributes.entrySet()) {
      bytes += a.getKey().length() + STRING.length() + a.getValue().length();
    }
    return bytes;
  }

  private static final String STRING = "String";

  /** One ChangeMessageVisibility entry. */
  record VisibilityChange(String receiptHandle, int seconds) {}

  private final SqsAsyncClient client;
  private final QueueResolver resolver;
  private final String queue;
  private volatile String url;

  SqsRequests(SqsAsyncClient client, QueueResolver resolver, String queue) {
    this.client = client;
    this.resolver = resolver;
    this.queue = queue;
  }

  /** The queue's URL, resolved (and the queue created, if configured) on the first call. */
  CompletableFuture<String> url() {
    String known = url;
    if (known != null) {
      return CompletableFuture.completedFuture(known);
    }
    return resolver.url(queue).thenApply(u -> url = u);
  }

  private <R> CompletableFuture<R> withUrl(Function<String, CompletableFuture<R>> call) {
    try {
      String known = url;
      return known != null ? call.apply(known) : url().thenCompose(call);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * One long poll for up to {@code max} messages, with the receive count and the sent time (the
   * only system attributes the adapter reads) and the trace context message attributes.
   */
  CompletableFuture<ReceiveMessageResponse> receive(
      int max, int waitSeconds, int visibilitySeconds) {
    return withUrl(
        u ->
            client.receiveMessage(
                r ->
                    r.queueUrl(u)
                        .maxNumberOfMessages(max)
                        .waitTimeSeconds(waitSeconds)
                        .visibilityTimeout(visibilitySeconds)
                        .messageSystemAttributeNames(
                            MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT,
                            MessageSystemAttributeName.SENT_TIMESTAMP)
                        .messageAttributeNames(TRACE_ATTRIBUTES)));
  }

  /** SendMessageBatch of {@code items}; one outcome per item, in order. */
  CompletableFuture<List<Batcher.Outcome>> send(List<Outgoing> items) {
    return withUrl(
        u -> {
          List<SendMessageBatchRequestEntry> entries = new ArrayList<>(items.size());
          for (int i = 0; i < items.size(); i++) {
            Outgoing o = items.get(i);
            SendMessageBatchRequestEntry.Builder entry =
                SendMessageBatchRequestEntry.builder()
                    .id(IDS[i])
                    .messageBody(o.body())
                    .messageGroupId(o.groupId())
                    .messageDeduplicationId(o.deduplicationId());
            if (!o.traceContext().isEmpty()) {
              entry.messageAttributes(messageAttributes(o.traceContext()));
            }
            entries.add(entry.build());
          }
          return client
              .sendMessageBatch(r -> r.queueUrl(u).entries(entries))
              .thenApply(
                  r ->
                      outcomes(
                          items.size(),
                          r.successful(),
                          SendMessageBatchResultEntry::id,
                          r.failed()));
        });
  }

  private static Map<String, MessageAttributeValue> messageAttributes(Map<String, String> values) {
    Map<String, MessageAttributeValue> attributes = new HashMap<>(4);
    values.forEach(
        (name, value) ->
            attributes.put(
                name, MessageAttributeValue.builder().dataType(STRING).stringValue(value).build()));
    return attributes;
  }

  /** DeleteMessageBatch of the receipt handles; one outcome per handle, in order. */
  CompletableFuture<List<Batcher.Outcome>> delete(List<String> handles) {
    return withUrl(
        u -> {
          List<DeleteMessageBatchRequestEntry> entries = new ArrayList<>(handles.size());
          for (int i = 0; i < handles.size(); i++) {
            entries.add(
                DeleteMessageBatchRequestEntry.builder()
                    .id(IDS[i])
                    .receiptHandle(handles.get(i))
                    .build());
          }
          return client
              .deleteMessageBatch(r -> r.queueUrl(u).entries(entries))
              .thenApply(
                  r ->
                      outcomes(
                          handles.size(),
                          r.successful(),
                          DeleteMessageBatchResultEntry::id,
                          r.failed()));
        });
  }

  /** ChangeMessageVisibilityBatch; one outcome per change, in order. */
  CompletableFuture<List<Batcher.Outcome>> changeVisibility(List<VisibilityChange> changes) {
    return withUrl(
        u -> {
          List<ChangeMessageVisibilityBatchRequestEntry> entries = new ArrayList<>(changes.size());
          for (int i = 0; i < changes.size(); i++) {
            entries.add(
                ChangeMessageVisibilityBatchRequestEntry.builder()
                    .id(IDS[i])
                    .receiptHandle(changes.get(i).receiptHandle())
                    .visibilityTimeout(changes.get(i).seconds())
                    .build());
          }
          return client
              .changeMessageVisibilityBatch(r -> r.queueUrl(u).entries(entries))
              .thenApply(
                  r ->
                      outcomes(
                          changes.size(),
                          r.successful(),
                          ChangeMessageVisibilityBatchResultEntry::id,
                          r.failed()));
        });
  }

  /**
   * The outcome of each of the {@code size} entries of a batch request (ids {@code "0"} to {@code
   * size-1}) from its answer: the successful ones are OK; a failed one carries the error and is
   * retryable unless SQS blames the sender; an entry the answer does not mention (or an id that is
   * not ours) is a retryable failure, so it is never taken for a success.
   */
  static <S> List<Batcher.Outcome> outcomes(
      int size, List<S> successful, Function<S, String> id, List<BatchResultErrorEntry> failed) {
    Batcher.Outcome[] outcomes = new Batcher.Outcome[size];
    for (S s : successful) {
      set(outcomes, id.apply(s), Batcher.Outcome.OK);
    }
    for (BatchResultErrorEntry f : failed) {
      set(
          outcomes,
          f.id(),
          new Batcher.Outcome(
              new SqsBatchEntryException(f), !Boolean.TRUE.equals(f.senderFault())));
    }
    for (int i = 0; i < size; i++) {
      if (outcomes[i] == null) {
        outcomes[i] =
            new Batcher.Outcome(
                new IllegalStateException("SQS returned no result for entry " + i), true);
      }
    }
    return Arrays.asList(outcomes);
  }

  private static void set(Batcher.Outcome[] outcomes, String id, Batcher.Outcome outcome) {
    try {
      int i = Integer.parseInt(id);
      if (i >= 0 && i < outcomes.length) {
        outcomes[i] = outcome;
      }
    } catch (NumberFormatException ignored) {
      // Not one of ours: the entry stays without a result and counts as a retryable failure.
    }
  }
}
