package io.activityservice.channel.sqs;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;

/**
 * Records the requests a client makes: how many of each operation, the SendMessageBatch requests
 * (entries and body bytes of each), the entries of each DeleteMessageBatch and the messages each
 * ReceiveMessage answer carried.
 */
final class RequestRecorder implements ExecutionInterceptor {

  /** One recorded batch request. */
  record Batch(int entries, long bytes) {}

  final List<Batch> sendBatches = new CopyOnWriteArrayList<>();

  /** The message bodies sent, in order. */
  final List<String> bodies = new CopyOnWriteArrayList<>();

  /** Entries of each DeleteMessageBatch, in order. */
  final List<Integer> deleteBatches = new CopyOnWriteArrayList<>();

  /** Messages in each ReceiveMessage answer (0 for a long poll that ended empty), in order. */
  final List<Integer> receivedBatches = new CopyOnWriteArrayList<>();

  private final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();

  @Override
  public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
    requests
        .computeIfAbsent(
            context.request().getClass().getSimpleName().replace("Request", ""),
            k -> new AtomicInteger())
        .incrementAndGet();
    if (context.request() instanceof SendMessageBatchRequest r) {
      long bytes =
          r.entries().stream()
              .mapToLong(e -> e.messageBody().getBytes(StandardCharsets.UTF_8).length)
              .sum();
      sendBatches.add(new Batch(r.entries().size(), bytes));
      r.entries().forEach(e -> bodies.add(e.messageBody()));
    } else if (context.request() instanceof DeleteMessageBatchRequest r) {
      deleteBatches.add(r.entries().size());
    }
  }

  @Override
  public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
    if (context.response() instanceof ReceiveMessageResponse r) {
      receivedBatches.add(r.messages().size());
    }
  }

  /** Requests of one operation sent so far, e.g. {@code "SendMessageBatch"}. */
  int requests(String operation) {
    AtomicInteger n = requests.get(operation);
    return n == null ? 0 : n.get();
  }

  /** ReceiveMessage answers that carried messages. */
  long nonEmptyReceives() {
    return receivedBatches.stream().filter(n -> n > 0).count();
  }
}
