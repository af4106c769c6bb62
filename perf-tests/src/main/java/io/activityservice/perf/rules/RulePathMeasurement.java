package io.activityservice.perf.rules;

import static io.activityservice.perf.rules.RuleMeasurements.event;

import io.activityservice.perf.cli.CommandLines;
import io.activityservice.rules.Event;
import io.activityservice.rules.RuleSettings;
import io.activityservice.rules.action.ActionDispatcher;
import io.activityservice.rules.compile.RuleCompiler;
import io.activityservice.rules.engine.RuleEngine;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Rule-path cost, measured by hand: {@code java -cp perf-tests/target/perf-runner.jar
 * io.activityservice.perf.rules.RulePathMeasurement [--rules 1,10,100] [--events 200000] [--layouts
 * same-type,own-type]}.
 *
 * <p>Events/s through the engine's tap ({@link RuleEngine#accept}, 2 engine threads) with N rule
 * sets deployed, each compiled from its own DRL, in two layouts: {@code same-type}, every rule set
 * on the event's type (each event is evaluated by all N; {@code max(events / 10, events / N)}
 * events), and {@code own-type}, each rule set on its own type and the events spread over the N
 * types (the type index hands each event to one; {@code events} events). Each rule is {@code
 * number("value") > 99.5} over values 0 to 99.5, so it holds for no event and no action runs: the
 * figure is the evaluation path. The first 10 % of the events warm up; the rest are timed from the
 * first hand-off until every queue is empty. Prints one row per N and layout (events/s, rule-set
 * evaluations/s, time to compile and deploy the N rule sets, events the queues dropped, which
 * should be 0); asserts nothing. {@code RuleBenchmark} (JMH) is the per-event cost with one shared
 * compiled rule.
 */
public final class RulePathMeasurement {

  static final long T0 = 1_700_000_000_000L;

  private RulePathMeasurement() {}

  /** The command line (picocli). */
  @Command(
      name = "RulePathMeasurement",
      mixinStandardHelpOptions = true,
      sortOptions = false,
      description = "Throughput of the rule path with N rules.")
  static final class Args {
    @Option(
        names = "--rules",
        paramLabel = "N1,N2",
        defaultValue = "1,10,100",
        split = ",",
        description = "rule counts (default: ${DEFAULT-VALUE})")
    int[] ruleCounts;

    @Option(
        names = "--events",
        paramLabel = "N",
        defaultValue = "200000",
        description = "events per run (default: ${DEFAULT-VALUE})")
    int events;

    @Option(
        names = "--layouts",
        paramLabel = "L1,L2",
        defaultValue = "same-type,own-type",
        split = ",",
        description = "same-type and/or own-type (default: ${DEFAULT-VALUE})")
    List<String> layouts;
  }

  public static void main(String[] args) {
    Args a = CommandLines.parse(new Args(), args);
    int[] ruleCounts = a.ruleCounts;
    int events = a.events;
    List<String> layouts = a.layouts;
    System.out.printf(
        "%8s %-10s %10s %12s %16s %11s %8s%n",
        "rules", "layout", "events", "events/s", "evaluations/s", "compile ms", "dropped");
    for (int rules : ruleCounts) {
      for (String layout : layouts) {
        if (!layout.equals("same-type") && !layout.equals("own-type")) {
          throw new IllegalArgumentException("--layouts: same-type or own-type, not " + layout);
        }
        run(rules, layout.equals("same-type"), events);
      }
    }
  }

  private static void run(int rules, boolean sameType, int eventCount) {
    RuleSettings s =
        RuleSettings.builder()
            .queueCapacity(20_000)
            .engineThreads(2)
            .eventExpiry(Duration.ofSeconds(10))
            .maxEventsPerRule(50_000)
            .actionConcurrency(4)
            .actionQueueCapacity(100_000)
            .webhookMaxAttempts(1)
            .build();
    ActionDispatcher dispatcher =
        new ActionDispatcher(
            List.of(new RuleMeasurements.NoopAction("noop")),
            s.actionConcurrency(),
            s.actionQueueCapacity());
    RuleEngine engine = new RuleEngine(dispatcher, new SimpleMeterRegistry(), s);
    try {
      RuleCompiler compiler = new RuleCompiler(s.eventExpiry());
      List<String> names = new ArrayList<>();
      long compileStart = System.nanoTime();
      for (int r = 0; r < rules; r++) {
        String type = sameType ? "com.example.meter.reading" : "com.example.meter.reading." + r;
        names.add("r" + r);
        engine.deploy(
            compiler.compile(
                "r" + r,
                """
            rule "high %d"
            when
              $e : Event( type == "%s", number("value") > 99.5 )
            then
              actions.run("noop", Map.of("event", $e));
            end"""
                    .formatted(r, type)));
      }
      long compileMs = (System.nanoTime() - compileStart) / 1_000_000;
      int events = sameType ? Math.max(eventCount / 10, eventCount / rules) : eventCount;
      List<Event> batch = new ArrayList<>(events);
      for (int i = 0; i < events; i++) {
        String type =
            sameType ? "com.example.meter.reading" : "com.example.meter.reading." + (i % rules);
        batch.add(
            event(
                "e" + i,
                type,
                T0 + i,
                "{\"meter\": \"m" + (i % 50) + "\", \"value\": " + (i % 200) / 2.0 + "}"));
      }
      int warm = events / 10;
      feed(engine, batch.subList(0, warm), names);
      long start = System.nanoTime();
      feed(engine, batch.subList(warm, events), names);
      double seconds = (System.nanoTime() - start) / 1e9;
      int measured = events - warm;
      long evaluations = sameType ? (long) measured * rules : measured;
      double dropped =
          names.stream().mapToDouble(n -> engine.metrics(n).orElseThrow().droppedCount()).sum();
      System.out.printf(
          "%8d %-10s %10d %12.0f %16.0f %11d %8.0f%n",
          rules,
          sameType ? "same-type" : "own-type",
          measured,
          measured / seconds,
          evaluations / seconds,
          compileMs,
          dropped);
    } finally {
      engine.close();
      dispatcher.close();
    }
  }

  /**
   * Hands the events to the tap, holding back while a queue is half full (the tap drops beyond
   * capacity).
   */
  private static void feed(RuleEngine engine, List<Event> events, List<String> names) {
    int i = 0;
    for (Event e : events) {
      engine.accept(e);
      if (++i % 1000 == 0) {
        for (String n : names) {
          while (engine.queued(n) > 10_000) {
            LockSupport.parkNanos(20_000);
          }
        }
      }
    }
    for (String n : names) {
      while (engine.queued(n) > 0) {
        LockSupport.parkNanos(20_000);
      }
    }
  }
}
