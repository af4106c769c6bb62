package io.activityservice.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
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
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The shared contract every {@link ChannelAdapter} passes, in the style of Spring Cloud Stream's
 * binder tests: subclasses supply a running adapter and fresh channel URIs on a real transport.
 *
 * <p>It checks: round trips and bursts; the {@link Acknowledgement} contract (a nacked event comes
 * back after growing backoff delays while other unsettled events stay put; only the first
 * settlement counts, from any thread); the {@link PlainMessages} rule on each transport; partition
 * keys among competing receivers; one encoding per event however many channels it is sent to.
 *
 * <p>Hooks: {@link #sendPlain} puts a plain message on the transport; {@link
 * #freshPartitionedChannel}, {@link #partitionKeyPinsReceiver} and {@link #awaitCompetingReceivers}
 * adapt the partition-key test. Adapters that cannot be listened on (webhooks) override {@link
 * #openReceiver} with a receiver of their own, return {@code false} from {@link
 * #supportsRedelivery()} and leave the plain-message and partition hooks aborting (the tests are
 * skipped with the reason).
 *
 * <p>Subclasses configure their adapter's {@code redelivery} settings with {@link
 * #CONTRACT_REDELIVERY} (exact delays, no jitter), so that the redelivery tests can check the
 * backoff.
 */
public abstract class ChannelAdapterContract {

  /** The redelivery settings every adapter under test uses: 1s, 2s, 4s, 8s, without jitter. */
  public static final RedeliverySettings CONTRACT_REDELIVERY =
      new RedeliverySettings(Duration.ofSeconds(1), Duration.ofSeconds(8), false);

  /**
   * How much earlier than its backoff delay a redelivery may be seen (clock and timer granularity).
   */
  private static final Duration EARLY = Duration.ofMillis(100);

  private final List<AutoCloseable> opened = new ArrayList<>();

  /** The adapter under test, connected to a real transport. Created once per test class. */
  protected abstract ChannelAdapter adapter();

  /** A channel URI no other test uses (a fresh queue/topic name). */
  protected abstract ChannelUri freshChannel();

  /** A URI of the adapter's scheme that {@link ChannelAdapter#validate} must reject. */
  protected abstract ChannelUri invalidChannel();

  /** Whether a nacked message comes back (true for brokers). */
  protected boolean supportsRedelivery() {
    return true;
  }

  /**
   * Whether the transport says when it took a message from its producer ({@link
   * Acknowledgement#sentAtMillis()}): true for brokers; adapters without inbound channels say
   * false.
   */
  protected boolean givesSendTime() {
    return true;
  }

  /** How long the transport may take to deliver a burst; generous for real brokers. */
  protected Duration deliveryTimeout() {
    return Duration.ofSeconds(60);
  }

  /** Starts receiving CloudEvents only on {@code uri}. */
  protected final AutoCloseable openReceiver(ChannelUri uri, InboundHandler handler) {
    return openReceiver(uri, InboundSettings.strict(), handler);
  }

  /** Starts receiving on {@code uri}; by default through the adapter's own inbound channel. */
  protected AutoCloseable openReceiver(
      ChannelUri uri, InboundSettings settings, InboundHandler handler) {
    return adapter().openInbound(uri, settings, handler);
  }

  /**
   * A fresh channel on which partition keys keep events in order among competing receivers; by
   * default {@link #freshChannel()}. Adapters whose transport cannot do that abort (JUnit
   * assumption) with the reason.
   */
  protected ChannelUri freshPartitionedChannel() {
    return freshChannel();
  }

  /**
   * Whether the transport keeps a partition key with one of the competing receivers (JMS message
   * groups, Kafka partitions). SQS FIFO queues give a group to one receiver <em>at a time</em>, in
   * order, but not always to the same one: they return {@code false}.
   */
  protected boolean partitionKeyPinsReceiver() {
    return true;
  }

  /**
   * Waits until every receiver opened on {@code uri} takes part (e.g. a Kafka group rebalanced).
   */
  protected void awaitCompetingReceivers(ChannelUri uri, int receivers) throws Exception {}

  /**
   * Puts a plain message, one that carries no CloudEvent, with {@code body} and no content type on
   * {@code uri}, the way a legacy producer of that transport would (a plain JMS text message, an
   * SQS message body, a Kafka record without headers).
   *
   * @return the message id the transport gave it (the id the wrapped event must carry), or {@code
   *     null} if the transport does not say
   */
  protected String sendPlain(ChannelUri uri, byte[] body) throws Exception {
    return Assumptions.abort(
        "this adapter has no inbound channels, so nothing wraps plain messages");
  }

  @AfterEach
  void closeOpened() throws Exception {
    for (AutoCloseable c : opened) {
      c.close();
    }
    opened.clear();
  }

  /** A sample event with JSON data, a subject and the integer extension {@code sequence} = n. */
  public static CloudEvent sampleEvent(int n) {
    return CloudEventBuilder.v1()
        .withId(UUID.randomUUID().toString())
        .withSource(URI.create("/contract/test"))
        .withType("com.example.contract.sample")
        .withSubject("item-" + n)
        .withTime(OffsetDateTime.of(2026, 1, 2, 3, 4, 5, 0, ZoneOffset.UTC))
        .withExtension("sequence", n)
        .withDataContentType("application/json")
        .withData(("{\"n\":" + n + ",\"text\":\"héllo\"}").getBytes(StandardCharsets.UTF_8))
        .build();
  }

  private <T extends AutoCloseable> T track(T closeable) {
    opened.add(closeable);
    return closeable;
  }

  @Test
  void knownSchemesAreLowerCase() {
    assertThat(adapter().schemes())
        .isNotEmpty()
        .allSatisfy(s -> assertThat(s).isEqualTo(s.toLowerCase(java.util.Locale.ROOT)));
  }

  @Test
  void validateAcceptsFreshChannelAndRejectsInvalidOne() {
    adapter().validate(freshChannel());
    assertThatThrownBy(() -> adapter().validate(invalidChannel()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(invalidChannel().scheme());
  }

  /** Sends one event through a fresh channel and returns what its receiver got. */
  private CloudEvent sendAndReceive(CloudEvent sent) throws Exception {
    ChannelUri uri = freshChannel();
    CompletableFuture<CloudEvent> received = new CompletableFuture<>();
    track(
        openReceiver(
            uri,
            (event, ack) -> {
              received.complete(event);
              ack.ack();
            }));
    OutboundChannel out = track(adapter().openOutbound(uri));
    out.send(sent).get(deliveryTimeout().toSeconds(), TimeUnit.SECONDS);
    return received.get(deliveryTimeout().toSeconds(), TimeUnit.SECONDS);
  }

  @Test
  void roundTripKeepsAttributesExtensionsAndData() throws Exception {
    CloudEvent sent = sampleEvent(7);
    CloudEvent got = sendAndReceive(sent);

    assertThat(got.getId()).isEqualTo(sent.getId());
    assertThat(got.getSource()).isEqualTo(sent.getSource());
    assertThat(got.getType()).isEqualTo(sent.getType());
    assertThat(got.getSubject()).isEqualTo("item-7");
    assertThat(got.getTime()).isEqualTo(sent.getTime());
    assertThat(String.valueOf(got.getExtension("sequence"))).isEqualTo("7");
    assertThat(got.getData()).isNotNull();
    assertThat(new String(got.getData().toBytes(), StandardCharsets.UTF_8))
        .isEqualToIgnoringWhitespace("{\"n\":7,\"text\":\"héllo\"}");
  }

  /**
   * The transport's own send time reaches the handler with the message ({@link
   * Acknowledgement#sentAtMillis()}), not the event's {@code time} (the sample's is in January
   * 2026): between the send and the receipt, by the transport's clock on this machine; the same on
   * a redelivered hand-out. Adapters whose transport gives none answer {@link
   * Acknowledgement#NO_SENT_TIME}.
   */
  @Test
  void theHandlerGetsTheTransportsSendTimeNotTheEventsTime() throws Exception {
    ChannelUri uri = freshChannel();
    List<Long> sentAt = new CopyOnWriteArrayList<>();
    long before = System.currentTimeMillis();
    CompletableFuture<Long> receivedAt = new CompletableFuture<>();
    track(
        openReceiver(
            uri,
            (event, ack) -> {
              sentAt.add(ack.sentAtMillis());
              if (sentAt.size() == 1 && supportsRedelivery()) {
                ack.nack(new IllegalStateException("once more, for the redelivered hand-out"));
              } else {
                receivedAt.complete(System.currentTimeMillis());
                ack.ack();
              }
            }));
    OutboundChannel out = track(adapter().openOutbound(uri));
    out.send(sampleEvent(3)).get(deliveryTimeout().toSeconds(), TimeUnit.SECONDS);
    long after = receivedAt.get(deliveryTimeout().toSeconds(), TimeUnit.SECONDS);

    if (!givesSendTime()) {
      assertThat(sentAt).containsOnly(Acknowledgement.NO_SENT_TIME);
      return;
    }
    // A second of slack either side: the broker's clock is this machine's, its granularity is not.
    assertThat(sentAt.get(0)).isBetween(before - 1_000, after + 1_000);
    assertThat(sentAt).containsOnly(sentAt.get(0));
  }

  /**
   * Time with zero seconds ({@code 2026-01-02T03:04:00Z}) and binary data that is neither JSON nor
   * text survive every wire format: structured JSON writes them as RFC 3339 and {@code
   * data_base64}, binary modes as the {@code time} attribute and the raw body.
   */
  @Test
  void timeWithZeroSecondsAndBinaryDataSurviveTheWireFormat() throws Exception {
    byte[] data = {(byte) 0xff, 0, 1, (byte) 0xfe, 'x'};
    CloudEvent sent =
        CloudEventBuilder.v1()
            .withId(UUID.randomUUID().toString())
            .withSource(URI.create("/contract/t"))
            .withType("com.example.contract.binary")
            .withTime(OffsetDateTime.of(2026, 1, 2, 3, 4, 0, 0, ZoneOffset.UTC))
            .withData("application/octet-stream", data)
            .build();
    CloudEvent got = sendAndReceive(sent);

    assertThat(got.getId()).isEqualTo(sent.getId());
    assertThat(got.getTime()).isEqualTo(sent.getTime());
    assertThat(io.cloudevents.types.Time.writeTime(got.getTime()))
        .isEqualTo("2026-01-02T03:04:00Z");
    assertThat(got.getDataContentType()).isEqualTo("application/octet-stream");
    assertThat(got.getData().toBytes()).isEqualTo(data);
  }

  @Test
  void burstOfThousandArrivesOnceEach() {
    ChannelUri uri = freshChannel();
    Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
    track(
        openReceiver(
            uri,
            (event, ack) -> {
              seen.computeIfAbsent(event.getId(), k -> new AtomicInteger()).incrementAndGet();
              ack.ack();
            }));
    OutboundChannel out = track(adapter().openOutbound(uri));
    List<String> ids = new ArrayList<>();
    List<CompletableFuture<Void>> sends = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      CloudEvent e = sampleEvent(i);
      ids.add(e.getId());
      sends.add(out.send(e));
    }
    CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new))
        .orTimeout(deliveryTimeout().toSeconds(), TimeUnit.SECONDS)
        .join();

    await().atMost(deliveryTimeout()).until(() -> seen.size() == ids.size());
    assertThat(seen.keySet()).containsExactlyInAnyOrderElementsOf(ids);
    assertThat(seen.values()).allSatisfy(count -> assertThat(count.get()).isEqualTo(1));
  }

  @Test
  void nackedEventComesBackAfterGrowingDelaysWithoutDisturbingOthersInFlight() throws Exception {
    assumeTrue(supportsRedelivery(), "transport has no redelivery");
    Backoff backoff = CONTRACT_REDELIVERY.backoff();
    ChannelUri uri = freshChannel();
    List<CloudEvent> events = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      events.add(sampleEvent(i));
    }
    String nackedId = events.get(0).getId();
    Map<String, List<Long>> deliveries = new ConcurrentHashMap<>();
    List<Acknowledgement> held = new CopyOnWriteArrayList<>();
    CompletableFuture<Void> acked = new CompletableFuture<>();
    track(
        openReceiver(
            uri,
            (event, ack) -> {
              List<Long> times =
                  deliveries.computeIfAbsent(event.getId(), k -> new CopyOnWriteArrayList<>());
              times.add(System.nanoTime());
              if (!event.getId().equals(nackedId)) {
                held.add(ack); // stays unsettled on the transport until the end of the test
              } else if (times.size() <= 2) {
                ack.nack(
                    new IllegalStateException("attempt " + times.size() + " fails on purpose"));
              } else {
                ack.ack();
                acked.complete(null);
              }
            }));
    OutboundChannel out = track(adapter().openOutbound(uri));
    CompletableFuture.allOf(events.stream().map(out::send).toArray(CompletableFuture[]::new))
        .get(deliveryTimeout().toSeconds(), TimeUnit.SECONDS);

    acked.get(deliveryTimeout().toSeconds(), TimeUnit.SECONDS);
    await().atMost(deliveryTimeout()).until(() -> held.size() == events.size() - 1);
    List<Long> times = deliveries.get(nackedId);
    assertThat(times).hasSize(3);
    Duration first = Duration.ofNanos(times.get(1) - times.get(0));
    Duration second = Duration.ofNanos(times.get(2) - times.get(1));
    assertThat(first)
        .as("delay after the first nack")
        .isGreaterThanOrEqualTo(backoff.ceiling(1).minus(EARLY));
    assertThat(second)
        .as("delay after the second nack")
        .isGreaterThanOrEqualTo(backoff.ceiling(2).minus(EARLY))
        .isGreaterThan(first);
    // The nacks did not tear anything down: the other messages, still unsettled, did not come
    // again.
    assertThat(deliveries).hasSize(events.size());
    events.stream()
        .skip(1)
        .forEach(e -> assertThat(deliveries.get(e.getId())).as(e.getId()).hasSize(1));

    held.forEach(Acknowledgement::ack);
    await()
        .during(Duration.ofSeconds(1))
        .atMost(deliveryTimeout())
        .until(() -> deliveries.values().stream().mapToInt(List::size).sum() == events.size() + 2);
  }

  @Test
  void onlyTheFirstSettlementCountsFromAnyThread() throws Exception {
    assumeTrue(supportsRedelivery(), "transport has no redelivery");
    Backoff backoff = CONTRACT_REDELIVERY.backoff();
    ChannelUri uri = freshChannel();
    CloudEvent ackedTwice = sampleEvent(1);
    CloudEvent nackedTwice = sampleEvent(2);
    Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
    track(
        openReceiver(
            uri,
            (event, ack) -> {
              int n =
                  deliveries
                      .computeIfAbsent(event.getId(), k -> new AtomicInteger())
                      .incrementAndGet();
              if (event.getId().equals(ackedTwice.getId())) {
                ack.ack();
                ack.ack();
                ack.nack(new IllegalStateException("ignored: already acked"));
              } else if (n == 1) {
                CompletableFuture.runAsync(
                    () -> { // settled from another thread
                      ack.nack(new IllegalStateException("first nack counts"));
                      ack.nack(new IllegalStateException("ignored"));
                      ack.ack();
                    });
              } else {
                ack.ack();
                ack.nack(new IllegalStateException("ignored: already acked"));
              }
            }));
    OutboundChannel out = track(adapter().openOutbound(uri));
    out.send(ackedTwice).get(deliveryTimeout().toSeconds(), TimeUnit.SECONDS);
    out.send(nackedTwice).get(deliveryTimeout().toSeconds(), TimeUnit.SECONDS);

    await()
        .atMost(deliveryTimeout())
        .until(
            () ->
                deliveries.containsKey(nackedTwice.getId())
                    && deliveries.get(nackedTwice.getId()).get() == 2);
    // A second nack would bring the event back after ceiling(2); an ignored one must not.
    await()
        .during(backoff.ceiling(2).plusSeconds(2))
        .atMost(deliveryTimeout())
        .until(
            () ->
                deliveries.get(nackedTwice.getId()).get() == 2
                    && deliveries.get(ackedTwice.getId()).get() == 1);
  }

  @Test
  void plainMessagesAreWrappedByTheSharedRule() throws Exception {
    ChannelUri typeOnly = freshChannel();
    ChannelUri withSource = freshChannel();
    InboundSettings typeOnlySettings =
        new InboundSettings("com.example.contract.plain", null, Map.of());
    InboundSettings withSourceSettings =
        new InboundSettings("com.example.contract.plain", URI.create("/legacy/orders"), Map.of());
    Map<String, CloudEvent> got = new ConcurrentHashMap<>();
    track(
        openReceiver(
            typeOnly,
            typeOnlySettings,
            (event, ack) -> {
              got.put("json", event);
              ack.ack();
            }));
    track(
        openReceiver(
            withSource,
            withSourceSettings,
            (event, ack) -> {
              got.put("text", event);
              ack.ack();
            }));
    OffsetDateTime before = OffsetDateTime.now(ZoneOffset.UTC).minusMinutes(1);
    byte[] json = "{\"order\":1,\"items\":[\"a\"]}".getBytes(StandardCharsets.UTF_8);
    byte[] text = "order 2 shipped".getBytes(StandardCharsets.UTF_8);
    String jsonId = sendPlain(typeOnly, json);
    String textId = sendPlain(withSource, text);

    await().atMost(deliveryTimeout()).until(() -> got.size() == 2);
    OffsetDateTime after = OffsetDateTime.now(ZoneOffset.UTC).plusMinutes(1);
    CloudEvent wrappedJson = got.get("json");
    assertThat(wrappedJson.getType()).isEqualTo("com.example.contract.plain");
    assertThat(wrappedJson.getSource())
        .as("no defaultSource: the channel URI")
        .isEqualTo(URI.create(typeOnly.toString()));
    assertThat(wrappedJson.getDataContentType()).isEqualTo("application/json");
    assertThat(wrappedJson.getData().toBytes()).isEqualTo(json);
    assertThat(wrappedJson.getTime()).as("the transport's timestamp").isBetween(before, after);
    assertThat(wrappedJson.getExtensionNames()).isEmpty();
    if (jsonId != null) {
      assertThat(wrappedJson.getId()).isEqualTo(jsonId);
    }
    CloudEvent wrappedText = got.get("text");
    assertThat(wrappedText.getSource()).isEqualTo(URI.create("/legacy/orders"));
    assertThat(wrappedText.getDataContentType()).isEqualTo("text/plain");
    assertThat(wrappedText.getData().toBytes()).isEqualTo(text);
    if (textId != null) {
      assertThat(wrappedText.getId()).isEqualTo(textId);
    }
    // Identical to the shared rule applied to what the transport carried.
    assertThat(wrappedJson)
        .isEqualTo(
            PlainMessages.wrap(
                typeOnly,
                typeOnlySettings,
                wrappedJson.getId(),
                json,
                null,
                wrappedJson.getTime()));
    assertThat(wrappedText)
        .isEqualTo(
            PlainMessages.wrap(
                withSource,
                withSourceSettings,
                wrappedText.getId(),
                text,
                null,
                wrappedText.getTime()));
  }

  @Test
  void plainMessageWithoutDefaultTypeIsDroppedWithoutBlockingTheChannel() throws Exception {
    ChannelUri uri = freshChannel();
    List<String> received = new CopyOnWriteArrayList<>();
    track(
        openReceiver(
            uri,
            (event, ack) -> {
              received.add(event.getId());
              ack.ack();
            }));
    sendPlain(uri, "not a cloud event".getBytes(StandardCharsets.UTF_8));
    CloudEvent next = sampleEvent(1);
    track(adapter().openOutbound(uri))
        .send(next)
        .get(deliveryTimeout().toSeconds(), TimeUnit.SECONDS);

    await().atMost(deliveryTimeout()).until(() -> received.contains(next.getId()));
    await()
        .during(Duration.ofSeconds(1))
        .atMost(deliveryTimeout())
        .until(() -> received.size() == 1);
  }

  @Test
  void eventsOfOnePartitionKeyKeepTheirSendOrderAmongCompetingReceivers() throws Exception {
    ChannelUri uri = freshPartitionedChannel();
    record Received(String receiver, String key, int sequence) {}
    List<Received> log = new CopyOnWriteArrayList<>();
    for (String receiver : List.of("a", "b")) {
      track(
          openReceiver(
              uri,
              (event, ack) -> {
                log.add(
                    new Received(
                        receiver,
                        event.getSubject(),
                        Integer.parseInt(String.valueOf(event.getExtension("sequence")))));
                ack.ack();
              }));
    }
    awaitCompetingReceivers(uri, 2);
    OutboundChannel out = track(adapter().openOutbound(uri));
    int keys = 16;
    int perKey = 5;
    List<CompletableFuture<Void>> chains = new ArrayList<>();
    for (int k = 0; k < keys; k++) {
      String key = "key-" + k;
      CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
      for (int i = 0;
          i < perKey;
          i++) { // each event of a key is sent once the previous one was accepted
        OutboundEvent event = OutboundEvent.of(keyedEvent(key, i)).withPartitionKey(key);
        chain = chain.thenCompose(ok -> out.send(event));
      }
      chains.add(chain);
    }
    CompletableFuture.allOf(chains.toArray(CompletableFuture[]::new))
        .get(deliveryTimeout().toSeconds(), TimeUnit.SECONDS);

    await().atMost(deliveryTimeout()).until(() -> log.size() >= keys * perKey);
    Map<String, List<Received>> byKey = new java.util.TreeMap<>();
    log.forEach(r -> byKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r));
    assertThat(byKey).hasSize(keys);
    byKey.forEach(
        (key, received) ->
            assertThat(received)
                .as(key + " in send order, once each")
                .extracting(Received::sequence)
                .containsExactly(0, 1, 2, 3, 4));
    if (partitionKeyPinsReceiver()) {
      byKey.forEach(
          (key, received) ->
              assertThat(received)
                  .as(key + " at one receiver")
                  .extracting(Received::receiver)
                  .containsOnly(received.get(0).receiver()));
      assertThat(log)
          .as("both receivers compete")
          .extracting(Received::receiver)
          .contains("a", "b");
    }
  }

  private static CloudEvent keyedEvent(String key, int sequence) {
    return CloudEventBuilder.v1(sampleEvent(sequence)).withSubject(key).build();
  }

  @Test
  void anEventSentToSeveralChannelsIsEncodedOnce() throws Exception {
    DataReadCounting event = new DataReadCounting(sampleEvent(1));
    OutboundEvent outbound = OutboundEvent.of(event);
    List<ChannelUri> channels = List.of(freshChannel(), freshChannel(), freshChannel());
    AtomicInteger received = new AtomicInteger();
    for (ChannelUri uri : channels) {
      track(
          openReceiver(
              uri,
              (e, ack) -> {
                received.incrementAndGet();
                ack.ack();
              }));
    }
    track(adapter().openOutbound(channels.get(0)))
        .send(outbound)
        .get(deliveryTimeout().toSeconds(), TimeUnit.SECONDS);
    int readsForOneSend = event.dataReads();
    assertThat(readsForOneSend).as("encoding reads the data").isPositive();

    for (ChannelUri uri : channels) {
      track(adapter().openOutbound(uri))
          .send(outbound)
          .get(deliveryTimeout().toSeconds(), TimeUnit.SECONDS);
    }
    assertThat(event.dataReads()).as("later sends reuse the encoding").isEqualTo(readsForOneSend);
    await().atMost(deliveryTimeout()).until(() -> received.get() == 4);
  }

  /** A CloudEvent that counts how often its data is read: every encoding reads it. */
  private static final class DataReadCounting implements CloudEvent {
    private final CloudEvent delegate;
    private final AtomicInteger dataReads = new AtomicInteger();

    DataReadCounting(CloudEvent delegate) {
      this.delegate = delegate;
    }

    int dataReads() {
      return dataReads.get();
    }

    @Override
    public io.cloudevents.CloudEventData getData() {
      dataReads.incrementAndGet();
      return delegate.getData();
    }

    @Override
    public io.cloudevents.SpecVersion getSpecVersion() {
      return delegate.getSpecVersion();
    }

    @Override
    public String getId() {
      return delegate.getId();
    }

    @Override
    public String getType() {
      return delegate.getType();
    }

    @Override
    public URI getSource() {
      return delegate.getSource();
    }

    @Override
    public String getDataContentType() {
      return delegate.getDataContentType();
    }

    @Override
    public URI getDataSchema() {
      return delegate.getDataSchema();
    }

    @Override
    public String getSubject() {
      return delegate.getSubject();
    }

    @Override
    public OffsetDateTime getTime() {
      return delegate.getTime();
    }

    @Override
    public Object getAttribute(String attributeName) {
      return delegate.getAttribute(attributeName);
    }

    @Override
    public Object getExtension(String extensionName) {
      return delegate.getExtension(extensionName);
    }

    @Override
    public java.util.Set<String> getExtensionNames() {
      return delegate.getExtensionNames();
    }
  }

  /**
   * An adapter that removes acknowledged messages in batches (JMS transactions, SQS delete batches,
   * Kafka offset commits) flushes them when the channel closes: a clean close brings nothing
   * acknowledged back to the next receiver.
   */
  @Test
  void acknowledgedEventsDoNotComeBackAfterTheReceiverIsClosed() throws Exception {
    assumeTrue(supportsRedelivery(), "transport has no inbound redelivery");
    ChannelUri uri = freshChannel();
    Set<String> first = ConcurrentHashMap.newKeySet();
    AutoCloseable receiver =
        openReceiver(
            uri,
            (event, ack) -> {
              first.add(event.getId());
              ack.ack();
            });
    OutboundChannel out = track(adapter().openOutbound(uri));
    List<CompletableFuture<Void>> sends = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      sends.add(out.send(sampleEvent(i)));
    }
    CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new))
        .get(deliveryTimeout().toSeconds(), TimeUnit.SECONDS);
    await().atMost(deliveryTimeout()).until(() -> first.size() == 20);
    receiver.close();

    List<String> again = new CopyOnWriteArrayList<>();
    track(
        openReceiver(
            uri,
            (event, ack) -> {
              again.add(event.getId());
              ack.ack();
            }));
    CloudEvent marker = sampleEvent(99);
    out.send(marker).get(deliveryTimeout().toSeconds(), TimeUnit.SECONDS);
    await().atMost(deliveryTimeout()).until(() -> again.contains(marker.getId()));
    await().during(Duration.ofSeconds(1)).atMost(deliveryTimeout()).until(() -> again.size() == 1);
  }

  @Test
  void closedReceiverStopsDelivering() throws Exception {
    ChannelUri uri = freshChannel();
    AtomicInteger count = new AtomicInteger();
    AutoCloseable receiver =
        openReceiver(
            uri,
            (event, ack) -> {
              count.incrementAndGet();
              ack.ack();
            });
    OutboundChannel out = track(adapter().openOutbound(uri));
    out.send(sampleEvent(1)).get(deliveryTimeout().toSeconds(), TimeUnit.SECONDS);
    await().atMost(deliveryTimeout()).until(() -> count.get() == 1);
    receiver.close();

    CompletableFuture<Void> late = out.send(sampleEvent(2));
    late.handle((ok, err) -> null).get(deliveryTimeout().toSeconds(), TimeUnit.SECONDS);
    // Nothing else arrives for a while: the closed receiver took no second event.
    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(5))
        .until(() -> count.get() == 1);
  }
}
