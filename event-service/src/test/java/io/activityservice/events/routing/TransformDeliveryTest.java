package io.activityservice.events.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.events.delivery.DeadLetterRecord;
import io.activityservice.events.json.Json;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.subscription.DeliveryOptions;
import io.activityservice.events.subscription.RetryPolicy;
import io.activityservice.events.subscription.Subscription;
import io.activityservice.events.support.Events;
import io.activityservice.events.support.FakeChannelAdapter;
import io.activityservice.events.support.FakeChannelAdapter.FakeOutbound;
import io.activityservice.events.support.RoutingFixture;
import io.activityservice.events.transform.CompiledTransform;
import io.activityservice.events.transform.Transform;
import io.activityservice.events.transform.TransformLimits;
import io.cloudevents.CloudEvent;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Subscriptions with transformations, through the router and durable delivery on a real (H2)
 * database: the transformation is applied once per delivery (retries send the stored result), and
 * one that fails dead-letters that delivery only.
 */
class TransformDeliveryTest {

  private static final String READING = "com.example.meter.reading";
  private static final RetryPolicy FAST_RETRY = RoutingFixture.FAST_RETRY;

  private final RoutingFixture fixture = new RoutingFixture();
  private final FakeChannelAdapter fake = fixture.fake();
  private EventRouter router;
  private int ids;

  @BeforeEach
  void setUp() {
    router = fixture.router();
  }

  @AfterEach
  void tearDown() {
    fixture.close();
  }

  private EventRouter router(String fallbackDeadLetter, Duration dedupWindow, int maxInFlight) {
    return fixture.router(fallbackDeadLetter, dedupWindow, maxInFlight);
  }

  private EventRouter router(
      String fallbackDeadLetter, Duration dedupWindow, int maxInFlight, Duration poll) {
    return fixture.router(fallbackDeadLetter, dedupWindow, maxInFlight, poll);
  }

  private Subscription subscribe(
      String pattern, String target, RetryPolicy retry, String deadLetter) {
    return fixture.subscribe(
        new Subscription(
            "sub-" + (++ids),
            "s" + ids,
            pattern == null ? null : Json.parse(pattern, "p"),
            null,
            target,
            retry,
            deadLetter,
            OffsetDateTime.now()),
        null);
  }

  private Subscription subscribe(String target, Transform transform, String deadLetter) {
    return fixture.subscribe(
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
            new DeliveryOptions(null, transform, null, null)),
        CompiledTransform.compile(transform, TransformLimits.DEFAULT));
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
    return fixture.parked();
  }

  private List<DeadLetterRecord> deadLetters() {
    return fixture.deadLetters();
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
