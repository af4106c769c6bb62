package io.activityservice.events.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.channel.ChannelUri;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.delivery.DeadLetterRecord;
import io.activityservice.events.delivery.DeliveryMetrics;
import io.activityservice.events.delivery.DeliverySettings;
import io.activityservice.events.delivery.DeliveryStore;
import io.activityservice.events.delivery.DurableDelivery;
import io.activityservice.events.json.Json;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.subscription.RetryPolicy;
import io.activityservice.events.subscription.Subscription;
import io.activityservice.events.subscription.SubscriptionIndex;
import io.activityservice.events.support.Events;
import io.activityservice.events.support.FakeChannelAdapter;
import io.activityservice.events.support.FakeChannelAdapter.FakeOutbound;
import io.activityservice.events.support.TestDatabases;
import io.activityservice.events.transform.CompiledTransform;
import io.activityservice.events.transform.Transform;
import io.activityservice.events.transform.TransformLimits;
import io.cloudevents.CloudEvent;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Subscriptions with transformations, through the router and durable delivery on a real (H2)
 * database: the transformation is applied once per delivery (retries send the stored result), and
 * one that fails dead-letters that delivery only.
 */
class TransformDeliveryTest {

  private static final String READING = "com.example.meter.reading";
  private static final Duration PARK_AFTER = Duration.ofMillis(300);
  private static final RetryPolicy FAST_RETRY =
      new RetryPolicy(3, Duration.ofMillis(5), Duration.ofMillis(20), Duration.ofMinutes(1));
  private static final RetryPolicy NO_RETRY =
      new RetryPolicy(1, Duration.ofMillis(5), Duration.ofMillis(5), Duration.ofMinutes(1));

  private final FakeChannelAdapter fake = new FakeChannelAdapter("fake");
  private final ChannelRegistry channels = new ChannelRegistry(List.of(fake));
  private final SubscriptionIndex index = new SubscriptionIndex();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private DataSource db;
  private JdbcClient jdbc;
  private DurableDelivery delivery;
  private EventRouter router;
  private int ids;

  @BeforeEach
  void setUp() {
    db = TestDatabases.newH2();
    jdbc = JdbcClient.create(db);
    router = router(null, Duration.ofMinutes(5), 100);
  }

  @AfterEach
  void tearDown() {
    delivery.close();
  }

  private EventRouter router(String fallbackDeadLetter, Duration dedupWindow, int maxInFlight) {
    return router(fallbackDeadLetter, dedupWindow, maxInFlight, Duration.ofMillis(20));
  }

  private EventRouter router(
      String fallbackDeadLetter, Duration dedupWindow, int maxInFlight, Duration poll) {
    if (delivery != null) {
      delivery.close();
    }
    DeliverySettings settings =
        DeliverySettings.defaults("test-replica")
            .withParkAfter(PARK_AFTER)
            .withLease(Duration.ofSeconds(5), poll);
    delivery =
        new DurableDelivery(
                new DeliveryStore(db),
                channels,
                fallbackDeadLetter == null ? null : ChannelUri.parse(fallbackDeadLetter),
                index::get,
                new DeliveryMetrics(meters, 100),
                Clock.systemUTC(),
                settings)
            .start();
    return new EventRouter(
        index,
        delivery,
        new DuplicateFilter(dedupWindow, 10_000),
        new RoutingMetrics(meters, type -> true),
        maxInFlight);
  }

  private Subscription subscribe(
      String pattern, String target, RetryPolicy retry, String deadLetter) {
    Subscription s =
        new Subscription(
            "sub-" + (++ids),
            "s" + ids,
            pattern == null ? null : Json.parse(pattern, "p"),
            null,
            target,
            retry,
            deadLetter,
            OffsetDateTime.now());
    // The store drops parked deliveries of subscriptions that no longer exist, so they exist in the
    // table too.
    jdbc.sql(
            "insert into subscription (id, name, target, max_attempts, initial_backoff_ms, max_backoff_ms,"
                + " max_age_ms, created_at) values (?, ?, ?, 1, 1, 1, 1, ?)")
        .params(s.id(), s.name(), target, OffsetDateTime.now())
        .update();
    index.add(
        new SubscriptionIndex.Entry(
            s,
            null,
            ChannelUri.parse(target),
            deadLetter == null ? null : ChannelUri.parse(deadLetter)));
    return s;
  }

  private Subscription subscribe(String target, Transform transform, String deadLetter) {
    Subscription s =
        new Subscription(
            "sub-" + (++ids),
            "s" + ids,
            null,
            null,
            target,
            FAST_RETRY,
            deadLetter,
            OffsetDateTime.now(),
            null,
            transform,
            null);
    jdbc.sql(
            "insert into subscription (id, name, target, max_attempts, initial_backoff_ms, max_backoff_ms,"
                + " max_age_ms, created_at) values (?, ?, ?, 1, 1, 1, 1, ?)")
        .params(s.id(), s.name(), target, OffsetDateTime.now())
        .update();
    index.add(
        new SubscriptionIndex.Entry(
            s,
            null,
            ChannelUri.parse(target),
            deadLetter == null ? null : ChannelUri.parse(deadLetter),
            CompiledTransform.compile(transform, TransformLimits.DEFAULT)));
    return s;
  }

  private Subscription subscribe(String target) {
    return subscribe(null, target, FAST_RETRY, null);
  }

  private static RoutingOutcome outcome(CompletableFuture<RoutingOutcome> f) throws Exception {
    return f.get(10, TimeUnit.SECONDS);
  }

  private static RoutableEvent reading(String meter) {
    return Events.routable(READING, Map.of("meter", meter, "value", 42));
  }

  private long parked() {
    return jdbc.sql("select count(*) from parked_delivery").query(Long.class).single();
  }

  private List<DeadLetterRecord> deadLetters() {
    return new DeliveryStore(db).deadLetters().page(null, null, 1000);
  }

  private static String data(CloudEvent e) {
    return new String(e.getData().toBytes(), java.nio.charset.StandardCharsets.UTF_8);
  }

  @Test
  void eachSubscriptionGetsItsOwnShapeAndThePlainOneTheEventAsReceived() throws Exception {
    subscribe(
        "fake:partner",
        new Transform(
            "{'meterId': data.meter, 'kwh': data.value}", Map.of("type", "'partner.reading'")),
        null);
    subscribe("fake:plain");
    RoutableEvent e = reading("m1");

    assertThat(outcome(router.route(e)).delivered()).isEqualTo(2);

    CloudEvent partner = fake.outbound("fake:partner").accepted().get(0);
    assertThat(Json.parse(data(partner), "d"))
        .isEqualTo(Json.parse("{\"meterId\":\"m1\",\"kwh\":42}", "x"));
    assertThat(partner.getType()).isEqualTo("partner.reading");
    assertThat(partner.getId()).isEqualTo(e.event().getId());
    assertThat(fake.outbound("fake:plain").accepted()).containsExactly(e.event());
  }

  @Test
  void aFailedTransformationDeadLettersThatDeliveryWithTheReasonAndTheOthersGoOn()
      throws Exception {
    Subscription broken =
        subscribe("fake:broken", new Transform("($f := function($x){$f($x)}; $f(1))", null), null);
    subscribe("fake:ok");
    RoutableEvent e = reading("m1");

    RoutingOutcome o = outcome(router.route(e));

    assertThat(o).isEqualTo(new RoutingOutcome(e.event().getId(), 2, 1, 0, 1, false));
    assertThat(fake.outbound("fake:ok").accepted()).containsExactly(e.event());
    assertThat(fake.outbound("fake:broken").attempts()).isZero();
    assertThat(deadLetters())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.subscriptionId()).isEqualTo(broken.id());
              assertThat(r.reason()).contains("transformation failed").contains("transform.data");
              assertThat(r.attempts()).isZero();
              assertThat(r.shaped()).isFalse();
              assertThat(r.eventId()).isEqualTo(e.event().getId());
            });
    // The service goes on: the next event reaches the healthy subscription at once.
    RoutableEvent next = reading("m2");
    assertThat(outcome(router.route(next)).delivered()).isEqualTo(1);
  }

  @Test
  void aFailedTransformationGoesToTheDeadLetterChannelWithTheReason() throws Exception {
    subscribe("fake:broken", new Transform(null, Map.of("type", "data.absent")), "fake:dlq");
    RoutableEvent e = reading("m1");

    assertThat(outcome(router.route(e)).deadLettered()).isEqualTo(1);

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> fake.outbound("fake:dlq").accepted().size() == 1);
    CloudEvent letter = fake.outbound("fake:dlq").accepted().get(0);
    assertThat(letter.getId()).isEqualTo(e.event().getId());
    assertThat(String.valueOf(letter.getExtension("deadletterreason")))
        .contains("transform.attributes.type");
  }

  /**
   * The transformation reads the clock ({@code $millis()}), so a second evaluation would give
   * another value: every attempt, the first and the retries from the store, sends the same bytes.
   */
  @Test
  void retriesSendTheStoredTransformationWithoutTransformingAgain() throws Exception {
    subscribe("fake:flaky", new Transform("{'meter': data.meter, 'at': $millis()}", null), null);
    FakeOutbound flaky = fake.outbound("fake:flaky").failTimes(2);

    assertThat(outcome(router.route(reading("m1"))).parked()).isEqualTo(1);

    await().atMost(Duration.ofSeconds(10)).until(() -> flaky.accepted().size() == 1);
    assertThat(flaky.attempts()).isEqualTo(3);
    assertThat(flaky.sent().stream().map(TransformDeliveryTest::data).distinct()).hasSize(1);
    assertThat(data(flaky.accepted().get(0))).startsWith("{\"meter\":\"m1\",\"at\":");
  }
}
