package io.activityservice.channel.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.channel.Acknowledgement;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.jms.embedded.EmbeddedActiveMqBroker;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
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
import org.apache.activemq.command.ActiveMQTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Adapter behaviour beyond the shared contract, on a real broker over TCP. */
class JmsChannelBehaviourTest {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final AtomicInteger names = new AtomicInteger();
  private static EmbeddedActiveMqBroker broker;
  private static JmsChannelAdapter adapter;
  private static Connection raw;

  private final List<AutoCloseable> opened = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    broker = TestBrokers.inMemory();
    adapter = new JmsChannelAdapter(JmsChannelProperties.forBroker(TestBrokers.tcpUrl(broker)));
    raw = new ActiveMQConnectionFactory(TestBrokers.tcpUrl(broker)).createConnection();
    raw.start();
  }

  @AfterAll
  static void stop() throws Exception {
    raw.close();
    adapter.close();
    broker.close();
  }

  @AfterEach
  void closeOpened() throws Exception {
    for (AutoCloseable c : opened) {
      c.close();
    }
  }

  private <T extends AutoCloseable> T track(T c) {
    opened.add(c);
    return c;
  }

  private static String fresh(String prefix) {
    return prefix + "." + names.incrementAndGet();
  }

  private static CloudEvent event(int n) {
    return CloudEventBuilder.v1()
        .withId(UUID.randomUUID().toString())
        .withSource(URI.create("/test"))
        .withType("com.example.test")
        .withExtension("sequence", n)
        .withData("application/json", ("{\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8))
        .build();
  }

  private static InboundSettings subscription(String name, int maxInFlight) {
    return new InboundSettings(
        null,
        null,
        Map.of(
            JmsChannelAdapter.SUBSCRIPTION_NAME,
            name,
            JmsChannelAdapter.MAX_IN_FLIGHT,
            "" + maxInFlight));
  }

  private static void sendAll(OutboundChannel out, List<CloudEvent> events) {
    CompletableFuture.allOf(events.stream().map(out::send).toArray(CompletableFuture[]::new))
        .orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS)
        .join();
  }

  private static void sendRaw(String queue, String text, String contentType) throws Exception {
    try (Session session = raw.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = session.createProducer(new ActiveMQQueue(queue))) {
      TextMessage message = session.createTextMessage(text);
      if (contentType != null) {
        message.setStringProperty("contentType", contentType);
      }
      producer.send(message);
    }
  }

  @Test
  void replicasWithTheSameSubscriptionShareTheTopicEachMessageOnce() {
    ChannelUri topic = ChannelUri.parse("jms:topic:" + fresh("shared"));
    Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
    Set<String> first = ConcurrentHashMap.newKeySet();
    Set<String> second = ConcurrentHashMap.newKeySet();
    track(
        adapter.openInbound(
            topic,
            subscription("replicas", 10),
            (e, ack) -> {
              first.add(e.getId());
              deliveries.computeIfAbsent(e.getId(), k -> new AtomicInteger()).incrementAndGet();
              ack.ack();
            }));
    track(
        adapter.openInbound(
            topic,
            subscription("replicas", 10),
            (e, ack) -> {
              second.add(e.getId());
              deliveries.computeIfAbsent(e.getId(), k -> new AtomicInteger()).incrementAndGet();
              ack.ack();
            }));
    List<CloudEvent> events = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      events.add(event(i));
    }
    sendAll(track(adapter.openOutbound(topic)), events);

    await().atMost(WAIT).until(() -> deliveries.size() == events.size());
    assertThat(deliveries.values()).allSatisfy(count -> assertThat(count.get()).isEqualTo(1));
    assertThat(first).isNotEmpty().doesNotContainAnyElementsOf(second);
    assertThat(second).isNotEmpty();
  }

  @Test
  void differentSubscriptionsEachGetEveryTopicMessage() {
    ChannelUri topic = ChannelUri.parse("jms:topic:" + fresh("fanout"));
    Set<String> a = ConcurrentHashMap.newKeySet();
    Set<String> b = ConcurrentHashMap.newKeySet();
    track(
        adapter.openInbound(
            topic,
            subscription("service-a", 100),
            (e, ack) -> {
              a.add(e.getId());
              ack.ack();
            }));
    track(
        adapter.openInbound(
            topic,
            subscription("service-b", 100),
            (e, ack) -> {
              b.add(e.getId());
              ack.ack();
            }));
    List<CloudEvent> events = List.of(event(1), event(2), event(3));
    sendAll(track(adapter.openOutbound(topic)), events);

    Set<String> ids = new HashSet<>(events.stream().map(CloudEvent::getId).toList());
    await().atMost(WAIT).until(() -> a.equals(ids) && b.equals(ids));
  }

  @Test
  void subscriptionKeepsMessagesWhileNoReplicaListens() throws Exception {
    ChannelUri topic = ChannelUri.parse("jms:topic:" + fresh("durable"));
    InboundChannel firstRun =
        adapter.openInbound(topic, subscription("durable-sub", 10), (e, ack) -> ack.ack());
    firstRun.close();
    CloudEvent whileAway = event(1);
    track(adapter.openOutbound(topic)).send(whileAway).get(WAIT.toSeconds(), TimeUnit.SECONDS);

    CompletableFuture<CloudEvent> received = new CompletableFuture<>();
    track(
        adapter.openInbound(
            topic,
            subscription("durable-sub", 10),
            (e, ack) -> {
              ack.ack();
              received.complete(e);
            }));
    assertThat(received.get(WAIT.toSeconds(), TimeUnit.SECONDS).getId())
        .isEqualTo(whileAway.getId());
  }

  @Test
  void plainMessagesAreWrappedWithTheChannelDefaults() throws Exception {
    String queue = fresh("legacy");
    List<CloudEvent> received = new CopyOnWriteArrayList<>();
    InboundSettings defaults =
        new InboundSettings("com.example.legacy", URI.create("/legacy"), Map.of());
    track(
        adapter.openInbound(
            ChannelUri.parse("jms:queue:" + queue),
            defaults,
            (e, ack) -> {
              received.add(e);
              ack.ack();
            }));
    sendRaw(queue, "{\"order\":1}", null);
    sendRaw(queue, "order 2 shipped", null);

    await().atMost(WAIT).until(() -> received.size() == 2);
    CloudEvent json =
        received.stream()
            .filter(e -> e.getDataContentType().equals("application/json"))
            .findFirst()
            .orElseThrow();
    CloudEvent text =
        received.stream()
            .filter(e -> e.getDataContentType().equals("text/plain"))
            .findFirst()
            .orElseThrow();
    assertThat(json.getId()).startsWith("ID:");
    assertThat(json.getType()).isEqualTo("com.example.legacy");
    assertThat(json.getSource()).isEqualTo(URI.create("/legacy"));
    assertThat(new String(json.getData().toBytes(), StandardCharsets.UTF_8))
        .isEqualTo("{\"order\":1}");
    assertThat(new String(text.getData().toBytes(), StandardCharsets.UTF_8))
        .isEqualTo("order 2 shipped");
  }

  @Test
  void structuredJsonBodyIsAccepted() throws Exception {
    String queue = fresh("structured");
    CompletableFuture<CloudEvent> received = new CompletableFuture<>();
    track(
        adapter.openInbound(
            ChannelUri.parse("jms:queue:" + queue),
            InboundSettings.strict(),
            (e, ack) -> {
              ack.ack();
              received.complete(e);
            }));
    CloudEvent sent = event(5);
    sendRaw(
        queue,
        new String(CloudEventJson.encode(sent), StandardCharsets.UTF_8),
        CloudEventJson.CONTENT_TYPE);

    CloudEvent got = received.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(got.getId()).isEqualTo(sent.getId());
    assertThat(got.getExtension("sequence")).isEqualTo(5);
  }

  @Test
  void messageThatIsNotAnEventIsDroppedAndDoesNotBlockTheChannel() throws Exception {
    String queue = fresh("poison");
    List<String> received = new CopyOnWriteArrayList<>();
    track(
        adapter.openInbound(
            ChannelUri.parse("jms:queue:" + queue),
            InboundSettings.strict(),
            (e, ack) -> {
              received.add(e.getId());
              ack.ack();
            }));
    sendRaw(queue, "no cloud event here", null);
    CloudEvent next = event(1);
    track(adapter.openOutbound(ChannelUri.parse("jms:queue:" + queue)))
        .send(next)
        .get(WAIT.toSeconds(), TimeUnit.SECONDS);

    await().atMost(WAIT).until(() -> received.contains(next.getId()));
    // The plain message was acknowledged (dropped with a WARN), not left to be redelivered forever.
    await().atMost(WAIT).until(() -> queueDepth(queue) == 0);
    assertThat(received).containsExactly(next.getId());
  }

  @Test
  void unacknowledgedMessagesAreBoundedByMaxInFlight() {
    ChannelUri uri = ChannelUri.parse("jms:queue:" + fresh("bounded"));
    List<Acknowledgement> pending = Collections.synchronizedList(new ArrayList<>());
    Set<String> seen = ConcurrentHashMap.newKeySet();
    track(
        adapter.openInbound(
            uri,
            subscription("unused", 5),
            (e, ack) -> {
              seen.add(e.getId());
              pending.add(ack);
            }));
    List<CloudEvent> events = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      events.add(event(i));
    }
    sendAll(track(adapter.openOutbound(uri)), events);

    await().atMost(WAIT).until(() -> pending.size() == 5);
    await().during(Duration.ofMillis(700)).atMost(WAIT).until(() -> pending.size() == 5);
    // Acknowledging out of order frees the slots; the rest arrive, still at most 5 unsettled at
    // once.
    await()
        .atMost(WAIT)
        .until(
            () -> {
              synchronized (pending) {
                for (int i = pending.size() - 1; i >= 0; i--) {
                  pending.remove(i).ack();
                }
              }
              return seen.size() == 20;
            });
  }

  @Test
  void nonPersistentChannelDeliversNonPersistentMessages() throws Exception {
    String queue = fresh("fast");
    CloudEvent sent = event(3);
    track(adapter.openOutbound(ChannelUri.parse("jms:queue:" + queue + "?persistent=false")))
        .send(sent)
        .get(WAIT.toSeconds(), TimeUnit.SECONDS);
    CloudEvent persistent = event(4);
    track(adapter.openOutbound(ChannelUri.parse("jms:queue:" + queue)))
        .send(persistent)
        .get(WAIT.toSeconds(), TimeUnit.SECONDS);

    try (Session session = raw.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = session.createConsumer(new ActiveMQQueue(queue))) {
      Map<String, Message> byId = new ConcurrentHashMap<>();
      for (int i = 0; i < 2; i++) {
        Message m = consumer.receive(WAIT.toMillis());
        byId.put(m.getStringProperty("cloudEvents_id"), m);
      }
      // ActiveMQ queues keep persistent and non-persistent messages in separate cursors: no order.
      Message first = byId.get(sent.getId());
      assertThat(first.getJMSDeliveryMode()).isEqualTo(DeliveryMode.NON_PERSISTENT);
      assertThat(byId.get(persistent.getId()).getJMSDeliveryMode())
          .isEqualTo(DeliveryMode.PERSISTENT);
      assertThat(((TextMessage) first).getText()).isEqualTo("{\"n\":3}");
    }
  }

  @Test
  void nonPersistentChannelRoundTripsThroughTheAdapter() throws Exception {
    ChannelUri uri = ChannelUri.parse("jms:topic:" + fresh("fast-topic") + "?persistent=false");
    Set<String> got = ConcurrentHashMap.newKeySet();
    track(
        adapter.openInbound(
            uri,
            InboundSettings.strict(),
            (e, ack) -> {
              got.add(e.getId());
              ack.ack();
            }));
    List<CloudEvent> events = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      events.add(event(i));
    }
    sendAll(track(adapter.openOutbound(uri)), events);
    await().atMost(WAIT).until(() -> got.size() == 100);
  }

  @Test
  void plainTopicSubscribersSeeTheBinaryModeEvent() throws Exception {
    String topic = fresh("observed");
    try (Session session = raw.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = session.createConsumer(new ActiveMQTopic(topic))) {
      CloudEvent sent = event(9);
      track(adapter.openOutbound(ChannelUri.parse("jms:topic:" + topic)))
          .send(sent)
          .get(WAIT.toSeconds(), TimeUnit.SECONDS);
      Message m = consumer.receive(WAIT.toMillis());
      assertThat(m.getStringProperty("cloudEvents_type")).isEqualTo("com.example.test");
      assertThat(m.getStringProperty("contentType")).isEqualTo("application/json");
      assertThat(m.getIntProperty("cloudEvents_sequence")).isEqualTo(9);
    }
  }

  @Test
  void exclusiveConsumersLeaveOneReplicaReceivingAndFailOverWhenItCloses() {
    ChannelUri uri = ChannelUri.parse("jms:queue:" + fresh("exclusive"));
    InboundSettings exclusive =
        new InboundSettings(null, null, Map.of(JmsChannelAdapter.EXCLUSIVE, "true"));
    Map<String, Set<String>> byReplica =
        Map.of("a", ConcurrentHashMap.newKeySet(), "b", ConcurrentHashMap.newKeySet());
    Map<String, InboundChannel> replicas = new ConcurrentHashMap<>();
    for (String name : List.of("a", "b")) {
      replicas.put(
          name,
          track(
              adapter.openInbound(
                  uri,
                  exclusive,
                  (e, ack) -> {
                    byReplica.get(name).add(e.getId());
                    ack.ack();
                  })));
    }
    OutboundChannel out = track(adapter.openOutbound(uri));
    List<CloudEvent> first = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      first.add(event(i));
    }
    sendAll(out, first);
    await().atMost(WAIT).until(() -> byReplica.get("a").size() + byReplica.get("b").size() == 50);
    String active = byReplica.get("a").isEmpty() ? "b" : "a";
    String standby = active.equals("a") ? "b" : "a";
    assertThat(byReplica.get(active)).as("one exclusive consumer gets every message").hasSize(50);
    assertThat(byReplica.get(standby)).isEmpty();

    replicas.get(active).close();
    List<CloudEvent> second = new ArrayList<>();
    for (int i = 50; i < 70; i++) {
      second.add(event(i));
    }
    sendAll(out, second);
    await().atMost(WAIT).until(() -> byReplica.get(standby).size() == 20);
    assertThat(byReplica.get(active)).hasSize(50);
  }

  @Test
  void exclusiveMustBeTrueOrFalse() {
    InboundSettings bad =
        new InboundSettings(null, null, Map.of(JmsChannelAdapter.EXCLUSIVE, "yes"));
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> adapter.openInbound(ChannelUri.parse("jms:queue:x"), bad, (e, ack) -> ack.ack()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("exclusive")
        .hasMessageContaining("true");
  }

  private static int queueDepth(String queue) throws Exception {
    try (Session session = raw.createSession(false, Session.AUTO_ACKNOWLEDGE)) {
      var browser = session.createBrowser(new ActiveMQQueue(queue));
      int n = Collections.list(browser.getEnumeration()).size();
      browser.close();
      return n;
    }
  }
}
