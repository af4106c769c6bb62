package io.activityservice.events.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.activityservice.channel.ChannelUri;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.json.Json;
import io.activityservice.events.problem.OverloadedException;
import io.activityservice.events.subscription.CesqlFilter;
import io.activityservice.events.subscription.RetryPolicy;
import io.activityservice.events.subscription.Subscription;
import io.activityservice.events.subscription.SubscriptionIndex;
import io.activityservice.events.support.Events;
import io.activityservice.events.support.FakeChannelAdapter;
import io.activityservice.events.support.FakeChannelAdapter.FakeOutbound;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class EventRouterTest {

  private static final String READING = "com.example.meter.reading";
  private static final RetryPolicy FAST_RETRY =
      new RetryPolicy(3, Duration.ofMillis(5), Duration.ofMillis(20), Duration.ofMinutes(1));
  private static final RetryPolicy NO_RETRY =
      new RetryPolicy(1, Duration.ofMillis(5), Duration.ofMillis(5), Duration.ofMinutes(1));

  private final FakeChannelAdapter fake = new FakeChannelAdapter("fake");
  private final ChannelRegistry channels = new ChannelRegistry(List.of(fake));
  private final SubscriptionIndex index = new SubscriptionIndex();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private ScheduledExecutorService timer;
  private EventRouter router;
  private int ids;

  @BeforeEach
  void setUp() {
    timer = Executors.newSingleThreadScheduledExecutor();
    router = router(null, Duration.ofMinutes(5), 100);
  }

  @AfterEach
  void tearDown() {
    timer.shutdownNow();
  }

  private EventRouter router(String fallbackDeadLetter, Duration dedupWindow, int maxInFlight) {
    return new EventRouter(index, channels,
        new DeadLetters(channels, fallbackDeadLetter == null ? null : ChannelUri.parse(fallbackDeadLetter)),
        new DuplicateFilter(dedupWindow, 10_000), timer, new RoutingMetrics(meters), maxInFlight);
  }

  private Subscription subscribe(String pattern, String target, RetryPolicy retry, String deadLetter) {
    Subscription s = new Subscription("sub-" + (++ids), "s" + ids, pattern == null ? null : Json.parse(pattern, "p"),
        null, target, retry, deadLetter, OffsetDateTime.now());
    index.add(new SubscriptionIndex.Entry(s, null, ChannelUri.parse(target),
        deadLetter == null ? null : ChannelUri.parse(deadLetter)));
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

  @Test
  void fansOutToEveryMatchingTargetOnce() throws Exception {
    subscribe("{\"data\": {\"meter\": [\"m1\"]}}", "fake:a", FAST_RETRY, null);
    subscribe("{\"type\": [\"" + READING + "\"]}", "fake:b", FAST_RETRY, null);
    subscribe("fake:c");
    subscribe("{\"data\": {\"meter\": [\"m2\"]}}", "fake:d", FAST_RETRY, null);
    RoutableEvent e = reading("m1");

    RoutingOutcome o = outcome(router.route(e));

    assertThat(o).isEqualTo(new RoutingOutcome(e.event().getId(), 3, 3, 0, false));
    for (String t : List.of("fake:a", "fake:b", "fake:c")) {
      assertThat(fake.outbound(t).accepted()).as(t).containsExactly(e.event());
    }
    assertThat(fake.outbound("fake:d").sent()).isEmpty();
    assertThat(meters.get("activity.events.out").tag("channel", "fake:a").counter().count()).isEqualTo(1);
  }

  @Test
  void noMatchCompletesWithZeroCounts() throws Exception {
    subscribe("{\"data\": {\"meter\": [\"m2\"]}}", "fake:d", FAST_RETRY, null);
    RoutableEvent e = reading("m1");
    assertThat(outcome(router.route(e))).isEqualTo(new RoutingOutcome(e.event().getId(), 0, 0, 0, false));
  }

  @Test
  void retriesThenSucceeds() throws Exception {
    subscribe("fake:flaky");
    FakeOutbound flaky = fake.outbound("fake:flaky").failTimes(2);

    RoutingOutcome o = outcome(router.route(reading("m1")));

    assertThat(o.delivered()).isEqualTo(1);
    assertThat(o.deadLettered()).isZero();
    assertThat(flaky.attempts()).isEqualTo(3);
    assertThat(flaky.accepted()).hasSize(1);
    assertThat(meters.get("activity.events.failed").tag("channel", "fake:flaky").counter().count()).isEqualTo(2);
  }

  @Test
  void exhaustedRetriesGoToTheDeadLetterChannelWithReasons() throws Exception {
    Subscription s = subscribe(null, "fake:broken", FAST_RETRY, "fake:dlq");
    FakeOutbound broken = fake.outbound("fake:broken").failAlways(true);
    RoutableEvent e = reading("m1");

    RoutingOutcome o = outcome(router.route(e));

    assertThat(o).isEqualTo(new RoutingOutcome(e.event().getId(), 1, 0, 1, false));
    assertThat(broken.attempts()).isEqualTo(3);
    assertThat(broken.accepted()).isEmpty();
    List<CloudEvent> dead = fake.outbound("fake:dlq").accepted();
    assertThat(dead).hasSize(1);
    CloudEvent d = dead.get(0);
    assertThat(d.getId()).isEqualTo(e.event().getId());
    assertThat(d.getSource()).isEqualTo(e.event().getSource());
    assertThat(d.getData().toBytes()).isEqualTo(e.event().getData().toBytes());
    assertThat(String.valueOf(d.getExtension("deadletterreason"))).contains("boom").contains("attempt 3");
    assertThat(d.getExtension("deadletterattempts")).isEqualTo(3);
    assertThat(d.getExtension("deadlettersubscription")).isEqualTo(s.id());
    assertThat(d.getExtension("deadlettertarget")).isEqualTo("fake:broken");
  }

  @Test
  void fallbackDeadLetterChannelIsUsedWhenTheSubscriptionHasNone() throws Exception {
    router = router("fake:global-dlq", Duration.ofMinutes(5), 100);
    subscribe(null, "fake:broken", NO_RETRY, null);
    fake.outbound("fake:broken").failAlways(true);

    assertThat(outcome(router.route(reading("m1"))).deadLettered()).isEqualTo(1);
    assertThat(fake.outbound("fake:global-dlq").accepted()).hasSize(1);
  }

  @Test
  void withoutDeadLetterChannelTheOutcomeCountsTheEventAndCompletes() throws Exception {
    subscribe(null, "fake:broken", FAST_RETRY, null);
    subscribe("fake:ok");
    fake.outbound("fake:broken").failAlways(true);
    RoutableEvent e = reading("m1");

    RoutingOutcome o = outcome(router.route(e));

    assertThat(o).isEqualTo(new RoutingOutcome(e.event().getId(), 2, 1, 1, false));
    assertThat(fake.outbound("fake:broken").attempts()).isEqualTo(3);
    assertThat(meters.get("activity.events.deadlettered").tag("channel", "fake:broken").counter().count()).isEqualTo(1);
  }

  @Test
  void failingDeadLetterChannelFailsTheRoute() {
    subscribe(null, "fake:broken", NO_RETRY, "fake:dlq");
    fake.outbound("fake:broken").failAlways(true);
    fake.outbound("fake:dlq").failAlways(true);

    CompletableFuture<RoutingOutcome> f = router.route(reading("m1"));

    assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .cause().hasMessageContaining("fake:dlq");
    assertThat(fake.outbound("fake:dlq").attempts()).isEqualTo(1);
  }

  @Test
  void aSlowTargetDoesNotDelayAFastOne() throws Exception {
    subscribe("fake:slow");
    subscribe("fake:fast");
    FakeOutbound slow = fake.outbound("fake:slow").hold(true);
    RoutableEvent e = reading("m1");

    CompletableFuture<RoutingOutcome> f = router.route(e);

    // The fast target got the event while the slow one has not answered yet.
    assertThat(fake.outbound("fake:fast").accepted()).containsExactly(e.event());
    assertThat(slow.sent()).hasSize(1);
    assertThat(slow.accepted()).isEmpty();
    assertThat(f).isNotDone();
    assertThat(router.inFlight()).isEqualTo(1);

    assertThat(slow.releaseAll()).isEqualTo(1);

    assertThat(outcome(f)).isEqualTo(new RoutingOutcome(e.event().getId(), 2, 2, 0, false));
    assertThat(router.inFlight()).isZero();
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
    RoutableEvent again = RoutableEvent.of(CloudEventBuilder.from(e.event()).withSubject("changed").build());
    RoutingOutcome o = outcome(router.route(again));

    assertThat(o.duplicate()).isTrue();
    assertThat(o.delivered()).isEqualTo(1);
    assertThat(fake.outbound("fake:a").sent()).hasSize(1);

    // Same id from another source is another event.
    RoutableEvent otherSource = RoutableEvent.of(CloudEventBuilder.from(e.event())
        .withSource(URI.create("/other")).build());
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

  @Test
  void afterAFailedRoutingTheRedeliveryIsRoutedAgain() throws Exception {
    subscribe(null, "fake:target", NO_RETRY, "fake:dlq");
    FakeOutbound target = fake.outbound("fake:target").failAlways(true);
    FakeOutbound dlq = fake.outbound("fake:dlq").failAlways(true);
    RoutableEvent e = reading("m1");
    assertThat(router.route(e)).failsWithin(Duration.ofSeconds(10));

    target.failAlways(false);
    dlq.failAlways(false);
    RoutingOutcome o = outcome(router.route(RoutableEvent.of(e.event())));

    assertThat(o.duplicate()).isFalse();
    assertThat(o.delivered()).isEqualTo(1);
    assertThat(target.accepted()).containsExactly(e.event());
    assertThat(target.attempts()).isEqualTo(2);
  }

  /**
   * A transport may redeliver as soon as it is told to (the inbound handler nacks from the route
   * future's completion). By then the router must have forgotten the failed event; otherwise the
   * redelivery is answered with the old failure and nacked again.
   */
  @Test
  void aRedeliveryMadeAsSoonAsTheFailureIsReportedIsRoutedAgain() {
    // Two attempts, so that the route fails later, on the retry timer, after the caller has listened.
    subscribe(null, "fake:target", new RetryPolicy(2, Duration.ofMillis(5), Duration.ofMillis(5),
        Duration.ofMinutes(1)), "fake:dlq");
    FakeOutbound target = fake.outbound("fake:target").failAlways(true);
    FakeOutbound dlq = fake.outbound("fake:dlq").failAlways(true);
    RoutableEvent e = reading("m1");
    CompletableFuture<CompletableFuture<RoutingOutcome>> redelivery = new CompletableFuture<>();

    router.route(e).whenComplete((o, error) -> {
      target.failAlways(false);
      dlq.failAlways(false);
      redelivery.complete(router.route(RoutableEvent.of(e.event())));
    });

    assertThat(redelivery.join()).succeedsWithin(Duration.ofSeconds(10))
        .satisfies(o -> assertThat(o.duplicate()).isFalse())
        .satisfies(o -> assertThat(o.delivered()).isEqualTo(1));
    assertThat(target.accepted()).containsExactly(e.event());
  }

  /** Same as above for the in-flight bound: the permit of a settled event must be free when callers hear of it. */
  @Test
  void aNewEventRoutedAsSoonAsTheLastOneSettledIsNotRefusedAsOverload() {
    router = router(null, Duration.ofMinutes(5), 1);
    subscribe("fake:a");
    FakeOutbound a = fake.outbound("fake:a").hold(true);
    CompletableFuture<CompletableFuture<RoutingOutcome>> next = new CompletableFuture<>();

    router.route(reading("m1")).whenComplete((o, error) -> {
      a.hold(false);
      next.complete(router.route(reading("m2")));
    });
    a.releaseAll();

    assertThat(next.join()).succeedsWithin(Duration.ofSeconds(10))
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
    router.addTap(ev -> {
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
    Subscription s = new Subscription("f", "f", null, "subject = 'north'", "fake:north", FAST_RETRY, null,
        OffsetDateTime.now());
    index.add(new SubscriptionIndex.Entry(s, CesqlFilter.compile(s.filter()), ChannelUri.parse("fake:north"), null));
    RoutableEvent north = RoutableEvent.of(Events.builder(READING, Map.of()).withSubject("north").build());
    RoutableEvent south = RoutableEvent.of(Events.builder(READING, Map.of()).withSubject("south").build());

    assertThat(outcome(router.route(north)).matched()).isEqualTo(1);
    assertThat(outcome(router.route(south)).matched()).isZero();
    assertThat(fake.outbound("fake:north").accepted()).containsExactly(north.event());
  }
}
