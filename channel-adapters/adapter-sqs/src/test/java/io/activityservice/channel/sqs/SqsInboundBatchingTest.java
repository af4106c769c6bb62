package io.activityservice.channel.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.channel.Acknowledgement;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundHandler;
import io.activityservice.channel.InboundSettings;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchResponse;

/**
 * The inbound side's pure logic against a scripted SQS ({@link ScriptedSqs}): receives of 10, slots
 * freed on settlement, deletes grouped per received batch and within the delete linger, partial
 * delete failures retried once per failed entry.
 */
class SqsInboundBatchingTest {

  private static final ChannelUri QUEUE = ChannelUri.parse("sqs:" + ScriptedSqs.URL);

  private final ScriptedSqs sqs = new ScriptedSqs();
  private SqsChannelAdapter adapter;

  @AfterEach
  void close() {
    if (adapter != null) {
      adapter.close();
    }
  }

  private void open(int maxInFlight, Duration deleteLinger, InboundHandler handler) {
    adapter =
        new SqsChannelAdapter(
            sqs,
            SqsChannelProperties.forEndpoint(URI.create("http://sqs.fake")).toBuilder()
                .pollers(4)
                .waitTime(Duration.ofSeconds(20))
                .visibilityTimeout(Duration.ofSeconds(30))
                .maxInFlight(maxInFlight)
                .deleteLinger(deleteLinger)
                .build());
    adapter.openInbound(QUEUE, InboundSettings.strict(), handler);
  }

  private static final InboundHandler ACK_AT_ONCE = (event, ack) -> ack.ack();

  @Test
  void everyReceiveAsksForTenMessagesAndOneLongPollWaitsWhileTheQueueIsEmpty() {
    open(100, Duration.ZERO, ACK_AT_ONCE);
    await().atMost(Duration.ofSeconds(5)).until(() -> sqs.receives.size() == 1);
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(2))
        .until(() -> sqs.receives.size() == 1);
    assertThat(sqs.receives.get(0).maxNumberOfMessages()).isEqualTo(10);
    assertThat(sqs.receives.get(0).waitTimeSeconds()).isEqualTo(20);
    assertThat(sqs.receives.get(0).messageAttributeNames())
        .as("only the trace context's message attributes are read")
        .containsExactly("traceparent", "tracestate");
  }

  @Test
  void aFullAnswerAddsAConcurrentReceiveAndAPartialOneTakesItBack() {
    open(100, Duration.ZERO, ACK_AT_ONCE);
    await().atMost(Duration.ofSeconds(5)).until(() -> sqs.waitingReceives() == 1);
    sqs.offer(ScriptedSqs.messages(10));
    await().atMost(Duration.ofSeconds(5)).until(() -> sqs.waitingReceives() == 2);
    sqs.offer(ScriptedSqs.messages(3));
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(2))
        .until(() -> sqs.waitingReceives() == 1);
  }

  @Test
  void aSmallInFlightBoundAsksForNoMoreThanItHolds() {
    open(5, Duration.ZERO, ACK_AT_ONCE);
    await().atMost(Duration.ofSeconds(5)).until(() -> sqs.receives.size() == 1);
    assertThat(sqs.receives.get(0).maxNumberOfMessages()).isEqualTo(5);
  }

  @Test
  void slotsAreFreedOnSettlementNotWhenTheDeleteIsDone() {
    List<CompletableFuture<DeleteMessageBatchResponse>> heldDeletes = new CopyOnWriteArrayList<>();
    sqs.deleteScript =
        r -> {
          CompletableFuture<DeleteMessageBatchResponse> f = new CompletableFuture<>();
          heldDeletes.add(f);
          return f;
        };
    List<Acknowledgement> acks = new CopyOnWriteArrayList<>();
    open(10, Duration.ZERO, (event, ack) -> acks.add(ack));
    await().atMost(Duration.ofSeconds(5)).until(() -> sqs.receives.size() == 1);
    sqs.offer(ScriptedSqs.messages(10));
    await().atMost(Duration.ofSeconds(5)).until(() -> acks.size() == 10);
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(2))
        .until(() -> sqs.receives.size() == 1); // all 10 slots taken by unsettled messages

    try (SendCork cork = SendCork.open()) { // as when one send answer completes them: one delete
      acks.forEach(Acknowledgement::ack);
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> sqs.receives.size() == 2);
    assertThat(sqs.deletes).singleElement().satisfies(d -> assertThat(d.entries()).hasSize(10));
    assertThat(heldDeletes)
        .as("the delete has not been answered")
        .singleElement()
        .satisfies(f -> assertThat(f).isNotDone());
    heldDeletes.forEach(
        f -> f.complete(ScriptedSqs.deleteAnswer(sqs.deletes.get(0), List.of(), false)));
  }

  @Test
  void theAcksOfOneReceivedBatchLeaveInOneDelete() {
    open(100, Duration.ZERO, ACK_AT_ONCE);
    await().atMost(Duration.ofSeconds(5)).until(() -> sqs.waitingReceives() == 1);
    sqs.offer(ScriptedSqs.messages(4));
    await().atMost(Duration.ofSeconds(5)).until(() -> sqs.deletes.size() == 1);
    sqs.offer(ScriptedSqs.messages(3));
    await().atMost(Duration.ofSeconds(5)).until(() -> sqs.deletes.size() == 2);
    sqs.offer(ScriptedSqs.messages(5));
    await().atMost(Duration.ofSeconds(5)).until(() -> sqs.deletes.size() == 3);
    assertThat(sqs.deletes).extracting(d -> d.entries().size()).containsExactly(4, 3, 5);
  }

  @Test
  void acksOfSeveralBatchesShareOneDeleteWithinTheDeleteLinger() {
    open(100, Duration.ofSeconds(1), ACK_AT_ONCE);
    await().atMost(Duration.ofSeconds(5)).until(() -> sqs.waitingReceives() == 1);
    List<String> handles = new CopyOnWriteArrayList<>();
    for (int i = 0; i < 3; i++) {
      var batch = ScriptedSqs.messages(3);
      batch.forEach(m -> handles.add(m.receiptHandle()));
      sqs.offer(batch);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> sqs.deletes.size() == 1);
    assertThat(sqs.deletedHandles()).containsExactlyInAnyOrderElementsOf(handles);

    var full = ScriptedSqs.messages(10); // a full delete does not wait for the linger
    sqs.offer(full);
    await().atMost(Duration.ofMillis(900)).until(() -> sqs.deletes.size() == 2);
    assertThat(sqs.deletes.get(1).entries())
        .extracting(DeleteMessageBatchRequestEntry::receiptHandle)
        .containsExactlyInAnyOrderElementsOf(full.stream().map(m -> m.receiptHandle()).toList());
  }

  @Test
  void failedEntriesOfADeleteAreRetriedAloneAndSenderFaultsAreNot() {
    sqs.deleteScript =
        r ->
            CompletableFuture.completedFuture(
                sqs.deletes.size() == 1
                    ? ScriptedSqs.deleteAnswer(r, List.of("1", "3"), false)
                    : ScriptedSqs.deleteAllOk(r).join());
    open(100, Duration.ZERO, ACK_AT_ONCE);
    await().atMost(Duration.ofSeconds(5)).until(() -> sqs.waitingReceives() == 1);
    var batch = ScriptedSqs.messages(5);
    sqs.offer(batch);
    await().atMost(Duration.ofSeconds(10)).until(() -> sqs.deletes.size() == 2);
    assertThat(sqs.deletes.get(1).entries())
        .extracting(DeleteMessageBatchRequestEntry::receiptHandle)
        .containsExactly(batch.get(1).receiptHandle(), batch.get(3).receiptHandle());
    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(2))
        .until(() -> sqs.deletes.size() == 2);

    sqs.deleteScript =
        r -> CompletableFuture.completedFuture(ScriptedSqs.deleteAnswer(r, List.of("0"), true));
    sqs.offer(ScriptedSqs.messages(2));
    await().atMost(Duration.ofSeconds(5)).until(() -> sqs.deletes.size() == 3);
    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(2))
        .until(() -> sqs.deletes.size() == 3);
  }

  @Test
  void nacksOfOneBatchLeaveInOneVisibilityChange() {
    open(100, Duration.ZERO, (event, ack) -> ack.nack(new IllegalStateException("not now")));
    await().atMost(Duration.ofSeconds(5)).until(() -> sqs.waitingReceives() == 1);
    sqs.offer(ScriptedSqs.messages(6));
    await().atMost(Duration.ofSeconds(5)).until(() -> sqs.visibilityChanges.size() == 1);
    assertThat(sqs.visibilityChanges.get(0).entries())
        .hasSize(6)
        .allSatisfy(
            e ->
                assertThat(e.visibilityTimeout())
                    .isBetween(0, 1)); // first nack: 1 s ceiling, full jitter
    assertThat(sqs.deletes).isEmpty();
  }
}
