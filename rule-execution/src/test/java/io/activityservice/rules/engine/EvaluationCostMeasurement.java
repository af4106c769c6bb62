package io.activityservice.rules.engine;

import static io.activityservice.rules.TestEvents.event;
import static org.awaitility.Awaitility.await;

import io.activityservice.rules.RuleSettings;
import io.activityservice.rules.TestEvents;
import io.activityservice.rules.TestEvents.Recorder;
import io.activityservice.rules.action.ActionDispatcher;
import io.activityservice.rules.compile.RuleCompiler;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * What one event's evaluation costs when a window holds many events, and what the evaluation bounds
 * make of it. Prints a table; asserts nothing about time. Run with
 * {@code ./mvnw -q -B -pl rule-execution -am test -Dtest=EvaluationCostMeasurement -Dmeasure=true
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 *
 * <ul>
 *   <li>{@code count}: {@code accumulate(Event() over window:time(1h), count)} without a join: Drools
 *       updates the count incrementally, one firing per event.</li>
 *   <li>{@code failed-logins}: the example, every event from the same user: each new event is joined with
 *       every event of that user in the window ({@code not ... after}, the accumulate), so one evaluation
 *       costs time proportional to the window.</li>
 *   <li>{@code per-user count}: the same join without the {@code not}: every earlier event's count changes,
 *       so one event re-fires every earlier match, until {@code max-activations-per-event} stops it, and
 *       Drools keeps one tuple per pair of events: memory grows with the square of the window.</li>
 * </ul>
 * {@code -Dmeasure.only=<label prefix>} runs one of them.
 */
@EnabledIfSystemProperty(named = "measure", matches = "true")
class EvaluationCostMeasurement {

  static final long T0 = 1_700_000_000_000L;
  static final int[] SIZES = {1_000, 5_000, 10_000, 20_000};
  /** The per-user count keeps a tuple per pair of events: about 4,500 events fill a 2 GB heap (see the README). */
  static final int[] PAIR_SIZES = {1_000, 2_000, 3_000};

  @Test
  void costPerEventAsTheWindowGrows() {
    System.out.println("| rule set | facts in session | mean ms/event (next 500 events) | max ms | bound hits "
        + "(time / activations) | heap used MB |");
    System.out.println("|---|---|---|---|---|---|");
    run("count", SIZES, """
        rule "count"
        when
          $n : Number() from accumulate( $f : Event( type == "w" ) over window:time( 1h ), count( $f ) )
        then
        end""", "w");
    run("failed-logins (1 h window)", SIZES, TestEvents.example("failed-logins.drl").replace("window:time( 10s )",
        "window:time( 1h )"), "com.example.auth.login.failed");
    run("per-user count", PAIR_SIZES, """
        rule "per user"
        when
          $last : Event( type == "w", $user : text("user") )
          $n : Number() from accumulate( $f : Event( type == "w", text("user") == $user ) over window:time( 1h ),
              count( $f ) )
        then
        end""", "w");
  }

  private void run(String label, int[] sizes, String drl, String type) {
    String only = System.getProperty("measure.only");
    if (only != null && !label.startsWith(only)) {
      return;
    }
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    ActionDispatcher dispatcher = new ActionDispatcher(List.of(new Recorder("webhook")), 4, 100_000);
    RuleEngine engine = new RuleEngine(dispatcher, meters, RuleSettings.defaults());
    String name = "m";
    try {
      engine.deploy(new RuleCompiler(Duration.ofHours(2)).compile(name, drl));
      Timer timer = meters.get("activity.rules.evaluation").tag("rule", name).timer();
      int fed = 0;
      for (int size : sizes) {
        while (fed < size - 500) {
          fed = feed(engine, timer, type, fed, Math.min(1_000, size - 500 - fed));
        }
        double totalBefore = timer.totalTime(TimeUnit.MILLISECONDS);
        long countBefore = timer.count();
        fed = feed(engine, timer, type, fed, 500);
        double mean = (timer.totalTime(TimeUnit.MILLISECONDS) - totalBefore) / (timer.count() - countBefore);
        RuleMetrics m = engine.metrics(name).orElseThrow();
        long heapMb = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / (1024 * 1024);
        System.out.printf("| %s | %,d | %.3f | %.1f | %.0f / %.0f | %,d |%n", label, engine.facts(name), mean,
            timer.max(TimeUnit.MILLISECONDS), m.budgetExceededCount("time"), m.budgetExceededCount("activations"),
            heapMb);
      }
    } finally {
      engine.close();
      dispatcher.close();
    }
  }

  /** Feeds events 1 ms apart (all inside a 1 h window) and waits until they are evaluated. */
  private static int feed(RuleEngine engine, Timer timer, String type, int from, int count) {
    for (int i = from; i < from + count; i++) {
      engine.accept(event("e" + i, type, T0 + i, "{\"user\": \"mallory\"}"));
    }
    long target = from + count;
    await().atMost(Duration.ofMinutes(20)).until(() -> timer.count() >= target);
    return from + count;
  }
}
