package io.activityservice.rules.engine;

import static io.activityservice.rules.TestEvents.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.events.model.RoutableEvent;
import io.activityservice.rules.Event;
import io.activityservice.rules.EventAccess;
import io.activityservice.rules.RuleSettings;
import io.activityservice.rules.TestEvents;
import io.activityservice.rules.TestEvents.Recorder;
import io.activityservice.rules.action.ActionDispatcher;
import io.activityservice.rules.action.ExecutionRecord;
import io.activityservice.rules.compile.RuleCompiler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Real Drools sessions behind the engine; actions go to recording handlers. */
class RuleEngineTest {

  static final String VERBATIM =
      """
      rule "high reading"
      when
        $e : Event( type == "com.example.meter.reading", number("value") > 90 )
      then
        actions.run("webhook", Map.of("url", "http://127.0.0.1:9999/hook", "event", $e));
      end
      """;
  static final long T0 = 1_700_000_000_000L;

  final Recorder webhook = new Recorder("webhook");
  final Recorder publish = new Recorder("publish");
  final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  RuleEngine engine;
  ActionDispatcher dispatcher;

  RuleEngine engine(RuleSettings s) {
    dispatcher =
        new ActionDispatcher(
            List.of(webhook, publish), s.actionConcurrency(), s.actionQueueCapacity());
    engine = new RuleEngine(dispatcher, meters, s);
    return engine;
  }

  @AfterEach
  void close() {
    engine.close();
    dispatcher.close();
  }

  @Test
  void theVerbatimRuleFiresOnceForTheHighReading() {
    engine(RuleSettings.defaults())
        .deploy(new RuleCompiler(Duration.ofMinutes(10)).compile("high", VERBATIM));
    Event high =
        event("r-95", "com.example.meter.reading", T0, "{\"meter\": \"m1\", \"value\": 95}");
    engine.accept(high);
    engine.accept(
        event("r-50", "com.example.meter.reading", T0 + 1, "{\"meter\": \"m1\", \"value\": 50}"));
    engine.accept(event("o-99", "com.example.other", T0 + 2, "{\"value\": 99}"));

    await().atMost(Duration.ofSeconds(10)).until(() -> engine.executions("high").size() == 1);
    assertThat(webhook.calls).hasSize(1);
    assertThat(webhook.calls.get(0).params()).containsEntry("url", "http://127.0.0.1:9999/hook");
    assertThat(((Event) webhook.calls.get(0).params().get("event")).getId())
        .isEqualTo(high.getId());
    assertThat(webhook.calls.get(0).context().firedRule()).isEqualTo("high reading");
    ExecutionRecord r = engine.executions("high").get(0);
    assertThat(r.eventId()).isEqualTo("r-95");
    assertThat(r.outcome()).isEqualTo("succeeded");
    assertThat(r.attempts()).isEqualTo(1);
    assertThat(engine.metrics("high").orElseThrow().matchCount()).isEqualTo(1.0);
    // The event of another type never reached the session: only the two readings are facts.
    await().until(() -> engine.facts("high") == 2);
  }

  @Test
  void aFailingActionIsRecordedWithItsError() {
    webhook.failWith = "HTTP 503 from http://127.0.0.1:9999/hook";
    engine(RuleSettings.defaults())
        .deploy(new RuleCompiler(Duration.ofMinutes(10)).compile("high", VERBATIM));
    engine.accept(event("r-99", "com.example.meter.reading", T0, "{\"value\": 99}"));
    await().atMost(Duration.ofSeconds(10)).until(() -> engine.executions("high").size() == 1);
    ExecutionRecord r = engine.executions("high").get(0);
    assertThat(r.outcome()).isEqualTo("failed");
    assertThat(r.error()).contains("503");
    assertThat(meters.get("activity.rules.action.failures").tag("rule", "high").counter().count())
        .isEqualTo(1.0);
  }

  @Test
  void anUnknownHandlerIsAFailedExecution() {
    engine(RuleSettings.defaults())
        .deploy(
            new RuleCompiler(Duration.ofMinutes(10))
                .compile(
                    "u",
                    """
        rule "u" when Event(type == "t") then actions.run("nosuch", Map.of()); end"""));
    engine.accept(event("e1", "t", T0, "{}"));
    await().atMost(Duration.ofSeconds(10)).until(() -> engine.executions("u").size() == 1);
    assertThat(engine.executions("u").get(0).error())
        .contains("no action handler named 'nosuch'")
        .contains("webhook");
  }

  @Test
  void moreThanThreeFailedLoginsWithinTenSecondsAlertOnce() {
    engine(RuleSettings.defaults())
        .deploy(
            new RuleCompiler(Duration.ofMinutes(10))
                .compile("logins", TestEvents.example("failed-logins.drl")));
    String type = "com.example.auth.login.failed";
    for (int i = 0; i < 4; i++) { // alice: 4 failures in 3 s -> alert
      engine.accept(event("a" + i, type, T0 + i * 1000L, "{\"user\": \"alice\"}"));
    }
    for (int i = 0; i < 4; i++) { // bob: 4 failures 11 s apart -> nothing
      engine.accept(event("b" + i, type, T0 + 4000 + i * 11_000L, "{\"user\": \"bob\"}"));
    }
    engine.accept(
        event("a4", type, T0 + 60_000, "{\"user\": \"alice\"}")); // alice again, window long gone
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> engine.queued("logins") == 0 && engine.facts("logins") >= 0);
    await()
        .pollDelay(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(10))
        .until(() -> engine.executions("logins").size() >= 1);
    assertThat(webhook.calls).hasSize(1);
    @SuppressWarnings("unchecked")
    Map<String, Object> body = (Map<String, Object>) webhook.calls.get(0).params().get("body");
    assertThat(body).containsEntry("user", "alice").containsEntry("last", "a3");
    assertThat(((Number) body.get("failures")).intValue()).isEqualTo(4);
  }

  @Test
  void expiryKeepsTheSessionBoundedOver200kEvents() {
    RuleSettings s =
        RuleSettings.builder()
            .engineThreads(1)
            .eventExpiry(Duration.ofSeconds(2))
            .maxEventsPerRule(20_000)
            .build();
    engine(s);
    String drl = "rule \"t\" when Event(type == \"m\", number(\"v\") > 1e9) then end";
    // By time: @expires(2s) of event time at 1 event/ms keeps about 2,000 events.
    engine.deploy(new RuleCompiler(s.eventExpiry()).compile("bounded", drl));
    assertThat(feed("bounded", 200_000)).isLessThan(2_600);
    // By count: with @expires(1h) everything would stay; the hard bound (max-events-per-rule)
    // retracts the oldest.
    engine.deploy(new RuleCompiler(Duration.ofHours(1)).compile("bounded", drl));
    assertThat(feed("bounded", 200_000)).isLessThanOrEqualTo(20_001);
  }

  /**
   * The fault suite's soak rule set (partitioned by data.id: the processor routing hands each event
   * to the rule set through {@link RuleEngine#submitTo}), at 60 events/s of event time for 60 s
   * with a 2 s expiry. Drools expires the events (its fact count stays small), and the session must
   * then let go of them too: an expired event that stays reachable keeps its fact handle, its
   * expiry timer job, the event and the routed event (the soak's heap grew by all of them until
   * max-events-per-rule).
   */
  @Test
  void expiredEventsOfAPartitionedRuleSetAreReleased() {
    RuleSettings s =
        RuleSettings.builder().engineThreads(2).eventExpiry(Duration.ofSeconds(2)).build();
    engine(s)
        .deploy(
            new RuleCompiler(s.eventExpiry())
                .compile(
                    "marks",
                    """
        rule "marked close"
        when
          $e : Event( type == "com.example.fault.close", text("mark") == "y" )
        then
          actions.run("publish", Map.of("type", "com.example.faultrule.fired", "data", Map.of("id", $e.text("id"))));
        end
        """));
    int rate = 60;
    int events = 60 * rate;
    List<WeakReference<RoutableEvent>> unmarked = new ArrayList<>();
    long maxFacts = 0;
    for (int i = 0; i < events; i++) {
      boolean marked = i % 5 == 0;
      // The event time comes from a controllable clock: 1/rate s per event.
      RoutableEvent routable =
          EventAccess.routable(
              event(
                  "c" + i,
                  "com.example.fault.close",
                  T0 + i * 1000L / rate,
                  "{\"id\": \"p" + i + "\", \"mark\": \"" + (marked ? "y" : "n") + "\"}"));
      if (!marked) {
        unmarked.add(new WeakReference<>(routable));
      }
      if (!engine.submitTo(
          "marks", routable)) { // the queue is full: offer again, as the routing redelivers
        await().atMost(Duration.ofSeconds(10)).until(() -> engine.submitTo("marks", routable));
      }
      maxFacts = Math.max(maxFacts, engine.facts("marks"));
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> engine.queued("marks") == 0);
    await().atMost(Duration.ofSeconds(10)).until(() -> publish.calls.size() == events / 5);
    long bound = 2L * rate + rate; // expiry x rate, plus one second of slack
    assertThat(maxFacts).isLessThanOrEqualTo(bound);
    long facts = maxFacts;
    // What is still reachable: only the events of the last expiry period can be.
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              System.gc();
              long live = unmarked.stream().filter(r -> r.get() != null).count();
              System.out.printf(
                  "%d events, max facts %d, unmarked events still reachable %d of %d%n",
                  events, facts, live, unmarked.size());
              assertThat(live).as("unmarked events still reachable").isLessThanOrEqualTo(bound);
            });
  }

  private long feed(String rule, int events) {
    long maxFacts = 0;
    long start = System.nanoTime();
    for (int i = 0; i < events; i++) {
      engine.accept(event("e" + i, "m", T0 + i, "{\"v\": " + i + "}"));
      if (i % 1000 == 0) {
        maxFacts = Math.max(maxFacts, engine.facts(rule));
        while (engine.queued(rule) > 5_000) {
          Thread.onSpinWait();
        }
      }
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> engine.queued(rule) == 0);
    System.out.printf(
        "%d events in %d ms, max facts %d%n",
        events, (System.nanoTime() - start) / 1_000_000, Math.max(maxFacts, engine.facts(rule)));
    return Math.max(maxFacts, engine.facts(rule));
  }
}
