package io.activityservice.rules.engine;

import static io.activityservice.rules.TestEvents.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.rules.RuleSettings;
import io.activityservice.rules.TestEvents.Recorder;
import io.activityservice.rules.action.ActionDispatcher;
import io.activityservice.rules.compile.RuleCompiler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The per-event bounds of a rule set's evaluation ({@code max-activations-per-event}, {@code
 * evaluation-budget}) on real Drools sessions: a rule set past a bound has the rest of that event's
 * matches dropped (not left for the next event), the breach is counted and kept, and the engine
 * goes on with the next event and with other rule sets.
 */
class EvaluationBoundsTest {

  static final long T0 = 1_700_000_000_000L;

  /** Every pair of "p" events matches: the n-th event adds 2n-1 matches. */
  static final String PAIRS =
      """
      rule "pairs"
      when
        $a : Event( type == "p" )
        $b : Event( type == "p" )
      then
        actions.run("webhook", Map.of("a", $a.getId(), "b", $b.getId()));
      end
      """;

  static final String SINGLE =
      """
      rule "single"
      when
        $e : Event( type == "s" )
      then
        actions.run("webhook", Map.of("id", $e.getId()));
      end
      """;

  final Recorder webhook = new Recorder("webhook");
  final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  final RuleCompiler compiler = new RuleCompiler(Duration.ofMinutes(10));
  RuleEngine engine;
  ActionDispatcher dispatcher;

  RuleEngine engine(RuleSettings s) {
    dispatcher =
        new ActionDispatcher(List.of(webhook), s.actionConcurrency(), s.actionQueueCapacity());
    engine = new RuleEngine(dispatcher, meters, s);
    return engine;
  }

  @AfterEach
  void close() {
    engine.close();
    dispatcher.close();
  }

  @Test
  void matchesBeyondTheActivationBoundAreDroppedAndReported() {
    engine(RuleSettings.defaults().withEvaluationBounds(Duration.ofSeconds(10), 10));
    engine.deploy(compiler.compile("pairs", PAIRS));
    engine.deploy(compiler.compile("single", SINGLE));
    for (int i = 1; i <= 7; i++) {
      engine.accept(event("p" + i, "p", T0 + i, "{}"));
    }
    engine.accept(event("s1", "s", T0 + 8, "{}"));

    // Events 1-5 add 1+3+5+7+9 matches, all within 10; events 6 and 7 add 11 and 13, of which 10
    // fire each.
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                engine.executions("pairs").size() == 45 && engine.executions("single").size() == 1);
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(2))
        .until(() -> webhook.calls.size() == 46);
    BudgetBreach breach = engine.lastBudgetBreach("pairs").orElseThrow();
    assertThat(breach.eventId()).isEqualTo("p7");
    assertThat(breach.bound()).isEqualTo("activations");
    assertThat(breach.fired()).isEqualTo(10);
    assertThat(breach.dropped()).isEqualTo(3);
    assertThat(breach.count()).isEqualTo(2);
    assertThat(engine.metrics("pairs").orElseThrow().budgetExceededCount("activations"))
        .isEqualTo(2.0);
    assertThat(
            meters
                .get("activity.rules.budget.exceeded")
                .tag("rule", "pairs")
                .tag("bound", "activations")
                .counter()
                .count())
        .isEqualTo(2.0);
    assertThat(engine.lastBudgetBreach("single")).isEmpty();
  }

  @Test
  void onlyTheFirstFiringRunsOnceTheTimeBudgetIsSpent() {
    // A budget of 1 ns is spent before any match is asked about: the deterministic way to hit it.
    // The
    // first firing still runs (an event's only action is never lost to a slow condition); the
    // second not.
    engine(RuleSettings.defaults().withEvaluationBounds(Duration.ofNanos(1), 1_000));
    engine.deploy(
        compiler.compile("twice", SINGLE + SINGLE.replace("rule \"single\"", "rule \"again\"")));
    engine.accept(event("s1", "s", T0, "{}"));

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> engine.lastBudgetBreach("twice").isPresent());
    BudgetBreach breach = engine.lastBudgetBreach("twice").orElseThrow();
    assertThat(breach.bound()).isEqualTo("time");
    assertThat(breach.fired()).isEqualTo(1);
    assertThat(breach.dropped()).isEqualTo(1);
    assertThat(engine.metrics("twice").orElseThrow().budgetExceededCount("time")).isEqualTo(1.0);
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(2))
        .until(() -> webhook.calls.size() == 1);
  }

  @Test
  void anEvaluationWithinTheBoundsIsNotReported() {
    engine(RuleSettings.defaults());
    engine.deploy(compiler.compile("single", SINGLE));
    engine.accept(event("s1", "s", T0, "{}"));
    await().atMost(Duration.ofSeconds(10)).until(() -> engine.executions("single").size() == 1);
    assertThat(engine.lastBudgetBreach("single")).isEmpty();
    assertThat(engine.metrics("single").orElseThrow().budgetExceededCount("time")).isZero();
    assertThat(engine.metrics("single").orElseThrow().budgetExceededCount("activations")).isZero();
  }
}
