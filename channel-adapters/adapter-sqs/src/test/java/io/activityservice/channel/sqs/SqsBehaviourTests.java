package io.activityservice.channel.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.channel.Acknowledgement;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.OutboundEvent;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * SQS-specific behaviour on a real server: batch splitting, linger, plain bodies, visibility
 * extension. Subclasses supply the server.
 */
abstract class SqsBehaviourTests {

  private final List<AutoCloseable> opened = new ArrayList<>();

  /** Settings for the server under test (endpoint, limits). */
  protected abstract SqsChannelProperties properties();

  @AfterEach
  void closeOpened() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
    opened.clear();
  }

  private <T extends AutoCloseable> T track(T c) {
    opened.add(c);
    return c;
  }

  private SqsChannelAdapter adapter(SqsChannelProperties p, RequestRecorder recorder) {
    SqsAsyncClient client =
        track(
            SqsClients.builder(p)
                .overrideConfiguration(c -> c.addExecutionInterceptor(recorder))
                .build());
    return track(new SqsChannelAdapter(client, p));
  }

  private static ChannelUri fresh(String prefix) {
    return ChannelUri.parse("sqs:" + prefix + "-" + UUID.randomUUID());
  }

  private static CloudEvent event(int n, int dataBytes) {
    String data = "{\"n\":" + n + ",\"pad\":\"" + "x".repeat(Math.max(0, dataBytes - 20)) + "\"}";
    return CloudEventBuilder.v1()
        .withId(UUID.randomUUID().toString())
        .withSource(URI.create("/sqs/test"))
        .withType("com.example.sqs.test")
        .withData("application/json", data.getBytes(StandardCharsets.UTF_8))
        .build();
  }

  @Test
  void bigEventsAreSplitIntoSeveralBatchesAndAllDelivered() {
    SqsChannelProperties p =
        properties().toBuilder()
            .batchLinger(Duration.ofMillis(50))
            .maxBatchRequestsInFlight(8)
            .maxBatchBytes(properties().maxBatchBytes())
            .build();
    RequestRecorder recorder = new RequestRecorder();
    SqsChannelAdapter adapter = adapter(p, recorder);
    ChannelUri uri = fresh("split");
    Set<String> received = ConcurrentHashMap.newKeySet();
    track(
        adapter.openInbound(
            uri,
            InboundSettings.strict(),
            (e, ack) -> {
              received.add(e.getId());
              ack.ack();
            }));
    OutboundChannel out = track(adapter.openOutbound(uri));
    adapter.queueUrl(uri).join();
    List<String> ids = new ArrayList<>();
    List<CompletableFuture<Void>> sends = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      CloudEvent e = event(i, 200 * 1024);
      ids.add(e.getId());
      sends.add(out.send(e));
    }
    CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new))
        .orTimeout(60, TimeUnit.SECONDS)
        .join();
    await().atMost(Duration.ofSeconds(60)).until(() -> received.size() == 10);

    assertThat(received).containsExactlyInAnyOrderElementsOf(ids);
    int expectedPerBatch = (int) (p.maxBatchBytes() / (200 * 1024 + 200));
    assertThat(recorder.sendBatches)
        .hasSizeGreaterThanOrEqualTo(2)
        .allSatisfy(b -> assertThat(b.bytes()).isLessThanOrEqualTo(p.maxBatchBytes()))
        .allSatisfy(b -> assertThat(b.entries()).isBetween(1, Math.max(1, expectedPerBatch)));
    assertThat(recorder.sendBatches.stream().mapToInt(RequestRecorder.Batch::entries).sum())
        .isEqualTo(10);
  }

  /**
   * Sends one event through a fresh queue of an adapter with {@code recorder} and returns what was
   * received.
   */
  private CloudEvent sendAndReceive(String prefix, RequestRecorder recorder, CloudEvent sent)
      throws Exception {
    SqsChannelAdapter adapter = adapter(properties(), recorder);
    ChannelUri uri = fresh(prefix);
    CompletableFuture<CloudEvent> got = new CompletableFuture<>();
    track(
        adapter.openInbound(
            uri,
            InboundSettings.strict(),
            (e, ack) -> {
              got.complete(e);
              ack.ack();
            }));
    OutboundChannel out = track(adapter.openOutbound(uri));
    adapter.queueUrl(uri).join();
    out.send(sent).get(10, TimeUnit.SECONDS);
    return got.get(10, TimeUnit.SECONDS);
  }

  @Test
  void singleEventIsFlushedAfterTheLinger() throws Exception {
    RequestRecorder recorder = new RequestRecorder();
    CloudEvent sent = event(1, 100);
    assertThat(sendAndReceive("linger", recorder, sent).getId()).isEqualTo(sent.getId());
    assertThat(recorder.sendBatches)
        .singleElement()
        .extracting(RequestRecorder.Batch::entries)
        .isEqualTo(1);
  }

  /**
   * The body is the SDK's structured JSON: RFC 3339 time with its zero seconds, non-JSON data as
   * data_base64.
   */
  @Test
  void bodiesKeepZeroSecondsAndCarryBinaryDataAsBase64() throws Exception {
    RequestRecorder recorder = new RequestRecorder();
    CloudEvent sent =
        CloudEventBuilder.v1()
            .withId(UUID.randomUUID().toString())
            .withSource(URI.create("/sqs/test"))
            .withType("com.example.sqs.binary")
            .withTime(java.time.OffsetDateTime.parse("2026-01-02T03:04:00Z"))
            .withData("application/octet-stream", new byte[] {(byte) 0xff, 0, 1, (byte) 0xfe, 'x'})
            .build();

    assertThat(sendAndReceive("wire", recorder, sent)).isEqualTo(sent);
    assertThat(recorder.bodies)
        .singleElement()
        .asString()
        .contains("\"time\":\"2026-01-02T03:04:00Z\"")
        .contains("\"data_base64\":\"/wAB/ng=\"");
  }

  /**
   * The SDK's response threads only complete futures: events reach the handler on the adapter's
   * workers.
   */
  @Test
  void handlersRunOnTheAdaptersWorkersNotOnSdkThreads() throws Exception {
    SqsChannelAdapter adapter = adapter(properties(), new RequestRecorder());
    ChannelUri uri = fresh("threads");
    Set<String> threads = ConcurrentHashMap.newKeySet();
    AtomicInteger count = new AtomicInteger();
    track(
        adapter.openInbound(
            uri,
            InboundSettings.strict(),
            (e, ack) -> {
              threads.add(Thread.currentThread().getName());
              count.incrementAndGet();
              ack.ack();
            }));
    OutboundChannel out = track(adapter.openOutbound(uri));
    for (int i = 0; i < 30; i++) {
      out.send(event(i, 100)).get(10, TimeUnit.SECONDS);
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> count.get() == 30);
    assertThat(threads)
        .isNotEmpty()
        .allSatisfy(name -> assertThat(name).startsWith("sqs-channel-worker-"));
  }

  @Test
  void oversizedEventFailsItsFuture() {
    SqsChannelAdapter adapter = adapter(properties(), new RequestRecorder());
    OutboundChannel out = track(adapter.openOutbound(fresh("oversize")));
    CompletableFuture<Void> send = out.send(event(1, properties().maxBatchBytes() + 10));
    assertThat(send)
        .failsWithin(Duration.ofSeconds(1))
        .withThrowableThat()
        .withMessageContaining("accepts at most " + properties().maxBatchBytes() + " bytes");
  }

  @Test
  void plainBodiesAreWrappedWithTheDefaults() {
    SqsChannelAdapter adapter = adapter(properties(), new RequestRecorder());
    ChannelUri uri = fresh("plain");
    String url = adapter.queueUrl(uri).join();
    String textId =
        adapter
            .client()
            .sendMessage(r -> r.queueUrl(url).messageBody("hello world"))
            .join()
            .messageId();
    String jsonId =
        adapter
            .client()
            .sendMessage(r -> r.queueUrl(url).messageBody("{\"a\":1}"))
            .join()
            .messageId();
    Map<String, CloudEvent> got = new ConcurrentHashMap<>();
    track(
        adapter.openInbound(
            uri,
            new InboundSettings("com.example.plain", URI.create("/legacy/orders"), Map.of()),
            (e, ack) -> {
              got.put(e.getId(), e);
              ack.ack();
            }));

    await().atMost(Duration.ofSeconds(30)).until(() -> got.size() == 2);
    CloudEvent text = got.get(textId);
    assertThat(text.getType()).isEqualTo("com.example.plain");
    assertThat(text.getSource()).isEqualTo(URI.create("/legacy/orders"));
    assertThat(text.getDataContentType()).isEqualTo("text/plain");
    assertThat(new String(text.getData().toBytes(), StandardCharsets.UTF_8))
        .isEqualTo("hello world");
    assertThat(text.getTime()).isNotNull();
    CloudEvent json = got.get(jsonId);
    assertThat(json.getDataContentType()).isEqualTo("application/json");
    assertThat(new String(json.getData().toBytes(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}");
    await().atMost(Duration.ofSeconds(30)).until(() -> queueIsEmpty(adapter, url));
  }

  /**
   * The distributed-tracing extension's SQS binding: the trace context leaves as the message
   * attributes {@code traceparent} / {@code tracestate} (beside the structured body), and a plain
   * body takes it from them on receipt.
   */
  @Test
  void traceContextTravelsAsMessageAttributesAndAPlainBodyTakesItFromThem() throws Exception {
    SqsChannelAdapter adapter = adapter(properties(), new RequestRecorder());
    String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    CloudEvent traced =
        CloudEventBuilder.v1(event(1, 100))
            .withExtension("traceparent", traceparent)
            .withExtension("tracestate", "vendor=abc")
            .build();
    ChannelUri uri = fresh("traced");
    String url = adapter.queueUrl(uri).join();
    OutboundChannel out = track(adapter.openOutbound(uri));
    out.send(traced).get(10, TimeUnit.SECONDS);
    var received =
        adapter
            .client()
            .receiveMessage(
                r ->
                    r.queueUrl(url)
                        .waitTimeSeconds(5)
                        .messageAttributeNames("All")
                        .maxNumberOfMessages(1))
            .join()
            .messages();
    assertThat(received).hasSize(1);
    assertThat(received.get(0).messageAttributes()).containsOnlyKeys("traceparent", "tracestate");
    assertThat(received.get(0).messageAttributes().get("traceparent").stringValue())
        .isEqualTo(traceparent);
    assertThat(received.get(0).messageAttributes().get("traceparent").dataType())
        .isEqualTo("String");
    assertThat(received.get(0).messageAttributes().get("tracestate").stringValue())
        .isEqualTo("vendor=abc");

    // An event without trace context sends no attributes at all.
    ChannelUri untracedUri = fresh("untraced");
    String untracedUrl = adapter.queueUrl(untracedUri).join();
    track(adapter.openOutbound(untracedUri)).send(event(2, 100)).get(10, TimeUnit.SECONDS);
    var untraced =
        adapter
            .client()
            .receiveMessage(
                r ->
                    r.queueUrl(untracedUrl)
                        .waitTimeSeconds(5)
                        .messageAttributeNames("All")
                        .maxNumberOfMessages(1))
            .join()
            .messages();
    assertThat(untraced)
        .singleElement()
        .satisfies(m -> assertThat(m.hasMessageAttributes()).isFalse());

    // A plain body (a producer that is not CloudEvents-aware) with the W3C attributes, and one
    // with a malformed traceparent, which is not taken.
    ChannelUri plain = fresh("plain-traced");
    String plainUrl = adapter.queueUrl(plain).join();
    String tracedId =
        adapter
            .client()
            .sendMessage(
                r ->
                    r.queueUrl(plainUrl)
                        .messageBody("{\"a\":1}")
                        .messageAttributes(
                            Map.of(
                                "traceparent",
                                stringAttribute(traceparent),
                                "tracestate",
                                stringAttribute("vendor=abc"))))
            .join()
            .messageId();
    String malformedId =
        adapter
            .client()
            .sendMessage(
                r ->
                    r.queueUrl(plainUrl)
                        .messageBody("{\"a\":2}")
                        .messageAttributes(Map.of("traceparent", stringAttribute("not-a-trace"))))
            .join()
            .messageId();
    Map<String, CloudEvent> got = new ConcurrentHashMap<>();
    track(
        adapter.openInbound(
            plain,
            new InboundSettings("com.example.plain", URI.create("/legacy/meters"), Map.of()),
            (e, ack) -> {
              got.put(e.getId(), e);
              ack.ack();
            }));
    await().atMost(Duration.ofSeconds(30)).until(() -> got.size() == 2);
    assertThat(got.get(tracedId).getExtension("traceparent")).isEqualTo(traceparent);
    assertThat(got.get(tracedId).getExtension("tracestate")).isEqualTo("vendor=abc");
    assertThat(got.get(malformedId).getExtension("traceparent")).isNull();
  }

  /** A structured body's own trace context wins over the attributes'. */
  @Test
  void aStructuredBodysTraceContextWinsOverTheAttributes() throws Exception {
    SqsChannelAdapter adapter = adapter(properties(), new RequestRecorder());
    String own = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    ChannelUri uri = fresh("both");
    String url = adapter.queueUrl(uri).join();
    CloudEvent event = CloudEventBuilder.v1(event(3, 50)).withExtension("traceparent", own).build();
    String body =
        new String(
            io.activityservice.channel.CloudEventJson.STRUCTURED.encode(event),
            StandardCharsets.UTF_8);
    adapter
        .client()
        .sendMessage(
            r ->
                r.queueUrl(url)
                    .messageBody(body)
                    .messageAttributes(
                        Map.of(
                            "traceparent",
                            stringAttribute(
                                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"))))
        .join();
    CompletableFuture<CloudEvent> got = new CompletableFuture<>();
    track(
        adapter.openInbound(
            uri,
            InboundSettings.strict(),
            (e, ack) -> {
              got.complete(e);
              ack.ack();
            }));
    assertThat(got.get(30, TimeUnit.SECONDS).getExtension("traceparent")).isEqualTo(own);
  }

  private static software.amazon.awssdk.services.sqs.model.MessageAttributeValue stringAttribute(
      String value) {
    return software.amazon.awssdk.services.sqs.model.MessageAttributeValue.builder()
        .dataType("String")
        .stringValue(value)
        .build();
  }

  @Test
  void plainBodyWithoutDefaultsIsDeletedNotRedelivered() {
    SqsChannelAdapter adapter = adapter(properties(), new RequestRecorder());
    ChannelUri uri = fresh("junk");
    String url = adapter.queueUrl(uri).join();
    adapter.client().sendMessage(r -> r.queueUrl(url).messageBody("not a cloud event")).join();
    AtomicInteger handled = new AtomicInteger();
    track(
        adapter.openInbound(
            uri,
            InboundSettings.strict(),
            (e, ack) -> {
              handled.incrementAndGet();
              ack.ack();
            }));

    await().atMost(Duration.ofSeconds(30)).until(() -> queueIsEmpty(adapter, url));
    assertThat(handled.get()).isZero();
  }

  @Test
  void visibilityIsExtendedWhileAnEventIsStillBeingRouted() {
    SqsChannelProperties p =
        properties().toBuilder()
            .pollers(2)
            .waitTime(Duration.ofSeconds(1))
            .visibilityTimeout(Duration.ofSeconds(2))
            .maxInFlight(10)
            .build();
    SqsChannelAdapter adapter = adapter(p, new RequestRecorder());
    ChannelUri uri = fresh("slow");
    String url = adapter.queueUrl(uri).join();
    List<Acknowledgement> deliveries = new CopyOnWriteArrayList<>();
    track(adapter.openInbound(uri, InboundSettings.strict(), (e, ack) -> deliveries.add(ack)));
    track(adapter.openOutbound(uri)).send(event(1, 100)).join();

    await().atMost(Duration.ofSeconds(20)).until(() -> deliveries.size() == 1);
    // Three visibility timeouts pass while the "router" holds the event; it must not come back.
    await()
        .during(Duration.ofSeconds(6))
        .atMost(Duration.ofSeconds(8))
        .until(() -> deliveries.size() == 1);
    deliveries.get(0).ack();
    await().atMost(Duration.ofSeconds(20)).until(() -> queueIsEmpty(adapter, url));
    assertThat(deliveries).hasSize(1);
  }

  /**
   * What the contract's partition-key test relies on: on a FIFO queue the adapter sends a key as
   * the message group, and the server hands a group to one receiver at a time: while a message of
   * group g is in flight, later messages of g are held back, other groups are not.
   */
  @Test
  void fifoQueueHoldsBackAGroupWhileOneOfItsMessagesIsInFlight() {
    SqsChannelAdapter adapter = adapter(properties(), new RequestRecorder());
    ChannelUri uri = ChannelUri.parse("sqs:fifo-" + UUID.randomUUID() + ".fifo");
    String url = adapter.queueUrl(uri).join();
    OutboundChannel out = track(adapter.openOutbound(uri));
    CloudEvent g1 = event(1, 10);
    CloudEvent g2 = event(2, 10);
    CloudEvent h1 = event(3, 10);
    out.send(OutboundEvent.of(g1).withPartitionKey("g")).join();
    out.send(OutboundEvent.of(g2).withPartitionKey("g")).join();
    out.send(OutboundEvent.of(h1).withPartitionKey("h")).join();

    var first =
        adapter
            .client()
            .receiveMessage(
                r ->
                    r.queueUrl(url)
                        .maxNumberOfMessages(1)
                        .visibilityTimeout(30)
                        .messageSystemAttributeNamesWithStrings("MessageGroupId"))
            .join()
            .messages();
    assertThat(first)
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.body()).contains(g1.getId());
              assertThat(m.attributesAsStrings()).containsEntry("MessageGroupId", "g");
            });
    var rest =
        adapter
            .client()
            .receiveMessage(
                r ->
                    r.queueUrl(url)
                        .maxNumberOfMessages(10)
                        .visibilityTimeout(30)
                        .waitTimeSeconds(1))
            .join()
            .messages();
    assertThat(rest)
        .as("g is held back while g1 is in flight; h is not")
        .singleElement()
        .satisfies(m -> assertThat(m.body()).contains(h1.getId()));
  }

  /**
   * The batch-aligned relay: a backlog of 300 events goes through an inbound channel that sends
   * each event to an outbound channel and acks when SQS accepted it (what the service's router
   * does). With one poller, every ReceiveMessage takes 10, the events of each received batch leave
   * in one SendMessageBatch, and their acks in one DeleteMessageBatch: 0.3 requests per relayed
   * event.
   */
  @Test
  void aRelayTakesOneReceiveOneSendAndOneDeletePerTenEvents() throws Exception {
    int events = 300;
    SqsChannelProperties p =
        properties().toBuilder()
            .pollers(1)
            .waitTime(Duration.ofSeconds(2))
            .visibilityTimeout(Duration.ofSeconds(30))
            .maxInFlight(100)
            .build();
    RequestRecorder relayRequests = new RequestRecorder();
    SqsChannelAdapter relay = adapter(p, relayRequests);
    SqsChannelAdapter client = adapter(p, new RequestRecorder());
    ChannelUri in = fresh("relay-in");
    ChannelUri out = fresh("relay-out");
    String inUrl = client.queueUrl(in).join();
    String outUrl = client.queueUrl(out).join();
    preload(client, in, events);

    Set<String> relayed = ConcurrentHashMap.newKeySet();
    OutboundChannel target = track(relay.openOutbound(out));
    track(
        relay.openInbound(
            in,
            InboundSettings.strict(),
            (e, ack) ->
                target
                    .send(e)
                    .whenComplete(
                        (ok, error) -> {
                          if (error == null) {
                            relayed.add(e.getId());
                            ack.ack();
                          } else {
                            ack.nack(error);
                          }
                        })));
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> relayed.size() == events && queueIsEmpty(client, inUrl));

    assertThat(messagesIn(client, outUrl)).isEqualTo(events);
    assertThat(relayRequests.receivedBatches.stream().filter(n -> n > 0).toList())
        .as("every receive took 10")
        .hasSize(events / 10)
        .allSatisfy(n -> assertThat(n).isEqualTo(10));
    assertThat(relayRequests.sendBatches)
        .as("one SendMessageBatch per received batch")
        .hasSize(events / 10)
        .allSatisfy(b -> assertThat(b.entries()).isEqualTo(10));
    assertThat(relayRequests.deleteBatches)
        .as("one DeleteMessageBatch per received batch")
        .hasSize(events / 10)
        .allSatisfy(n -> assertThat(n).isEqualTo(10));
    long requests =
        relayRequests.nonEmptyReceives()
            + relayRequests.requests("SendMessageBatch")
            + relayRequests.requests("DeleteMessageBatch")
            + relayRequests.requests("ChangeMessageVisibilityBatch");
    assertThat((double) requests / events)
        .as("SQS requests per relayed event (long polls that ended empty aside)")
        .isLessThanOrEqualTo(0.3);
  }

  /**
   * Events routed from one received batch to two queues leave in one SendMessageBatch per queue.
   */
  @Test
  void theEventsOfOneReceivedBatchLeaveInOneSendPerTargetQueue() throws Exception {
    int events = 100;
    SqsChannelProperties p =
        properties().toBuilder()
            .pollers(1)
            .waitTime(Duration.ofSeconds(2))
            .visibilityTimeout(Duration.ofSeconds(30))
            .maxInFlight(100)
            .build();
    RequestRecorder relayRequests = new RequestRecorder();
    SqsChannelAdapter relay = adapter(p, relayRequests);
    SqsChannelAdapter client = adapter(p, new RequestRecorder());
    ChannelUri in = fresh("fan-in");
    String inUrl = client.queueUrl(in).join();
    OutboundChannel a = track(relay.openOutbound(fresh("fan-a")));
    OutboundChannel b = track(relay.openOutbound(fresh("fan-b")));
    preload(client, in, events);

    AtomicInteger settled = new AtomicInteger();
    track(
        relay.openInbound(
            in,
            InboundSettings.strict(),
            (e, ack) ->
                CompletableFuture.allOf(a.send(e), b.send(e))
                    .whenComplete(
                        (ok, error) -> {
                          settled.incrementAndGet();
                          if (error == null) {
                            ack.ack();
                          } else {
                            ack.nack(error);
                          }
                        })));
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> settled.get() >= events && queueIsEmpty(client, inUrl));

    assertThat(relayRequests.nonEmptyReceives()).isEqualTo(events / 10);
    assertThat(relayRequests.sendBatches)
        .hasSize(2 * events / 10)
        .allSatisfy(batch -> assertThat(batch.entries()).isEqualTo(10));
  }

  /**
   * Sends {@code n} events to {@code queue} in full batches and waits until SQS accepted them all.
   */
  private static void preload(SqsChannelAdapter client, ChannelUri queue, int n) throws Exception {
    OutboundChannel producer = client.openOutbound(queue);
    List<CompletableFuture<Void>> sends = new ArrayList<>();
    try (SendCork cork = SendCork.open()) {
      for (int i = 0; i < n; i++) {
        sends.add(producer.send(event(i, 200)));
      }
    }
    CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    producer.close();
  }

  private static int messagesIn(SqsChannelAdapter adapter, String url) {
    return Integer.parseInt(
        adapter
            .client()
            .getQueueAttributes(
                r ->
                    r.queueUrl(url)
                        .attributeNames(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES))
            .join()
            .attributes()
            .get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES));
  }

  private static boolean queueIsEmpty(SqsChannelAdapter adapter, String url) {
    Map<QueueAttributeName, String> a =
        adapter
            .client()
            .getQueueAttributes(
                r ->
                    r.queueUrl(url)
                        .attributeNames(
                            QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                            QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE))
            .join()
            .attributes();
    return "0".equals(a.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES))
        && "0".equals(a.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE));
  }
}
