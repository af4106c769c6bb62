package io.activityservice.events.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.activityservice.channel.ChannelUri;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.delivery.DeadLetters;
import io.activityservice.events.delivery.DeliveryMetrics;
import io.activityservice.events.delivery.DeliverySettings;
import io.activityservice.events.delivery.DeliveryStore;
import io.activityservice.events.delivery.DurableDelivery;
import io.activityservice.events.json.Json;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.InvalidInputException.FieldError;
import io.activityservice.events.registry.EventRegistry;
import io.activityservice.events.registry.EventTypeRepository;
import io.activityservice.events.registry.UnregisteredTypePolicy;
import io.activityservice.events.routing.DuplicateFilter;
import io.activityservice.events.routing.EventRouter;
import io.activityservice.events.routing.RoutingMetrics;
import io.activityservice.events.routing.RoutingOutcome;
import io.activityservice.events.subscription.RetryPolicy;
import io.activityservice.events.subscription.SubscriptionIndex;
import io.activityservice.events.subscription.SubscriptionRepository;
import io.activityservice.events.subscription.SubscriptionService;
import io.activityservice.events.support.Events;
import io.activityservice.events.support.FakeChannelAdapter;
import io.activityservice.events.support.FakeChannelAdapter.FakeInbound;
import io.activityservice.events.support.TestDatabases;
import io.cloudevents.CloudEvent;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Ingest end to end on real parts: H2 registry, subscriptions, router, and the fake channel
 * adapter.
 */
class EventIngestTest {

  private static final String READING = "com.example.meter.reading";
  private static final Instant NOW = Instant.parse("2026-11-21T18:00:00Z");

  private final FakeChannelAdapter fake = new FakeChannelAdapter("fake");
  private final ChannelRegistry channels = new ChannelRegistry(List.of(fake));
  private final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
  private ScheduledExecutorService timer;
  private DataSource ds;
  private EventIngest ingest;
  private SubscriptionService subscriptions;
  private DeadLetters deadLetters;
  private DurableDelivery delivery;

  @BeforeEach
  void setUp() {
    ds = TestDatabases.newH2();
    JdbcClient jdbc = JdbcClient.create(ds);
    timer = Executors.newSingleThreadScheduledExecutor();
    EventRegistry registry =
        new EventRegistry(new EventTypeRepository(jdbc), UnregisteredTypePolicy.ACCEPT, clock);
    registry.create(
        READING,
        null,
        null,
        Json.parse(
            """
        {"type": "object", "required": ["value"], "properties": {"value": {"type": "number"}}}""",
            "schema"));
    SubscriptionIndex index = new SubscriptionIndex();
    subscriptions =
        new SubscriptionService(new SubscriptionRepository(jdbc), index, channels, clock);
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    delivery =
        new DurableDelivery(
                new DeliveryStore(ds),
                channels,
                ChannelUri.parse("fake:invalid-events"),
                index::get,
                new DeliveryMetrics(meters, 100),
                Clock.systemUTC(),
                DeliverySettings.defaults("test")
                    .withParkAfter(Duration.ofMillis(200))
                    .withLease(Duration.ofSeconds(5), Duration.ofMillis(20)))
            .start();
    deadLetters = delivery.deadLetters();
    EventRouter router =
        new EventRouter(
            index,
            delivery,
            new DuplicateFilter(Duration.ofMinutes(5), 1000),
            new RoutingMetrics(meters, type -> registry.find(type).isPresent()),
            100);
    ingest = new EventIngest(registry, router, clock);
    subscriptions.create("all", null, null, "fake:all", null, null);
  }

  @AfterEach
  void tearDown() {
    timer.shutdownNow();
    delivery.close();
  }

  private static CloudEvent reading(Object value) {
    return Events.event(READING, Map.of("value", value));
  }

  @Test
  void prepareAddsTimeWhenMissing() {
    CloudEvent e = reading(1);
    assertThat(e.getTime()).isNull();

    RoutableEvent r = ingest.prepare(e);

    assertThat(r.event().getTime()).isEqualTo(OffsetDateTime.ofInstant(NOW, ZoneOffset.UTC));
    assertThat(r.json().get("time").asText())
        .as("RFC 3339 with seconds")
        .isEqualTo("2026-11-21T18:00:00Z");
    assertThat(r.event().getId()).isEqualTo(e.getId());
  }

  @Test
  void prepareKeepsTimeWhenPresent() {
    OffsetDateTime t = OffsetDateTime.parse("2020-01-02T03:04:05.678+05:30");
    CloudEvent e = Events.builder(READING, Map.of("value", 1)).withTime(t).build();

    assertThat(ingest.prepare(e).event().getTime()).isEqualTo(t);
  }

  @Test
  void prepareValidatesAgainstTheRegistry() {
    InvalidInputException e =
        catchThrowableOfType(
            InvalidInputException.class, () -> ingest.prepare(reading("not a number")));
    assertThat(e.errors()).extracting(FieldError::field).containsExactly("data.value");
  }

  @Test
  void nonJsonDataDeclaredAsJsonIsRefused() {
    CloudEvent e =
        Events.builder("free.type", null).withData("application/json", "{oops".getBytes()).build();
    InvalidInputException ex =
        catchThrowableOfType(InvalidInputException.class, () -> ingest.prepare(e));
    assertThat(ex.errors()).extracting(FieldError::field).containsExactly("data");
  }

  @Test
  void batchValidationIsAllOrNothing() {
    List<CloudEvent> batch =
        List.of(reading(1), reading("x"), reading(3), Events.event(READING, Map.of()));

    InvalidInputException e =
        catchThrowableOfType(
            InvalidInputException.class, () -> ingest.prepareAll(batch).forEach(ingest::route));

    assertThat(e.errors())
        .extracting(FieldError::field)
        .containsExactly("[1].data.value", "[3].data.value");
    assertThat(fake.outbound("fake:all").sent()).isEmpty();
  }

  @Test
  void validBatchIsRoutedInOrder() throws Exception {
    List<CloudEvent> batch = List.of(reading(1), reading(2));
    for (RoutableEvent r : ingest.prepareAll(batch)) {
      ingest.route(r).get(10, TimeUnit.SECONDS);
    }
    assertThat(fake.outbound("fake:all").accepted())
        .extracting(CloudEvent::getId)
        .containsExactly(batch.get(0).getId(), batch.get(1).getId());
  }

  @Test
  void publishFailsTheFutureForInvalidEventsAndRoutesNothing() throws Exception {
    CompletableFuture<RoutingOutcome> bad = ingest.publish(reading("x"));
    assertThat(bad).isCompletedExceptionally();
    assertThat(fake.outbound("fake:all").sent()).isEmpty();

    RoutingOutcome ok = ingest.publish(reading(1)).get(10, TimeUnit.SECONDS);
    assertThat(ok.delivered()).isEqualTo(1);
  }

  // ---- inbound channels: acknowledgement follows routing ---------------------------------------

  private InboundChannels inboundChannels() {
    return new InboundChannels(
        channels, new InboundChannelRepository(JdbcClient.create(ds)), ingest, deadLetters, clock);
  }

  @Test
  void inboundEventIsAckedAfterRouting() throws Exception {
    InboundChannels inbound = inboundChannels();
    inbound.add("fake:in", null, null, Map.of("k", "v"));

    CloudEvent e = reading(1);
    FakeInbound.Settlement s = fake.inbound("fake:in").push(e);

    assertThat(s.settled().get(10, TimeUnit.SECONDS)).as("ack, not nack").isNull();
    assertThat(s.calls()).isEqualTo(1);
    assertThat(fake.outbound("fake:all").accepted())
        .extracting(CloudEvent::getId)
        .containsExactly(e.getId());
  }

  @Test
  void inboundEventIsAckedOnceAFailingDeliveryIsParked() throws Exception {
    InboundChannels inbound = inboundChannels();
    inbound.add("fake:in", null, null, null);
    subscriptions.create(
        "broken",
        null,
        null,
        "fake:broken",
        new RetryPolicy(3, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofMinutes(1)),
        "fake:dlq");
    fake.outbound("fake:broken").failAlways(true);

    FakeInbound.Settlement s = fake.inbound("fake:in").push(reading(1));

    assertThat(s.settled().get(10, TimeUnit.SECONDS)).as("ack, not nack").isNull();
    assertThat(
            JdbcClient.create(ds)
                .sql("select count(*) from parked_delivery")
                .query(Long.class)
                .single())
        .isEqualTo(1);
  }

  @Test
  void inboundEventIsNackedWhenTheStoreCannotTakeTheDelivery() throws Exception {
    InboundChannels inbound = inboundChannels();
    inbound.add("fake:in", null, null, null);
    subscriptions.create(
        "broken",
        null,
        null,
        "fake:broken",
        new RetryPolicy(3, Duration.ofMillis(1), Duration.ofMillis(1), Duration.ofMinutes(1)),
        "fake:dlq");
    fake.outbound("fake:broken").failAlways(true);
    JdbcClient.create(ds).sql("alter table parked_delivery rename to parked_elsewhere").update();

    FakeInbound.Settlement s = fake.inbound("fake:in").push(reading(1));

    assertThat(s.settled().get(10, TimeUnit.SECONDS)).as("nack").isNotNull();
    assertThat(s.calls()).isEqualTo(1);
  }

  @Test
  void invalidInboundEventIsDeadLetteredAndAcked() throws Exception {
    InboundChannels inbound = inboundChannels();
    inbound.add("fake:in", "com.example.default", "urn:in", null);
    assertThat(fake.inbound("fake:in").settings().defaultSource()).isEqualTo(URI.create("urn:in"));
    CloudEvent bad = reading("x");

    FakeInbound.Settlement s = fake.inbound("fake:in").push(bad);

    assertThat(s.settled().get(10, TimeUnit.SECONDS)).isNull();
    assertThat(fake.outbound("fake:all").sent()).isEmpty();
    List<CloudEvent> dead = fake.outbound("fake:invalid-events").accepted();
    assertThat(dead).extracting(CloudEvent::getId).containsExactly(bad.getId());
    assertThat(String.valueOf(dead.get(0).getExtension("deadletterreason"))).contains("data.value");
    assertThat(dead.get(0).getExtension("deadlettertarget")).isEqualTo("inbound:fake:in");
    assertThat(new DeliveryStore(ds).deadLetters().page(null, null, 10))
        .singleElement()
        .satisfies(r -> assertThat(r.origin()).isEqualTo("inbound:fake:in"))
        .satisfies(r -> assertThat(r.subscriptionId()).isNull());
  }

  @Test
  void removedChannelStaysRemovedAfterRestartWhateverTheSchemeCase() {
    InboundChannels inbound = inboundChannels();
    inbound.add("FAKE:orders-in", null, null, null);
    assertThat(fake.inbound("fake:orders-in")).isNotNull();

    inbound.remove("fake:orders-in");
    assertThat(fake.inbound("fake:orders-in").isClosed()).isTrue();

    InboundChannels restarted = inboundChannels();
    restarted.startAll(List.of());
    assertThat(restarted.list())
        .as("a removed channel must not come back at the next start")
        .isEmpty();
  }

  @Test
  void inboundChannelsPersistAndRestart() {
    InboundChannels inbound = inboundChannels();
    inbound.add("fake:in", "com.example.default", "urn:in", Map.of("group", "g1"));
    inbound.close();
    assertThat(fake.inbound("fake:in").isClosed()).isTrue();

    InboundChannels restarted = inboundChannels();
    restarted.startAll(List.of());

    assertThat(restarted.list())
        .extracting(InboundChannelDefinition::uri)
        .containsExactly("fake:in");
    assertThat(fake.inbound("fake:in").isClosed()).isFalse();
    assertThat(fake.inbound("fake:in").settings().properties()).containsEntry("group", "g1");

    restarted.remove("fake:in");
    assertThat(fake.inbound("fake:in").isClosed()).isTrue();
    assertThat(new InboundChannelRepository(JdbcClient.create(ds)).findAll()).isEmpty();
  }
}
