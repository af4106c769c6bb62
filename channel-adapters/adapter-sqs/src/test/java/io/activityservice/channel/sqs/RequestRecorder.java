package io.activityservice.channel.sqs;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;

/** Records the SendMessageBatch requests a client makes: entries and body bytes of each. */
final class RequestRecorder implements ExecutionInterceptor {

  /** One recorded batch request. */
  record Batch(int entries, long bytes) {
  }

  final List<Batch> sendBatches = new CopyOnWriteArrayList<>();
  /** The message bodies sent, in order. */
  final List<String> bodies = new CopyOnWriteArrayList<>();

  @Override
  public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
    if (context.request() instanceof SendMessageBatchRequest r) {
      long bytes = r.entries().stream()
          .mapToLong(e -> e.messageBody().getBytes(StandardCharsets.UTF_8).length).sum();
      sendBatches.add(new Batch(r.entries().size(), bytes));
      r.entries().forEach(e -> bodies.add(e.messageBody()));
    }
  }
}
