package io.activityservice.channel.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.OutboundEvent;
import io.activityservice.channel.RedeliverySettings;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import jakarta.jms.Connection;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.activemq.ActiveMQConnectionFactory;
import org.apache.activemq.command.ActiveMQQueue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The adapter's transactions, counted by the broker itself (a plugin in a real broker over TCP):
 * inbound batches commit once, a nack redelivers only its event and does not roll the batch back, a
 * failed commit or a crash before the commit brings the batch back without losing anything,
 * outbound batches commit once, and a failed commit fails exactly the futures of its batch.
 */
class JmsTransactionBatchingTest {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final AtomicInteger names = new AtomicInteger();
  private static CountingBroker broker;

  private final List<AutoCloseable> opened = new ArrayList<>();

  @BeforeAll
  static void start() {
    broker = new CountingBroker();
  }

  @AfterAll
  static void stop() {
    broker.close();
  }

  @AfterEach
  void closeOpened() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
    opened.clear();
    broker.reset();
  }

  private <T extends AutoCloseable> T track(T c) {
    opened.add(c);
    return c;
  }

  private JmsChannelAdapter adapter(
      String url, JmsChannelProperties.Batch batch, Duration sendTimeout) {
    return track(
        new JmsChannelAdapter(
            JmsChannelProperties.builder()
                .brokerUrl(url)
                .batch(batch)
                .redelivery(
                    new RedeliverySettings(Duration.ofMillis(300), Duration.ofSeconds(2), false))
                .sendTimeout(sendTimeout)
                .reconnectDelay(Duration.ofMillis(300))
                .build()));
  }

  private JmsChannelAdapter adapter(JmsChannelProperties.Batch batch) {
    return adapter(broker.url(), batch, Duration.ofSeconds(10));
  }

  private static ChannelUri freshQueue(String prefix) {
    return ChannelUri.parse("jms:queue:" + prefix + "." + names.incrementAndGet());
  }

  private static CloudEvent event(int n) {
    return CloudEventBuilder.v1()
        .withId(UUID.randomUUID().toString())
        .withSource(URI.create("/batching"))
        .withType("com.example.batching")
        .withExtension("sequence", n)
        .withData("application/json", ("{\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8))
        .build();
  }

  /**
   * Puts {@code count} events on {@code uri} through a separate adapter and waits for the broker's
   * commit.
   */
  private List<String> preload(ChannelUri uri, int count) {
    JmsChannelAdapter producer = adapter(JmsChannelProperties.Batch.defaults());
    OutboundChannel out = producer.openOutbound(uri);
    List<String> ids = new ArrayList<>();
    List<CompletableFuture<Void>> sends = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      CloudEvent e = event(i);
      ids.add(e.getId());
      sends.add(out.send(e));
    }
    CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new))
        .orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS)
        .join();
    return ids;
  }

  private static JmsChannelProperties.Batch inbound(int size, Duration linger, int sessions) {
    return new JmsChannelProperties.Batch(size, linger, sessions, null);
  }

  @Test
  void aBatchOfEventsIsCommittedOnceWithoutAnAcknowledgementPerMessage() {
    ChannelUri uri = freshQueue("batch");
    List<String> ids = preload(uri, 50);
    broker.reset();
    JmsChannelAdapter adapter = adapter(inbound(50, Duration.ofSeconds(5), 1));
    Set<String> received = ConcurrentHashMap.newKeySet();
    track(
        adapter.openInbound(
            uri,
            InboundSettings.strict(),
            (e, ack) -> {
              received.add(e.getId());
              ack.ack();
            }));

    await().atMost(WAIT).until(() -> !broker.committed(CountingBroker.Tx::consumer).isEmpty());
    assertThat(received).containsExactlyInAnyOrderElementsOf(ids);
    await()
        .during(Duration.ofMillis(500))
        .atMost(WAIT)
        .until(() -> broker.committed(CountingBroker.Tx::consumer).size() == 1);
    CountingBroker.Tx commit = broker.committed(CountingBroker.Tx::consumer).get(0);
    assertThat(commit.acked()).as("50 events, one commit").isEqualTo(50);
    assertThat(commit.ackCommands())
        .as("one acknowledgement command for the batch, none per message")
        .isEqualTo(1);
    assertThat(broker.acksOutsideTransactions()).isZero();
  }

  @Test
  void eventsArrivingWhileABatchWaitsForSlowSettlementsAreHandedOutAtOnce() throws Exception {
    ChannelUri uri = freshQueue("slow");
    JmsChannelAdapter adapter = adapter(inbound(100, Duration.ofMillis(10), 1));
    List<String> handedOut = new CopyOnWriteArrayList<>();
    List<io.activityservice.channel.Acknowledgement> slow = new CopyOnWriteArrayList<>();
    track(
        adapter.openInbound(
            uri,
            InboundSettings.strict(),
            (e, ack) -> {
              handedOut.add(e.getId());
              slow.add(
                  ack); // settles later, like an event whose first delivery attempt is parked after
              // park-after
            }));
    List<String> first = preload(uri, 5);
    await().atMost(WAIT).until(() -> handedOut.size() == 5);
    // Well past the linger nothing is committed: the batch stays open only because it is not
    // settled.
    await()
        .during(Duration.ofMillis(100))
        .atMost(WAIT)
        .until(() -> broker.committed(CountingBroker.Tx::consumer).isEmpty());

    List<String> later = preload(uri, 10);
    await().atMost(WAIT).until(() -> handedOut.size() == 15);
    assertThat(handedOut).containsAll(later);
    assertThat(broker.committed(CountingBroker.Tx::consumer))
        .as("nothing settled, nothing committed")
        .isEmpty();

    slow.forEach(io.activityservice.channel.Acknowledgement::ack);
    await()
        .atMost(WAIT)
        .until(
            () ->
                broker.committed(CountingBroker.Tx::consumer).stream()
                        .mapToInt(CountingBroker.Tx::acked)
                        .sum()
                    == 15);
    assertThat(broker.committed(CountingBroker.Tx::consumer))
        .as("one transaction for all 15")
        .hasSize(1);
    assertThat(handedOut).containsAll(first).hasSize(15);
  }

  @Test
  void closingTheChannelCommitsWhatWasHandledWithoutWaitingForTheLinger() throws Exception {
    ChannelUri uri = freshQueue("close");
    List<String> ids = preload(uri, 10);
    broker.reset();
    JmsChannelAdapter adapter = adapter(inbound(100, Duration.ofSeconds(8), 1));
    Set<String> received = ConcurrentHashMap.newKeySet();
    var channel =
        adapter.openInbound(
            uri,
            InboundSettings.strict(),
            (e, ack) -> {
              received.add(e.getId());
              ack.ack();
            });
    await().atMost(WAIT).until(() -> received.size() == 10);
    assertThat(broker.committed(CountingBroker.Tx::consumer))
        .as("the batch still lingers")
        .isEmpty();

    long start = System.nanoTime();
    channel.close();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(broker.committed(CountingBroker.Tx::consumer))
        .extracting(CountingBroker.Tx::acked)
        .containsExactly(10);

    List<String> again = new CopyOnWriteArrayList<>();
    track(
        adapter.openInbound(
            uri,
            InboundSettings.strict(),
            (e, ack) -> {
              again.add(e.getId());
              ack.ack();
            }));
    await().during(Duration.ofSeconds(1)).atMost(WAIT).until(again::isEmpty);
    assertThat(received).containsExactlyInAnyOrderElementsOf(ids);
  }

  @Test
  void sendsQueuedWhileTheSenderIsBusyGoInOneTransactionPerBatch() {
    ChannelUri uri = freshQueue("send-batch");
    broker.delayNextConnection(
        Duration.ofMillis(500)); // the sender connects on its first send: the rest queue up
    JmsChannelAdapter adapter = adapter(new JmsChannelProperties.Batch(null, null, null, 100));
    OutboundChannel out = track(adapter.openOutbound(uri));
    List<CompletableFuture<Void>> sends = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      sends.add(out.send(event(i)));
    }
    CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new))
        .orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS)
        .join();

    assertThat(broker.committed(CountingBroker.Tx::producer))
        .as("200 queued events, batches of at most 100")
        .extracting(CountingBroker.Tx::sends)
        .containsExactly(100, 100);
    assertThat(broker.sendsOutsideTransactions()).isZero();
  }

  @Test
  void anEventAloneInItsBatchIsSentWithoutATransaction() throws Exception {
    ChannelUri uri = freshQueue("alone");
    JmsChannelAdapter adapter = adapter(JmsChannelProperties.Batch.defaults());
    OutboundChannel out = track(adapter.openOutbound(uri));
    for (int i = 0; i < 3; i++) {
      out.send(event(i))
          .get(WAIT.toSeconds(), TimeUnit.SECONDS); // one at a time: each alone in its batch
    }
    assertThat(broker.sendsOutsideTransactions()).isEqualTo(3);
    assertThat(broker.committed(CountingBroker.Tx::producer)).isEmpty();
    assertThat(drain(uri)).hasSize(3);
  }

  @Test
  void aNackedEventComesBackAloneAfterTheBackoffAndItsBatchCommitsOnce() {
    ChannelUri uri = freshQueue("nack");
    List<String> ids = preload(uri, 10);
    broker.reset();
    String nacked = ids.get(3);
    JmsChannelAdapter adapter = adapter(inbound(10, Duration.ofSeconds(5), 1));
    Map<String, List<Long>> deliveries = new ConcurrentHashMap<>();
    track(
        adapter.openInbound(
            uri,
            InboundSettings.strict(),
            (e, ack) -> {
              List<Long> times =
                  deliveries.computeIfAbsent(e.getId(), k -> new CopyOnWriteArrayList<>());
              times.add(System.nanoTime());
              if (e.getId().equals(nacked) && times.size() == 1) {
                ack.nack(new IllegalStateException("fails once on purpose"));
              } else {
                ack.ack();
              }
            }));

    await().atMost(WAIT).until(() -> !broker.committed(CountingBroker.Tx::consumer).isEmpty());
    assertThat(deliveries.keySet()).containsExactlyInAnyOrderElementsOf(ids);
    assertThat(deliveries.get(nacked)).hasSize(2);
    assertThat(Duration.ofNanos(deliveries.get(nacked).get(1) - deliveries.get(nacked).get(0)))
        .as("after the redelivery backoff")
        .isGreaterThanOrEqualTo(Duration.ofMillis(280));
    ids.stream()
        .filter(id -> !id.equals(nacked))
        .forEach(
            id ->
                assertThat(deliveries.get(id)).as("only the nacked event comes again").hasSize(1));
    await()
        .during(Duration.ofMillis(500))
        .atMost(WAIT)
        .until(() -> broker.committed(CountingBroker.Tx::consumer).size() == 1);
    assertThat(broker.committed(CountingBroker.Tx::consumer).get(0).acked()).isEqualTo(10);
    assertThat(broker.transactions())
        .as("nothing rolled back")
        .allMatch(CountingBroker.Tx::committed);
  }

  @Test
  void aFailedCommitBringsTheBatchBackWithoutHandingOutWhatWasHandled() {
    ChannelUri uri = freshQueue("commit-fails");
    List<String> ids = preload(uri, 10);
    broker.reset();
    AtomicInteger consumerCommits = new AtomicInteger();
    broker.onCommit(
        (sends, acked) ->
            acked > 0 && consumerCommits.getAndIncrement() == 0
                ? new IllegalStateException("the first commit fails on purpose")
                : null);
    JmsChannelAdapter adapter = adapter(inbound(10, Duration.ofSeconds(5), 1));
    Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
    track(
        adapter.openInbound(
            uri,
            InboundSettings.strict(),
            (e, ack) -> {
              deliveries.computeIfAbsent(e.getId(), k -> new AtomicInteger()).incrementAndGet();
              ack.ack();
            }));

    await()
        .atMost(WAIT)
        .until(
            () ->
                broker.committed(CountingBroker.Tx::consumer).stream()
                        .mapToInt(CountingBroker.Tx::acked)
                        .sum()
                    == 10);
    assertThat(broker.transactions())
        .filteredOn(tx -> !tx.committed())
        .as("the failed commit")
        .extracting(CountingBroker.Tx::acked)
        .containsExactly(10);
    assertThat(deliveries.keySet()).containsExactlyInAnyOrderElementsOf(ids);
    await()
        .during(Duration.ofMillis(500))
        .atMost(WAIT)
        .until(() -> deliveries.values().stream().allMatch(n -> n.get() == 1));
  }

  @Test
  void aCrashBeforeTheCommitBringsTheWholeBatchBackAcknowledgedOrNot() throws Exception {
    ChannelUri uri = freshQueue("crash");
    List<String> ids = preload(uri, 20);
    TcpProxy proxy =
        track(
            new TcpProxy(
                Integer.parseInt(broker.url().substring(broker.url().lastIndexOf(':') + 1))));
    JmsChannelAdapter crashing =
        adapter(proxy.url(), inbound(20, Duration.ofSeconds(10), 1), Duration.ofSeconds(2));
    Set<String> acked = ConcurrentHashMap.newKeySet();
    List<io.activityservice.channel.Acknowledgement> held = new CopyOnWriteArrayList<>();
    track(
        crashing.openInbound(
            uri,
            InboundSettings.strict(),
            (e, ack) -> {
              if (acked.size() < 19) {
                acked.add(e.getId());
                ack.ack();
              } else {
                held.add(ack); // the batch cannot commit yet
              }
            }));
    await().atMost(WAIT).until(() -> acked.size() == 19 && held.size() == 1);
    assertThat(broker.committed(CountingBroker.Tx::consumer)).isEmpty();

    proxy.kill(); // the consumer dies before its commit, as in a crash

    Set<String> redelivered = ConcurrentHashMap.newKeySet();
    JmsChannelAdapter survivor = adapter(JmsChannelProperties.Batch.defaults());
    track(
        survivor.openInbound(
            uri,
            InboundSettings.strict(),
            (e, ack) -> {
              redelivered.add(e.getId());
              ack.ack();
            }));
    await().atMost(WAIT).until(() -> redelivered.size() == ids.size());
    assertThat(redelivered)
        .as("the whole uncommitted batch, acknowledged or not")
        .containsExactlyInAnyOrderElementsOf(ids)
        .containsAll(acked);
    held.forEach(io.activityservice.channel.Acknowledgement::ack);
  }

  @Test
  void aFailedOutboundCommitFailsEveryFutureOfItsBatchAndNoOther() throws Exception {
    ChannelUri uri = freshQueue("send-fails");
    AtomicInteger producerCommits = new AtomicInteger();
    broker.onCommit(
        (sends, acked) ->
            sends > 0 && producerCommits.getAndIncrement() == 0
                ? new IllegalStateException("the first commit fails on purpose")
                : null);
    broker.delayNextConnection(
        Duration.ofMillis(300)); // the 50 events queue up while the sender connects
    JmsChannelAdapter adapter = adapter(JmsChannelProperties.Batch.defaults());
    OutboundChannel out = track(adapter.openOutbound(uri));
    Map<String, CompletableFuture<Void>> failing = new HashMap<>();
    for (int i = 0; i < 50; i++) {
      CloudEvent e = event(i);
      failing.put(e.getId(), out.send(e));
    }
    CompletableFuture.allOf(failing.values().toArray(CompletableFuture[]::new))
        .handle((ok, error) -> null)
        .get(WAIT.toSeconds(), TimeUnit.SECONDS);
    Map<String, CompletableFuture<Void>> later = new HashMap<>();
    for (int i = 50; i < 70; i++) {
      CloudEvent e = event(i);
      later.put(e.getId(), out.send(e));
    }
    CompletableFuture.allOf(later.values().toArray(CompletableFuture[]::new))
        .get(WAIT.toSeconds(), TimeUnit.SECONDS);

    List<CountingBroker.Tx> failed =
        broker.transactions().stream().filter(tx -> !tx.committed()).toList();
    assertThat(failed).hasSize(1);
    assertThat(failed.get(0).eventIds())
        .as("one transaction of the 50 queued events")
        .containsExactlyInAnyOrderElementsOf(failing.keySet());
    assertThat(failing.values()).allSatisfy(f -> assertThat(f).isCompletedExceptionally());
    // The failed batch never reached the queue; the later events did.
    assertThat(drain(uri)).containsExactlyInAnyOrderElementsOf(later.keySet());
  }

  @Test
  void aDestinationTheBrokerRefusesDoesNotFailEventsBatchedWithIt() throws Exception {
    ChannelUri good = freshQueue("good");
    ChannelUri refused = ChannelUri.parse("jms:queue:refused." + names.incrementAndGet());
    broker.refuseSendsTo(name -> name.startsWith("refused."));
    broker.delayNextConnection(
        Duration.ofMillis(300)); // what is sent meanwhile goes in one transaction
    JmsChannelAdapter adapter = adapter(JmsChannelProperties.Batch.defaults());
    OutboundChannel toGood = track(adapter.openOutbound(good));
    OutboundChannel toRefused = track(adapter.openOutbound(refused));
    Map<String, CompletableFuture<Void>> goodSends = new HashMap<>();
    List<CompletableFuture<Void>> refusedSends = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      CloudEvent e = event(i);
      goodSends.put(e.getId(), toGood.send(e));
      refusedSends.add(toRefused.send(event(100 + i)));
    }
    CompletableFuture.allOf(goodSends.values().toArray(CompletableFuture[]::new))
        .get(WAIT.toSeconds(), TimeUnit.SECONDS);
    CompletableFuture.allOf(refusedSends.toArray(CompletableFuture[]::new))
        .handle((ok, error) -> null)
        .get(WAIT.toSeconds(), TimeUnit.SECONDS);

    assertThat(refusedSends).allSatisfy(f -> assertThat(f).isCompletedExceptionally());
    assertThat(broker.transactions())
        .as("the refused transaction carried good events too")
        .anySatisfy(
            tx -> {
              assertThat(tx.committed()).isFalse();
              assertThat(tx.eventIds()).containsAnyElementsOf(goodSends.keySet());
            });
    assertThat(drain(good)).containsAll(goodSends.keySet());
  }

  @Test
  void aPartitionKeyTravelsAsTheMessageGroup() throws Exception {
    ChannelUri uri = freshQueue("groups");
    JmsChannelAdapter adapter = adapter(JmsChannelProperties.Batch.defaults());
    OutboundChannel out = track(adapter.openOutbound(uri));
    out.send(OutboundEvent.of(event(1)).withPartitionKey("order-42"))
        .get(WAIT.toSeconds(), TimeUnit.SECONDS);
    out.send(event(2)).get(WAIT.toSeconds(), TimeUnit.SECONDS);

    Map<Integer, String> groups = new HashMap<>();
    try (Connection c = new ActiveMQConnectionFactory(broker.url()).createConnection()) {
      c.start();
      Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
      MessageConsumer consumer =
          s.createConsumer(new ActiveMQQueue(uri.toString().substring("jms:queue:".length())));
      for (int i = 0; i < 2; i++) {
        Message m = consumer.receive(WAIT.toMillis());
        groups.put(
            m.getIntProperty(JmsCloudEventCodec.PREFIX + "sequence"),
            m.getStringProperty("JMSXGroupID"));
      }
    }
    assertThat(groups).containsEntry(1, "order-42").containsEntry(2, null);
  }

  @Test
  void anIdleAdapterHasNoThreadWaitingOnATimer() throws Exception {
    ChannelUri uri = freshQueue("idle");
    Set<String> before = adapterThreads().keySet();
    JmsChannelAdapter adapter = adapter(JmsChannelProperties.Batch.defaults());
    CompletableFuture<String> received = new CompletableFuture<>();
    track(
        adapter.openInbound(
            uri,
            InboundSettings.strict(),
            (e, ack) -> {
              ack.ack();
              received.complete(e.getId());
            }));
    CloudEvent sent = event(1);
    track(adapter.openOutbound(uri)).send(sent).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(received.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(sent.getId());

    // Once the traffic is over, every thread of the adapter blocks without a timeout: no polling,
    // no sweep.
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(adapterThreads())
                    .satisfies(threads -> threads.keySet().removeAll(before))
                    .hasSizeGreaterThanOrEqualTo(
                        4) // an inbound session, a sender, the deadline sweep, the redelivery timer
                    .allSatisfy(
                        (name, state) ->
                            assertThat(state).as(name).isEqualTo(Thread.State.WAITING)));
  }

  private static Map<String, Thread.State> adapterThreads() {
    Map<String, Thread.State> states = new HashMap<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith("jms-") && t.isAlive()) {
        states.put(t.getName() + "#" + t.getId(), t.getState());
      }
    }
    return states;
  }

  /** Event ids of what is on the queue (waits until nothing more comes for a second). */
  private Set<String> drain(ChannelUri uri) {
    Set<String> ids = ConcurrentHashMap.newKeySet();
    JmsChannelAdapter reader = adapter(JmsChannelProperties.Batch.defaults());
    track(
        reader.openInbound(
            uri,
            InboundSettings.strict(),
            (e, ack) -> {
              ids.add(e.getId());
              ack.ack();
            }));
    AtomicInteger last = new AtomicInteger(-1);
    await()
        .pollInterval(Duration.ofSeconds(1))
        .atMost(WAIT)
        .until(() -> last.getAndSet(ids.size()) == ids.size());
    return ids;
  }
}
