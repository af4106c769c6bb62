package io.activityservice.events.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.OutboundEvent;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.cluster.PartitionKey;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.subscription.DeliveryOptions;
import io.activityservice.events.subscription.Ordering;
import io.activityservice.events.subscription.RetryPolicy;
import io.activityservice.events.subscription.Subscription;
import io.activityservice.events.subscription.SubscriptionIndex;
import io.activityservice.events.support.Events;
import io.activityservice.events.support.FakeChannelAdapter;
import io.activityservice.events.support.TestDatabases;
import io.cloudevents.CloudEvent;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Ordering per key on every supported database, with two replicas ({@link DurableDelivery}
 * instances, each with its own store and retry worker) on one database: a key's events go out one
 * at a time and in order while other keys flow, a failing event holds up only its own key, and for
 * at most {@code ordering.maxWait}.
 */
abstract class AbstractOrderingTest {

  private static final RetryPolicy FAST =
      new RetryPolicy(185, Duration.ofMillis(20), Duration.ofMillis(100), Duration.ofMinutes(5));

  protected abstract DataSource dataSource();

  private final FakeChannelAdapter fakeA = new FakeChannelAdapter("fake");
  private final FakeChannelAdapter fakeB = new FakeChannelAdapter("fake");
  private final SubscriptionIndex index = new SubscriptionIndex();
  private final ScheduledExecutorService target = Executors.newScheduledThreadPool(2);

  /** What the target accepted, in acceptance order, on both replicas: key, then n. */
  private final List<String> accepted = new CopyOnWriteArrayList<>();

  private final List<String> partitionKeys = new CopyOnWriteArrayList<>();
  private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
  private final AtomicInteger worstConcurrencyPerKey = new AtomicInteger();
  private DurableDelivery a;
  private DurableDelivery b;

  @BeforeEach
  void setUp() {
    TestDatabases.clean(dataSource());
    a = replica("replica-a", fakeA);
    b = replica("replica-b", fakeB);
  }

  @AfterEach
  void tearDown() {
    a.close();
    b.close();
    target.shutdownNow();
  }

  private DurableDelivery replica(String id, FakeChannelAdapter fake) {
    DeliverySettings d = DeliverySettings.defaults(id);
    return new DurableDelivery(
            new DeliveryStore(dataSource()),
            new ChannelRegistry(List.of(fake)),
            null,
            index::get,
            new DeliveryMetrics(new SimpleMeterRegistry(), 100),
            Clock.systemUTC(),
            new DeliverySettings(
                Duration.ofMillis(300),
                Duration.ofSeconds(5),
                Duration.ofSeconds(5),
                100,
                256,
                64,
                100_000,
                Duration.ofDays(1),
                id))
        .start();
  }

  /**
   * Both replicas' target: answers after 2 ms (so that two sends of one key would overlap), fails
   * while {@code failing} holds for the event, records each key's sends in flight.
   */
  private void target(Predicate<CloudEvent> failing) {
    for (FakeChannelAdapter fake : List.of(fakeA, fakeB)) {
      fake.outbound("fake:ordered").answer(e -> answer(e, failing));
    }
  }

  private CompletableFuture<Void> answer(OutboundEvent e, Predicate<CloudEvent> failing) {
    String key = String.valueOf(e.partitionKey());
    partitionKeys.add(key);
    int now = inFlight.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
    worstConcurrencyPerKey.accumulateAndGet(now, Math::max);
    CompletableFuture<Void> f = new CompletableFuture<>();
    target.schedule(
        () -> {
          inFlight.get(key).decrementAndGet();
          if (failing.test(e.event())) {
            f.completeExceptionally(new IOException("503 from the target for key " + key));
          } else {
            accepted.add(key + ":" + n(e.event()));
            f.complete(null);
          }
        },
        2,
        TimeUnit.MILLISECONDS);
    return f;
  }

  private SubscriptionIndex.Entry subscribe(Duration maxWait) {
    Subscription s =
        new Subscription(
            "sub-ordered",
            "ordered",
            null,
            null,
            "fake:ordered",
            FAST,
            null,
            OffsetDateTime.now(),
            null,
            new DeliveryOptions(
                null,
                null,
                null,
                new Ordering(PartitionKey.parse("data.k", "ordering.key"), maxWait)));
    SubscriptionIndex.Entry entry =
        new SubscriptionIndex.Entry(s, null, ChannelUri.parse("fake:ordered"), null);
    index.add(entry);
    return entry;
  }

  private static int n(CloudEvent e) {
    String json = new String(e.getData().toBytes(), java.nio.charset.StandardCharsets.UTF_8);
    int i = json.indexOf("\"n\":");
    return Integer.parseInt(json.substring(i + 4).replaceAll("[^0-9].*", ""));
  }

  private static String key(CloudEvent e) {
    String json = new String(e.getData().toBytes(), java.nio.charset.StandardCharsets.UTF_8);
    int i = json.indexOf("\"k\":\"");
    return i < 0 ? PartitionKey.NONE : json.substring(i + 5, json.indexOf('"', i + 5));
  }

  /** Hands {@code perKey} events of each key to the two replicas in turn, in order per key. */
  private void publish(SubscriptionIndex.Entry entry, List<String> keys, int perKey)
      throws Exception {
    for (int n = 0; n < perKey; n++) {
      List<CompletableFuture<DurableDelivery.Result>> round = new ArrayList<>();
      for (int k = 0; k < keys.size(); k++) {
        DurableDelivery replica = (n + k) % 2 == 0 ? a : b;
        Map<String, Object> data = new HashMap<>();
        data.put("n", n);
        if (keys.get(k) != null) {
          data.put("k", keys.get(k));
        }
        round.add(
            replica.deliver(entry, RoutableEvent.of(Events.event("com.example.ordered", data))));
      }
      for (CompletableFuture<DurableDelivery.Result> r : round) {
        assertThat(r.get(10, TimeUnit.SECONDS)).isEqualTo(DurableDelivery.Result.PARKED);
      }
    }
  }

  private List<Integer> acceptedOf(String key) {
    List<Integer> ns = new ArrayList<>();
    for (String s : accepted) {
      if (s.startsWith(key + ":")) {
        ns.add(Integer.parseInt(s.substring(key.length() + 1)));
      }
    }
    return ns;
  }

  private static List<Integer> upTo(int n) {
    List<Integer> ns = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ns.add(i);
    }
    return ns;
  }

  private long parked() {
    return JdbcClient.create(dataSource())
        .sql("select count(*) from parked_delivery")
        .query(Long.class)
        .single();
  }

  @Test
  void aFailingEventHoldsUpOnlyTheLaterEventsOfItsKeyAndEveryKeyArrivesInOrder() throws Exception {
    SubscriptionIndex.Entry entry = subscribe(Duration.ofMinutes(1));
    AtomicBoolean k0Down = new AtomicBoolean(true);
    target(e -> k0Down.get() && key(e).equals("k0"));
    List<String> keys = List.of("k0", "k1", "k2");

    publish(entry, keys, 40);

    // The other keys are delivered, in order, while k0's first event keeps failing.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> acceptedOf("k1").size() == 40 && acceptedOf("k2").size() == 40);
    assertThat(acceptedOf("k1")).isEqualTo(upTo(40));
    assertThat(acceptedOf("k2")).isEqualTo(upTo(40));
    // Only k0's head was tried: its later events wait in the store behind it.
    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                acceptedOf("k0").isEmpty()
                    && fakeA.outbound("fake:ordered").sent().stream()
                        .filter(e -> key(e).equals("k0"))
                        .allMatch(e -> n(e) == 0)
                    && fakeB.outbound("fake:ordered").sent().stream()
                        .filter(e -> key(e).equals("k0"))
                        .allMatch(e -> n(e) == 0));
    assertThat(parked()).isEqualTo(40);

    k0Down.set(false);
    await().atMost(Duration.ofSeconds(30)).until(() -> acceptedOf("k0").size() == 40);
    assertThat(acceptedOf("k0")).isEqualTo(upTo(40));
    await().atMost(Duration.ofSeconds(10)).until(() -> parked() == 0);
    assertThat(worstConcurrencyPerKey.get())
        .as("sends of one key in flight at once, both replicas together")
        .isEqualTo(1);
    assertThat(partitionKeys).as("the key goes on the wire").containsOnly("k0", "k1", "k2");
    assertThat(fakeA.outbound("fake:ordered").accepted())
        .as("both replicas delivered")
        .isNotEmpty();
    assertThat(fakeB.outbound("fake:ordered").accepted()).isNotEmpty();
  }

  @Test
  void pastMaxWaitTheBlockingEventIsDeadLetteredWithTheReasonAndItsKeyFlowsAgain()
      throws Exception {
    SubscriptionIndex.Entry entry = subscribe(Duration.ofMillis(500));
    // k0's first event is poison: its target refuses it for ever.
    target(e -> key(e).equals("k0") && n(e) == 0);

    long start = System.nanoTime();
    publish(entry, List.of("k0", "k1"), 10);

    await().atMost(Duration.ofSeconds(30)).until(() -> acceptedOf("k0").size() == 9);
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(acceptedOf("k0")).isEqualTo(upTo(10).subList(1, 10));
    await().atMost(Duration.ofSeconds(10)).until(() -> acceptedOf("k1").size() == 10);
    assertThat(acceptedOf("k1")).isEqualTo(upTo(10));
    assertThat(tookMillis).as("the key was held up about maxWait").isGreaterThanOrEqualTo(400);
    List<String> reasons =
        JdbcClient.create(dataSource())
            .sql("select reason from dead_letter where subscription_id = 'sub-ordered'")
            .query(String.class)
            .list();
    assertThat(reasons).hasSize(1);
    assertThat(reasons.get(0))
        .contains("ordering.maxWait=PT0.5S")
        .contains("data.k=k0")
        .contains("503 from the target");
  }

  @Test
  void eventsWithoutAKeyValueShareOneKeyAndStayInOrder() throws Exception {
    SubscriptionIndex.Entry entry = subscribe(Duration.ofMinutes(1));
    AtomicInteger failures = new AtomicInteger(3);
    target(e -> n(e) == 0 && failures.getAndDecrement() > 0);
    List<String> keys = new ArrayList<>();
    keys.add(null);

    publish(entry, keys, 5);

    await().atMost(Duration.ofSeconds(30)).until(() -> acceptedOf(PartitionKey.NONE).size() == 5);
    assertThat(acceptedOf(PartitionKey.NONE)).isEqualTo(upTo(5));
    assertThat(partitionKeys).containsOnly(PartitionKey.NONE);
  }
}
