package io.activityservice.channel.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.OutboundChannel;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResultEntry;

/**
 * The outbound batcher's pure logic against a scripted fake client: batch limits, linger, bounded
 * in-flight requests, partial-failure retries. (A real server hardly ever fails single entries.)
 */
class SqsOutboundBatchingTest {

  private static final ChannelUri QUEUE = ChannelUri.parse("sqs:http://sqs.fake/000000000000/q");

  /** Answers SendMessageBatch with whatever the test's script says. */
  static final class FakeSqs implements SqsAsyncClient {
    final List<SendMessageBatchRequest> requests = new CopyOnWriteArrayList<>();
    volatile Function<SendMessageBatchRequest, CompletableFuture<SendMessageBatchResponse>> script =
        FakeSqs::allOk;

    @Override
    public CompletableFuture<SendMessageBatchResponse> sendMessageBatch(
        SendMessageBatchRequest request) {
      requests.add(request);
      return script.apply(request);
    }

    static CompletableFuture<SendMessageBatchResponse> allOk(SendMessageBatchRequest request) {
      return CompletableFuture.completedFuture(respond(request, List.of(), false));
    }

    static SendMessageBatchResponse respond(
        SendMessageBatchRequest request, List<String> failIds, boolean senderFault) {
      List<SendMessageBatchResultEntry> ok = new ArrayList<>();
      List<BatchResultErrorEntry> failed = new ArrayList<>();
      request
          .entries()
          .forEach(
              e -> {
                if (failIds.contains(e.id())) {
                  failed.add(
                      BatchResultErrorEntry.builder()
                          .id(e.id())
                          .code(senderFault ? "InvalidMessageContents" : "InternalError")
                          .message("scripted")
                          .senderFault(senderFault)
                          .build());
                } else {
                  ok.add(
                      SendMessageBatchResultEntry.builder()
                          .id(e.id())
                          .messageId(UUID.randomUUID().toString())
                          .build());
                }
              });
      return SendMessageBatchResponse.builder().successful(ok).failed(failed).build();
    }

    @Override
    public String serviceName() {
      return "sqs";
    }

    @Override
    public void close() {}
  }

  private final FakeSqs fake = new FakeSqs();
  private SqsChannelAdapter adapter;

  @AfterEach
  void close() {
    if (adapter != null) {
      adapter.close();
    }
  }

  /** A channel with the fixed policy: batches of 10 or the linger, whichever first. */
  private OutboundChannel open(Duration linger, int maxRequests, int maxBytes) {
    return open(linger, maxRequests, maxBytes, SqsChannelProperties.FIXED);
  }

  private OutboundChannel open(Duration linger, int maxRequests, int maxBytes, String batching) {
    adapter =
        new SqsChannelAdapter(
            fake,
            SqsChannelProperties.forEndpoint(URI.create("http://sqs.fake")).toBuilder()
                .batchLinger(linger)
                .maxBatchRequestsInFlight(maxRequests)
                .maxBatchBytes(maxBytes)
                .batching(batching)
                .batchSize(10)
                .build());
    return adapter.openOutbound(QUEUE);
  }

  /** A script that holds every response until the test completes it. */
  private List<CompletableFuture<SendMessageBatchResponse>> holdResponses(
      List<SendMessageBatchRequest> requests) {
    List<CompletableFuture<SendMessageBatchResponse>> held = new CopyOnWriteArrayList<>();
    fake.script =
        r -> {
          CompletableFuture<SendMessageBatchResponse> f = new CompletableFuture<>();
          held.add(f);
          requests.add(r);
          return f;
        };
    return held;
  }

  @Test
  void adaptiveBatchingSendsALoneEventAtOnceDespiteALongLinger() {
    OutboundChannel out =
        open(
            Duration.ofSeconds(1),
            8,
            SqsChannelProperties.SQS_MAX_BATCH_BYTES,
            SqsChannelProperties.ADAPTIVE);
    CompletableFuture<Void> send = out.send(event(10));
    assertThat(fake.requests).as("sent on the caller's thread, no linger").hasSize(1);
    awaitAll(List.of(send));
  }

  @Test
  void adaptiveBatchingSendsFullBatchesWhileTheRequestSlotsAreBusy() {
    List<SendMessageBatchRequest> requests = new CopyOnWriteArrayList<>();
    List<CompletableFuture<SendMessageBatchResponse>> held = holdResponses(requests);
    OutboundChannel out =
        open(
            Duration.ofSeconds(1),
            1,
            SqsChannelProperties.SQS_MAX_BATCH_BYTES,
            SqsChannelProperties.ADAPTIVE);
    List<CompletableFuture<Void>> sends = new ArrayList<>(send(out, 1, 10));
    assertThat(requests).hasSize(1);
    sends.addAll(send(out, 25, 10)); // the only slot is busy: these queue up
    assertThat(requests).hasSize(1);
    fake.script = FakeSqs::allOk;
    held.get(0).complete(FakeSqs.respond(requests.get(0), List.of(), false));
    awaitAll(sends);
    assertThat(fake.requests).extracting(r -> r.entries().size()).containsExactly(1, 10, 10, 5);
  }

  @Test
  void adaptiveBatchingLetsAClumpRideBehindTheRequestOnTheWireInsteadOfTakingFreeSlots() {
    List<SendMessageBatchRequest> requests = new CopyOnWriteArrayList<>();
    List<CompletableFuture<SendMessageBatchResponse>> held = holdResponses(requests);
    OutboundChannel out =
        open(
            Duration.ofSeconds(1),
            8,
            SqsChannelProperties.SQS_MAX_BATCH_BYTES,
            SqsChannelProperties.ADAPTIVE);
    List<CompletableFuture<Void>> sends = new ArrayList<>(send(out, 1, 10));
    sends.addAll(
        send(out, 6, 10)); // a clump, as the events of one SQS receive, while 7 slots are free
    assertThat(requests).as("the clump waits for the request on the wire").hasSize(1);
    fake.script = FakeSqs::allOk;
    held.get(0).complete(FakeSqs.respond(requests.get(0), List.of(), false));
    awaitAll(sends);
    assertThat(fake.requests).extracting(r -> r.entries().size()).containsExactly(1, 6);
  }

  @Test
  void aGroupSentUnderACorkLeavesInOneRequestWhenTheCorkCloses() {
    OutboundChannel out =
        open(
            Duration.ZERO,
            8,
            SqsChannelProperties.SQS_MAX_BATCH_BYTES,
            SqsChannelProperties.ADAPTIVE);
    List<CompletableFuture<Void>> sends;
    try (SendCork cork = SendCork.open()) {
      sends = send(out, 7, 10);
      assertThat(fake.requests).as("nothing leaves while the group forms").isEmpty();
    }
    assertThat(fake.requests).extracting(r -> r.entries().size()).containsExactly(7);
    awaitAll(sends);
  }

  @Test
  void underACorkFullBatchesStillGoAtOnce() {
    OutboundChannel out =
        open(
            Duration.ZERO,
            8,
            SqsChannelProperties.SQS_MAX_BATCH_BYTES,
            SqsChannelProperties.ADAPTIVE);
    List<CompletableFuture<Void>> sends;
    try (SendCork cork = SendCork.open()) {
      sends = send(out, 23, 10);
      assertThat(fake.requests).extracting(r -> r.entries().size()).containsExactly(10, 10);
      try (SendCork nested = SendCork.open()) {
        sends.addAll(send(out, 2, 10));
      }
      assertThat(fake.requests).as("a nested cork releases nothing").hasSize(2);
    }
    assertThat(fake.requests).extracting(r -> r.entries().size()).containsExactly(10, 10, 5);
    awaitAll(sends);
  }

  private static CloudEvent event(int dataBytes) {
    return CloudEventBuilder.v1()
        .withId(UUID.randomUUID().toString())
        .withSource(URI.create("/t"))
        .withType("t")
        .withData("text/plain", "x".repeat(dataBytes).getBytes(StandardCharsets.UTF_8))
        .build();
  }

  private static List<CompletableFuture<Void>> send(OutboundChannel out, int n, int dataBytes) {
    List<CompletableFuture<Void>> sends = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      sends.add(out.send(event(dataBytes)));
    }
    return sends;
  }

  private static void awaitAll(List<CompletableFuture<Void>> sends) {
    CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new))
        .orTimeout(10, java.util.concurrent.TimeUnit.SECONDS)
        .join();
  }

  @Test
  void fullBatchesGoAtOnceAndTheRestAfterTheLinger() {
    OutboundChannel out = open(Duration.ofMillis(300), 8, SqsChannelProperties.SQS_MAX_BATCH_BYTES);
    List<CompletableFuture<Void>> sends = send(out, 25, 10);
    assertThat(fake.requests).extracting(r -> r.entries().size()).containsExactly(10, 10);
    awaitAll(sends);
    assertThat(fake.requests).extracting(r -> r.entries().size()).containsExactly(10, 10, 5);
  }

  @Test
  void batchesAreSplitByBytes() {
    OutboundChannel out = open(Duration.ofMillis(5), 8, 10_000);
    awaitAll(send(out, 9, 3_000));
    assertThat(fake.requests)
        .allSatisfy(
            r -> {
              assertThat(
                      r.entries().stream()
                          .mapToInt(e -> e.messageBody().getBytes(StandardCharsets.UTF_8).length)
                          .sum())
                  .isLessThanOrEqualTo(10_000);
              assertThat(r.entries()).hasSizeLessThanOrEqualTo(3);
            });
    assertThat(fake.requests.stream().mapToInt(r -> r.entries().size()).sum()).isEqualTo(9);
  }

  @Test
  void inFlightBatchRequestsAreBounded() {
    List<CompletableFuture<SendMessageBatchResponse>> held = new CopyOnWriteArrayList<>();
    List<SendMessageBatchRequest> heldRequests = new CopyOnWriteArrayList<>();
    fake.script =
        r -> {
          CompletableFuture<SendMessageBatchResponse> f = new CompletableFuture<>();
          held.add(f);
          heldRequests.add(r);
          return f;
        };
    // A long linger: batches form by size only (50 events = 5 full batches), whatever the machine's
    // speed.
    OutboundChannel out = open(Duration.ofSeconds(1), 2, SqsChannelProperties.SQS_MAX_BATCH_BYTES);
    List<CompletableFuture<Void>> sends = send(out, 50, 10);
    assertThat(fake.requests).hasSize(2);
    fake.script = FakeSqs::allOk;
    for (int i = 0; i < held.size(); i++) {
      held.get(i).complete(FakeSqs.respond(heldRequests.get(i), List.of(), false));
    }
    awaitAll(sends);
    assertThat(fake.requests).hasSize(5);
  }

  @Test
  void failedEntriesOfAPartialBatchAreRetried() {
    fake.script =
        r ->
            CompletableFuture.completedFuture(
                FakeSqs.respond(
                    r, fake.requests.size() == 1 ? List.of("1", "3") : List.of(), false));
    OutboundChannel out = open(Duration.ofSeconds(1), 8, SqsChannelProperties.SQS_MAX_BATCH_BYTES);
    List<CompletableFuture<Void>> sends = send(out, 10, 10);
    awaitAll(sends);
    assertThat(fake.requests).hasSize(2);
    assertThat(fake.requests.get(1).entries()).hasSize(2);
  }

  @Test
  void entriesFailAfterTheLastAttempt() {
    fake.script = r -> CompletableFuture.completedFuture(FakeSqs.respond(r, List.of("0"), false));
    OutboundChannel out = open(Duration.ofMillis(5), 8, SqsChannelProperties.SQS_MAX_BATCH_BYTES);
    CompletableFuture<Void> send = out.send(event(10));
    await().atMost(Duration.ofSeconds(10)).until(send::isDone);
    assertThat(send).isCompletedExceptionally();
    assertThat(send)
        .failsWithin(Duration.ZERO)
        .withThrowableThat()
        .withMessageContaining("InternalError");
    assertThat(fake.requests).hasSize(4);
  }

  @Test
  void senderFaultsAreNotRetried() {
    fake.script = r -> CompletableFuture.completedFuture(FakeSqs.respond(r, List.of("0"), true));
    OutboundChannel out = open(Duration.ofMillis(5), 8, SqsChannelProperties.SQS_MAX_BATCH_BYTES);
    assertThat(out.send(event(10)))
        .failsWithin(Duration.ofSeconds(5))
        .withThrowableThat()
        .withMessageContaining("InvalidMessageContents");
    assertThat(fake.requests).hasSize(1);
  }

  @Test
  void aFailedRequestIsRetriedAsAWhole() {
    fake.script =
        r ->
            fake.requests.size() == 1
                ? CompletableFuture.failedFuture(SdkClientException.create("connection reset"))
                : FakeSqs.allOk(r);
    OutboundChannel out = open(Duration.ofSeconds(1), 8, SqsChannelProperties.SQS_MAX_BATCH_BYTES);
    awaitAll(send(out, 3, 10));
    assertThat(fake.requests).hasSize(2);
  }

  @Test
  void closeFlushesWithoutWaitingForTheLinger() {
    OutboundChannel out = open(Duration.ofSeconds(1), 8, SqsChannelProperties.SQS_MAX_BATCH_BYTES);
    List<CompletableFuture<Void>> sends = send(out, 3, 10);
    assertThat(fake.requests).isEmpty();
    out.close();
    awaitAll(sends);
    assertThat(out.send(event(1))).failsWithin(Duration.ofSeconds(1));
  }
}
