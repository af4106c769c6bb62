package io.activityservice.events.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.activityservice.channel.ChannelUri;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.delivery.DeadLetterRecord;
import io.activityservice.events.json.Json;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.problem.OverloadedException;
import io.activityservice.events.subscription.CesqlFilter;
import io.activityservice.events.subscription.RetryPolicy;
import io.activityservice.events.subscription.Subscription;
import io.activityservice.events.subscription.SubscriptionIndex;
import io.activityservice.events.support.Events;
import io.activityservice.events.support.FakeChannelAdapter;
import io.activityservice.events.support.FakeChannelAdapter.FakeOutbound;
import io.activityservice.events.support.RoutingFixture;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The router with durable delivery on a real (H2) database: first attempts, parking after {@code
 * park-after}, retries from the store, dead letters, the in-flight bound and deduplication.
 */
class EventRouterTest {

  private static final String READING = "com.example.meter.reading";
  private static final Duration PARK_AFTER = RoutingFixture.PARK_AFTER;
  private static final RetryPolicy FAST_RETRY = RoutingFixture.FAST_RETRY;
  private static final RetryPolicy NO_RETRY =
      new RetryPolicy(1, Duration.ofMillis(5), Duration.ofMillis(5), Duration.ofMinutes(1));

  private final RoutingFixture fixture = new RoutingFixture();
  private final FakeChannelAdapter fake = fixture.fake();
  private final ChannelRegistry channels = fixture.channels();
  private final SubscriptionIndex index = fixture.index();
  private final SimpleMeterRegistry meters = fixture.meters();
  private final JdbcClient jdbc = fixture.jdbc();
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

  @Test
  void fansOutToEveryMatchingTargetOnce() throws Exception {
    subscribe("{\"data\": {\"meter\": [\"m1\"]}}", "fake:a", FAST_RETRY, null);
    subscribe("{\"type\": [\"" + READING + "\"]}", "fake:b", FAST_RETRY, null);
    subscribe("fake:c");
    subscribe("{\"data\": {\"meter\": [\"m2\"]}}", "fake:d", FAST_RETRY, null);
    RoutableEvent e = reading("m1");

    RoutingOutcome o = outcome(router.route(e));

    assertThat(o).isEqualTo(new RoutingOutcome(e.event().getId(), 3, 3, 0, 0, false));
    for (String t : List.of("fake:a", "fake:b", "fake:c")) {
      assertThat(fake.outbound(t).accepted()).as(t).containsExactly(e.event());
    }
    assertThat(fake.outbound("fake:d").sent()).isEmpty();
    assertThat(meters.get("activity.events.out").tag("channel", "fake:a").counter().count())
        .isEqualTo(1);
    assertThat(parked()).isZero();
  }

  @Test
  void noMatchCompletesWithZeroCounts() throws Exception {
    subscribe("{\"data\": {\"meter\": [\"m2\"]}}", "fake:d", FAST_RETRY, null);
    RoutableEvent e = reading("m1");
    assertThat(outcome(router.route(e)))
        .isEqualTo(new RoutingOutcome(e.event().getId(), 0, 0, 0, 0, false));
  }

  @Test
  void aFailedFirstAttemptIsParkedAndRetriedFromTheStore() throws Exception {
    Subscription s = subscribe("fake:flaky");
    FakeOutbound flaky = fake.outbound("fake:flaky").failTimes(2);

    RoutingOutcome o = outcome(router.route(reading("m1")));

    assertThat(o.parked()).isEqualTo(1);
    assertThat(o.delivered()).isZero();
    await().atMost(Duration.ofSeconds(10)).until(() -> flaky.accepted().size() == 1);
    await().atMost(Duration.ofSeconds(10)).until(() -> parked() == 0);
    assertThat(flaky.attempts()).isEqualTo(3);
    assertThat(meters.get("activity.events.failed").tag("channel", "fake:flaky").counter().count())
        .isEqualTo(2);
    assertThat(meters.get("activity.delivery.parked").tag("subscription", s.id()).counter().count())
        .isEqualTo(1);
    assertThat(deadLetters()).isEmpty();
  }

  /**
   * The retry worker sleeps until the earliest parked delivery is due and is woken when one is
   * parked: retries run on the subscription's schedule (backoff 5–20 ms here) even when its
   * periodic check is 30 s away.
   */
  @Test
  void retriesRunWhenDueWithoutWaitingForThePeriodicCheck() throws Exception {
    router = router(null, Duration.ofMinutes(5), 100, Duration.ofSeconds(30));
    subscribe("fake:flaky");
    FakeOutbound flaky = fake.outbound("fake:flaky").failTimes(2);

    RoutingOutcome o = outcome(router.route(reading("m1")));

    assertThat(o.parked()).isEqualTo(1);
    await().atMost(Duration.ofSeconds(10)).until(() -> flaky.accepted().size() == 1);
    await().atMost(Duration.ofSeconds(10)).until(() -> parked() == 0);
    assertThat(flaky.attempts()).isEqualTo(3);
  }

  @Test
  void exhaustedRetriesGoToTheDeadLetterChannelWithReasonsAndAreKept() throws Exception {
    Subscription s = subscribe(null, "fake:broken", FAST_RETRY, "fake:dlq");
    FakeOutbound broken = fake.outbound("fake:broken").failAlways(true);
    RoutableEvent e = reading("m1");

    assertThat(outcome(router.route(e)).parked()).isEqualTo(1);

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> fake.outbound("fake:dlq").accepted().size() == 1);
    await().atMost(Duration.ofSeconds(10)).until(() -> parked() == 0);
    assertThat(broken.attempts()).isEqualTo(3);
    assertThat(broken.accepted()).isEmpty();
    CloudEvent d = fake.outbound("fake:dlq").accepted().get(0);
    assertThat(d.getId()).isEqualTo(e.event().getId());
    assertThat(d.getSource()).isEqualTo(e.event().getSource());
    assertThat(d.getData().toBytes()).isEqualTo(e.event().getData().toBytes());
    assertThat(String.valueOf(d.getExtension("deadletterreason")))
        .contains("boom")
        .contains("attempt 3")
        .contains("retry.maxAttempts=3");
    assertThat(d.getExtension("deadletterattempts")).isEqualTo(3);
    assertThat(d.getExtension("deadlettersubscription")).isEqualTo(s.id());
    assertThat(d.getExtension("deadlettertarget")).isEqualTo("fake:broken");
    List<DeadLetterRecord> kept = deadLetters();
    assertThat(kept)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.subscriptionId()).isEqualTo(s.id());
              assertThat(r.eventId()).isEqualTo(e.event().getId());
              assertThat(r.attempts()).isEqualTo(3);
              assertThat(r.reason()).contains("attempt 3");
            });
    assertThat(
            meters
                .get("activity.delivery.deadlettered")
                .tag("subscription", s.id())
                .counter()
                .count())
        .isEqualTo(1);
  }

  @Test
  void withoutAnyRetryTheFallbackDeadLetterChannelGetsTheEventThroughTheStore() throws Exception {
    router = router("fake:global-dlq", Duration.ofMinutes(5), 100);
    subscribe(null, "fake:broken", NO_RETRY, null);
    fake.outbound("fake:broken").failAlways(true);

    assertThat(outcome(router.route(reading("m1"))).deadLettered()).isEqualTo(1);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> fake.outbound("fake:global-dlq").accepted().size() == 1);
    await().atMost(Duration.ofSeconds(10)).until(() -> deadLetters().size() == 1);
    assertThat(fake.outbound("fake:broken").attempts()).isEqualTo(1);
  }

  @Test
  void withoutDeadLetterChannelTheServiceKeepsTheDeadLetter() throws Exception {
    subscribe(null, "fake:broken", NO_RETRY, null);
    subscribe("fake:ok");
    fake.outbound("fake:broken").failAlways(true);
    RoutableEvent e = reading("m1");

    RoutingOutcome o = outcome(router.route(e));

    assertThat(o).isEqualTo(new RoutingOutcome(e.event().getId(), 2, 1, 0, 1, false));
    assertThat(deadLetters())
        .singleElement()
        .satisfies(r -> assertThat(r.reason()).contains("boom"));
    assertThat(
            meters
                .get("activity.events.deadlettered")
                .tag("channel", "fake:broken")
                .counter()
                .count())
        .isEqualTo(1);
  }

  @Test
  void aFailingDeadLetterChannelKeepsTheEventParkedUntilItAccepts() throws Exception {
    subscribe(null, "fake:broken", NO_RETRY, "fake:dlq");
    fake.outbound("fake:broken").failAlways(true);
    FakeOutbound dlq = fake.outbound("fake:dlq").failAlways(true);

    assertThat(outcome(router.route(reading("m1"))).deadLettered()).isEqualTo(1);
    await().atMost(Duration.ofSeconds(10)).until(() -> dlq.attempts() >= 1);
    assertThat(parked()).isEqualTo(1);
    assertThat(deadLetters()).isEmpty();

    dlq.failAlways(false);
    await().atMost(Duration.ofSeconds(15)).until(() -> dlq.accepted().size() == 1);
    await().atMost(Duration.ofSeconds(10)).until(() -> parked() == 0 && deadLetters().size() == 1);
  }

  @Test
  void aSlowTargetIsParkedAfterParkAfterAndTheFastOneIsNotDelayed() throws Exception {
    subscribe("fake:slow");
    subscribe("fake:fast");
    FakeOutbound slow = fake.outbound("fake:slow").hold(true);
    RoutableEvent e = reading("m1");

    long start = System.nanoTime();
    CompletableFuture<RoutingOutcome> f = router.route(e);

    assertThat(fake.outbound("fake:fast").accepted()).containsExactly(e.event());
    RoutingOutcome o = outcome(f);
    long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(o).isEqualTo(new RoutingOutcome(e.event().getId(), 2, 1, 1, 0, false));
    assertThat(waitedMillis)
        .as("the route ends about park-after after the start")
        .isGreaterThanOrEqualTo(PARK_AFTER.toMillis());
    assertThat(router.inFlight()).isZero();
    assertThat(parked()).isEqualTo(1);

    // The first attempt still runs under this replica's lease; when it succeeds, the parked row
    // goes away and the
    // target has the event exactly once.
    assertThat(slow.releaseAll()).isEqualTo(1);
    await().atMost(Duration.ofSeconds(10)).until(() -> parked() == 0);
    assertThat(slow.accepted()).containsExactly(e.event());
    assertThat(slow.sent()).hasSize(1);
  }

  @Test
  void beyondMaxInFlightRoutingFailsFastWithOverloaded() throws Exception {
    router = router(null, Duration.ofMinutes(5), 2);
    subscribe("fake:slow");
    FakeOutbound slow = fake.outbound("fake:slow").hold(true);
    CompletableFuture<RoutingOutcome> first = router.route(reading("m1"));
    CompletableFuture<RoutingOutcome> second = router.route(reading("m2"));
    RoutableEvent third = reading("m3");

    CompletableFuture<RoutingOutcome> rejected = router.route(third);

    assertThat(rejected).isCompletedExceptionally();
    assertThatThrownBy(rejected::join).hasCauseInstanceOf(OverloadedException.class);
    assertThat(slow.sent()).hasSize(2);
    assertThat(router.inFlight()).isEqualTo(2);

    slow.releaseAll();
    assertThat(outcome(first).delivered()).isEqualTo(1);
    assertThat(outcome(second).delivered()).isEqualTo(1);
    assertThat(router.inFlight()).isZero();

    // The refused event was not remembered as routed: its redelivery goes through.
    slow.hold(false);
    RoutingOutcome retried = outcome(router.route(RoutableEvent.of(third.event())));
    assertThat(retried.duplicate()).isFalse();
    assertThat(retried.delivered()).isEqualTo(1);
    assertThat(slow.accepted()).extracting(CloudEvent::getId).contains(third.event().getId());
  }

  @Test
  void duplicatesWithinTheWindowAreNotFannedOutTwice() throws Exception {
    subscribe("fake:a");
    RoutableEvent e = reading("m1");
    assertThat(outcome(router.route(e)).duplicate()).isFalse();

    // Same source and id, even with other content: a redelivery.
    RoutableEvent again =
        RoutableEvent.of(CloudEventBuilder.from(e.event()).withSubject("changed").build());
    RoutingOutcome o = outcome(router.route(again));

    assertThat(o.duplicate()).isTrue();
    assertThat(o.delivered()).isEqualTo(1);
    assertThat(fake.outbound("fake:a").sent()).hasSize(1);

    // Same id from another source is another event.
    RoutableEvent otherSource =
        RoutableEvent.of(
            CloudEventBuilder.from(e.event()).withSource(URI.create("/other")).build());
    assertThat(outcome(router.route(otherSource)).duplicate()).isFalse();
    assertThat(fake.outbound("fake:a").sent()).hasSize(2);
  }

  @Test
  void aDuplicateArrivingWhileTheFirstCopyRoutesSharesItsOutcome() throws Exception {
    subscribe("fake:slow");
    FakeOutbound slow = fake.outbound("fake:slow").hold(true);
    RoutableEvent e = reading("m1");
    CompletableFuture<RoutingOutcome> first = router.route(e);
    CompletableFuture<RoutingOutcome> second = router.route(RoutableEvent.of(e.event()));

    assertThat(second).isNotDone();
    assertThat(slow.sent()).hasSize(1);
    slow.releaseAll();

    assertThat(outcome(first).duplicate()).isFalse();
    assertThat(outcome(second).duplicate()).isTrue();
    assertThat(slow.sent()).hasSize(1);
  }

  /**
   * When the store cannot take a parked delivery the route fails, so the inbound message is
   * redelivered; the router must have forgotten the event by the time the failure is reported, so
   * the redelivery is routed again.
   */
  @Test
  void whenTheStoreRefusesAParkTheRouteFailsAndTheRedeliveryIsRoutedAgain() throws Exception {
    subscribe(null, "fake:target", FAST_RETRY, null);
    FakeOutbound target = fake.outbound("fake:target").failAlways(true);
    jdbc.sql("alter table parked_delivery rename to parked_delivery_away").update();
    RoutableEvent e = reading("m1");
    CompletableFuture<CompletableFuture<RoutingOutcome>> redelivery = new CompletableFuture<>();

    router
        .route(e)
        .whenComplete(
            (o, error) -> {
              assertThat(error).isNotNull();
              jdbc.sql("alter table parked_delivery_away rename to parked_delivery").update();
              target.failAlways(false);
              redelivery.complete(router.route(RoutableEvent.of(e.event())));
            });

    assertThat(redelivery.get(10, TimeUnit.SECONDS))
        .succeedsWithin(Duration.ofSeconds(10))
        .satisfies(o -> assertThat(o.duplicate()).isFalse())
        .satisfies(o -> assertThat(o.delivered()).isEqualTo(1));
    assertThat(target.accepted()).containsExactly(e.event());
  }

  /**
   * A hand-over that fails (the broker down under the detectors' internal channels) refuses the
   * event before any subscriber got it: the redelivery reaches each subscriber once, not once per
   * attempt.
   */
  @Test
  void aFailedHandOverRefusesTheEventBeforeAnySubscriberGetsIt() throws Exception {
    subscribe("fake:a");
    List<CompletableFuture<Void>> handOvers = new CopyOnWriteArrayList<>();
    router.addForwarder(
        ev -> {
          CompletableFuture<Void> f = new CompletableFuture<>();
          handOvers.add(f);
          return f;
        });
    RoutableEvent e = reading("m1");

    CompletableFuture<RoutingOutcome> first = router.route(e);
    assertThat(handOvers).hasSize(1);
    assertThat(fake.outbound("fake:a").accepted())
        .as("no subscriber before the hand-over is done")
        .isEmpty();
    handOvers.get(0).completeExceptionally(new IllegalStateException("broker down"));
    assertThat(first).failsWithin(Duration.ofSeconds(10));
    assertThat(fake.outbound("fake:a").accepted()).isEmpty();

    for (int attempt = 1; attempt <= 3; attempt++) { // redeliveries while the broker is still down
      CompletableFuture<RoutingOutcome> again = router.route(RoutableEvent.of(e.event()));
      handOvers.get(attempt).completeExceptionally(new IllegalStateException("broker down"));
      assertThat(again).failsWithin(Duration.ofSeconds(10));
    }
    CompletableFuture<RoutingOutcome> last = router.route(RoutableEvent.of(e.event()));
    handOvers.get(4).complete(null);

    assertThat(last)
        .succeedsWithin(Duration.ofSeconds(10))
        .satisfies(o -> assertThat(o.delivered()).isEqualTo(1));
    assertThat(fake.outbound("fake:a").accepted()).containsExactly(e.event());
  }

  /**
   * A recording forwarder (the archive) sees an event only once the hand-overs accepted it: once,
   * not per attempt.
   */
  @Test
  void aRecordingForwarderSeesAnEventOnlyOnceTheHandOversAcceptedIt() throws Exception {
    subscribe("fake:a");
    List<CompletableFuture<Void>> handOvers = new CopyOnWriteArrayList<>();
    router.addForwarder(
        ev -> {
          CompletableFuture<Void> f = new CompletableFuture<>();
          handOvers.add(f);
          return f;
        });
    List<String> recorded = new CopyOnWriteArrayList<>();
    router.addRecordingForwarder(
        ev -> {
          recorded.add(ev.event().getId());
          return CompletableFuture.completedFuture(null);
        });
    RoutableEvent e = reading("m1");

    CompletableFuture<RoutingOutcome> refused = router.route(e);
    assertThat(recorded).as("nothing recorded while the hand-over is pending").isEmpty();
    handOvers.get(0).completeExceptionally(new IllegalStateException("broker down"));
    assertThat(refused).failsWithin(Duration.ofSeconds(10));
    CompletableFuture<RoutingOutcome> redelivered = router.route(RoutableEvent.of(e.event()));
    handOvers.get(1).complete(null);

    assertThat(redelivered).succeedsWithin(Duration.ofSeconds(10));
    assertThat(recorded).containsExactly(e.event().getId());
  }

  /** The permit of a settled event must be free when callers hear of it. */
  @Test
  void aNewEventRoutedAsSoonAsTheLastOneSettledIsNotRefusedAsOverload() {
    router = router(null, Duration.ofMinutes(5), 1);
    subscribe("fake:a");
    FakeOutbound a = fake.outbound("fake:a").hold(true);
    CompletableFuture<CompletableFuture<RoutingOutcome>> next = new CompletableFuture<>();

    router
        .route(reading("m1"))
        .whenComplete(
            (o, error) -> {
              a.hold(false);
              next.complete(router.route(reading("m2")));
            });
    a.releaseAll();

    assertThat(next.join())
        .succeedsWithin(Duration.ofSeconds(10))
        .satisfies(o -> assertThat(o.delivered()).isEqualTo(1));
  }

  @Test
  void zeroWindowDisablesDeduplication() throws Exception {
    router = router(null, Duration.ZERO, 100);
    subscribe("fake:a");
    RoutableEvent e = reading("m1");
    outcome(router.route(e));
    assertThat(outcome(router.route(RoutableEvent.of(e.event()))).duplicate()).isFalse();
    assertThat(fake.outbound("fake:a").accepted()).hasSize(2);
  }

  @Test
  void tapsSeeEveryRoutedEventButNotDuplicates() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    router.addTap(ev -> seen.add(ev.event().getId()));
    router.addTap(
        ev -> {
          throw new IllegalStateException("a broken tap must not stop routing");
        });
    subscribe("{\"data\": {\"meter\": [\"m1\"]}}", "fake:a", FAST_RETRY, null);
    RoutableEvent matched = reading("m1");
    RoutableEvent unmatched = reading("m9");

    outcome(router.route(matched));
    outcome(router.route(unmatched));
    outcome(router.route(RoutableEvent.of(matched.event())));

    assertThat(seen).containsExactly(matched.event().getId(), unmatched.event().getId());
    assertThat(fake.outbound("fake:a").accepted()).hasSize(1);
  }

  @Test
  void cesqlFilteredSubscriptionOnlyGetsPassingEvents() throws Exception {
    Subscription s =
        new Subscription(
            "f",
            "f",
            null,
            "subject = 'north'",
            "fake:north",
            FAST_RETRY,
            null,
            OffsetDateTime.now());
    index.add(
        new SubscriptionIndex.Entry(
            s, CesqlFilter.compile(s.filter()), ChannelUri.parse("fake:north"), null));
    RoutableEvent north =
        RoutableEvent.of(Events.builder(READING, Map.of()).withSubject("north").build());
    RoutableEvent south =
        RoutableEvent.of(Events.builder(READING, Map.of()).withSubject("south").build());

    assertThat(outcome(router.route(north)).matched()).isEqualTo(1);
    assertThat(outcome(router.route(south)).matched()).isZero();
    assertThat(fake.outbound("fake:north").accepted()).containsExactly(north.event());
  }
}
