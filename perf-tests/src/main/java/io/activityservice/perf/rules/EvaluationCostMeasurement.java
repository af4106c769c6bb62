package io.activityservice.perf.rules;

import static io.activityservice.perf.rules.RuleMeasurements.event;

import io.activityservice.perf.cli.CommandLines;
import io.activityservice.rules.RuleSettings;
import io.activityservice.rules.action.ActionDispatcher;
import io.activityservice.rules.compile.RuleCompiler;
import io.activityservice.rules.engine.RuleEngine;
import io.activityservice.rules.engine.RuleMetrics;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What one event's evaluation costs when a window holds many events, and what the evaluation bounds
 * make of it, measured by hand: {@code java -Xmx2g -cp perf-tests/target/perf-runner.jar
 * io.activityservice.perf.rules.EvaluationCostMeasurement [--sizes 1000,5000,10000,20000]
 * [--pair-sizes 1000,2000,3000] [--only <label prefix>] [--examples rule-execution/examples]}.
 *
 * <p>Events of one user, 1 ms apart in event time (all inside a 1 h window), through {@link
 * RuleEngine#accept} with the default settings (evaluation bounds included). At each window size
 * the next 500 events are timed with the engine's {@code activity.rules.evaluation} timer. Prints a
 * Markdown table (mean and max ms per event, bound hits, facts in the session, heap used); asserts
 * nothing.
 *
 * <ul>
 *   <li>{@code count}: {@code accumulate(Event() over window:time(1h), count)} without a join:
 *       Drools updates the count incrementally, one firing per event.
 *   <li>{@code failed-logins}: the example {@code failed-logins.drl} (read from {@code --examples})
 *       with a 1 h window: each new event is joined with every event of that user in the window
 *       ({@code not ... after}, the accumulate), so one evaluation costs time proportional to the
 *       window.
 *   <li>{@code per-user count}: the same join without the {@code not}: every earlier event's count
 *       changes, so one event re-fires every earlier match until {@code max-activations-per-event}
 *       stops it, and Drools keeps one tuple per pair of events: memory grows with the square of
 *       the window ({@code --pair-sizes}; about 4,500 events fill a 2 GB heap).
 * </ul>
 */
public final class EvaluationCostMeasurement {

  static final long T0 = 1_700_000_000_000L;

  private EvaluationCostMeasurement() {}

  /** The command line (picocli). */
  @Command(
      name = "EvaluationCostMeasurement",
      mixinStandardHelpOptions = true,
      sortOptions = false,
      description = "Drools evaluation cost per event by session size.")
  static final class Args {
    @Option(
        names = "--sizes",
        paramLabel = "N1,N2",
        defaultValue = "1000,5000,10000,20000",
        split = ",",
        description = "facts in session (default: ${DEFAULT-VALUE})")
    int[] sizes;

    @Option(
        names = "--pair-sizes",
        paramLabel = "N1,N2",
        defaultValue = "1000,2000,3000",
        split = ",",
        description = "facts in session of the pair rules (default: ${DEFAULT-VALUE})")
    int[] pairSizes;

    @Option(
        names = "--only",
        paramLabel = "NAME",
        defaultValue = "",
        description = "run only this rule set (default: ${DEFAULT-VALUE})")
    String only;

    @Option(
        names = "--examples",
        paramLabel = "DIR",
        defaultValue = "rule-execution/examples",
        description = "the example rules (default: ${DEFAULT-VALUE})")
    Path examples;
  }

  public static void main(String[] args) throws IOException {
    Args a = CommandLines.parse(new Args(), args);
    int[] sizes = a.sizes;
    int[] pairSizes = a.pairSizes;
    String only = a.only;
    Path examples = a.examples;
    String failedLogins = Files.readString(examples.resolve("failed-logins.drl"));
    System.out.println(
        "| rule set | facts in session | mean ms/event (next 500 events) | max ms | bound hits "
            + "(time / activations) | heap used MB |");
    System.out.println("|---|---|---|---|---|---|");
    run(
        only,
        "count",
        sizes,
        """
        rule "count"
        when
          $n : Number() from accumulate( $f : Event( type == "w" ) over window:time( 1h ), count( $f ) )
        then
        end""",
        "w");
    run(
        only,
        "failed-logins (1 h window)",
        sizes,
        failedLogins.replace("window:time( 10s )", "window:time( 1h )"),
        "com.example.auth.login.failed");
    run(
        only,
        "per-user count",
        pairSizes,
        """
        rule "per user"
        when
          $last : Event( type == "w", $user : text("user") )
          $n : Number() from accumulate( $f : Event( type == "w", text("user") == $user ) over window:time( 1h ),
              count( $f ) )
        then
        end""",
        "w");
  }

  private static void run(String only, String label, int[] sizes, String drl, String type) {
    if (!label.startsWith(only)) {
      return;
    }
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    ActionDispatcher dispatcher =
        new ActionDispatcher(List.of(new RuleMeasurements.NoopAction("webhook")), 4, 100_000);
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
        double mean =
            (timer.totalTime(TimeUnit.MILLISECONDS) - totalBefore) / (timer.count() - countBefore);
        RuleMetrics m = engine.metrics(name).orElseThrow();
        long heapMb =
            ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / (1024 * 1024);
        System.out.printf(
            "| %s | %,d | %.3f | %.1f | %.0f / %.0f | %,d |%n",
            label,
            engine.facts(name),
            mean,
            timer.max(TimeUnit.MILLISECONDS),
            m.budgetExceededCount("time"),
            m.budgetExceededCount("activations"),
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
    RuleMeasurements.waitUntil(() -> timer.count() >= target, Duration.ofMinutes(20));
    return from + count;
  }
}
