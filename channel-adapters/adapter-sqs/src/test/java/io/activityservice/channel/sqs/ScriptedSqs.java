package io.activityservice.channel.sqs;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Function;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchRequest;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchResponse;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchResultEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchResultEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageRequest;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageResponse;

/**
 * A scripted SQS for the inbound side's pure logic: receives answer with the batches the test
 * offers ({@link #offer}), or wait (a long poll) until one is offered; deletes and visibility
 * changes answer with what {@link #deleteScript} says (all OK by default). Every request is
 * recorded. A real server hardly ever fails single entries or holds a delete, which is what these
 * tests need.
 */
final class ScriptedSqs implements SqsAsyncClient {

  static final String URL = "http://sqs.fake/000000000000/in";

  final List<ReceiveMessageRequest> receives = new CopyOnWriteArrayList<>();
  final List<DeleteMessageBatchRequest> deletes = new CopyOnWriteArrayList<>();
  final List<ChangeMessageVisibilityBatchRequest> visibilityChanges = new CopyOnWriteArrayList<>();
  private final BlockingQueue<List<Message>> offered = new LinkedBlockingQueue<>();
  private final List<CompletableFuture<ReceiveMessageResponse>> waiting =
      new CopyOnWriteArrayList<>();
  volatile Function<DeleteMessageBatchRequest, CompletableFuture<DeleteMessageBatchResponse>>
      deleteScript = ScriptedSqs::deleteAllOk;

  /** The next receive (waiting or to come) answers with these messages. */
  synchronized void offer(List<Message> batch) {
    for (CompletableFuture<ReceiveMessageResponse> w : waiting) {
      waiting.remove(w);
      if (w.complete(ReceiveMessageResponse.builder().messages(batch).build())) {
        return;
      }
    }
    offered.add(batch);
  }

  /** {@code n} structured CloudEvent messages with fresh ids and receipt handles. */
  static List<Message> messages(int n) {
    List<Message> batch = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      String id = UUID.randomUUID().toString();
      batch.add(
          Message.builder()
              .messageId(id)
              .receiptHandle("rh-" + id)
              .attributesWithStrings(java.util.Map.of("ApproximateReceiveCount", "1"))
              .body(
                  "{\"specversion\":\"1.0\",\"id\":\""
                      + id
                      + "\",\"source\":\"/t\",\"type\":\"t\"}")
              .build());
    }
    return batch;
  }

  /** Receives sent that have not been answered (long polls waiting). */
  int waitingReceives() {
    return waiting.size();
  }

  @Override
  public synchronized CompletableFuture<ReceiveMessageResponse> receiveMessage(
      ReceiveMessageRequest request) {
    receives.add(request);
    List<Message> batch = offered.poll();
    if (batch != null) {
      return CompletableFuture.completedFuture(
          ReceiveMessageResponse.builder().messages(batch).build());
    }
    CompletableFuture<ReceiveMessageResponse> poll = new CompletableFuture<>();
    waiting.add(poll);
    return poll;
  }

  @Override
  public CompletableFuture<DeleteMessageBatchResponse> deleteMessageBatch(
      DeleteMessageBatchRequest request) {
    deletes.add(request);
    return deleteScript.apply(request);
  }

  static CompletableFuture<DeleteMessageBatchResponse> deleteAllOk(
      DeleteMessageBatchRequest request) {
    return CompletableFuture.completedFuture(deleteAnswer(request, List.of(), false));
  }

  /**
   * An answer that fails the entries with {@code failIds} (sender's fault or not) and accepts the
   * others.
   */
  static DeleteMessageBatchResponse deleteAnswer(
      DeleteMessageBatchRequest request, List<String> failIds, boolean senderFault) {
    List<DeleteMessageBatchResultEntry> ok = new ArrayList<>();
    List<BatchResultErrorEntry> failed = new ArrayList<>();
    request
        .entries()
        .forEach(
            e -> {
              if (failIds.contains(e.id())) {
                failed.add(
                    BatchResultErrorEntry.builder()
                        .id(e.id())
                        .code(senderFault ? "ReceiptHandleIsInvalid" : "InternalError")
                        .message("scripted")
                        .senderFault(senderFault)
                        .build());
              } else {
                ok.add(DeleteMessageBatchResultEntry.builder().id(e.id()).build());
              }
            });
    return DeleteMessageBatchResponse.builder().successful(ok).failed(failed).build();
  }

  @Override
  public CompletableFuture<ChangeMessageVisibilityBatchResponse> changeMessageVisibilityBatch(
      ChangeMessageVisibilityBatchRequest request) {
    visibilityChanges.add(request);
    return CompletableFuture.completedFuture(
        ChangeMessageVisibilityBatchResponse.builder()
            .successful(
                request.entries().stream()
                    .map(e -> ChangeMessageVisibilityBatchResultEntry.builder().id(e.id()).build())
                    .toList())
            .build());
  }

  /** Receipt handles of every delete entry sent, in order. */
  List<String> deletedHandles() {
    return deletes.stream().flatMap(d -> d.entries().stream()).map(e -> e.receiptHandle()).toList();
  }

  @Override
  public String serviceName() {
    return "sqs";
  }

  @Override
  public void close() {}
}
