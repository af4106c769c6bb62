package io.activityservice.perf;

import io.activityservice.events.json.Json;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.rules.RuleSettings;
import io.activityservice.rules.action.ActionDispatcher;
import io.activityservice.rules.compile.CompiledRule;
import io.activityservice.rules.compile.RuleCompiler;
import io.activityservice.rules.engine.RuleEngine;
import io.activityservice.rules.engine.RuleMetrics;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.jackson.JsonCloudEventData;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Per-event cost of Drools rules: one ~1 KiB meter reading handed to a {@link RuleEngine} with N
 * rule sets deployed ({@code @Param rules} = 1, 10, 100), measured to completion.
 *
 * <p>The synchronous step ({@code RuleSession.evaluate}: advance the pseudo clock, {@code insert},
 * {@code fireAllRules}) is private, so this goes through the public API: each invocation hands
 * {@value #BATCH} events to {@link RuleEngine#onEvent} (the router tap's hot path), then waits
 * (parking 20 µs between polls) until every consuming rule set has fired once per event ({@link
 * RuleMetrics#matchCount}). The figure is therefore <b>time per event, end to end through the
 * engine</b>: queue hand-off and actor scheduling, and per consuming rule set the clock advance,
 * insert, fire and expiry. One engine thread evaluates all sessions; the submitting thread runs
 * concurrently on the other core and builds each event (new id and {@code time}, the same {@code
 * data} node, so no JSON parsing), which costs well under the engine's time per event.
 *
 * <p>Every rule set is one rule {@code Event( type == "com.example.meter.reading", number("value")
 * > -1.0 )} with an empty consequence: it matches every reading and fires, but runs no action (the
 * action executor is not measured). Events are 1 ms apart in event time with {@code @expires(1s)},
 * so each session holds ~1,000 facts in steady state. The N rule sets share one compiled {@code
 * KieBase} (each has its own {@code KieSession}, as in the service); compiling 100 identical DRLs
 * would only lengthen set-up. Layouts ({@code @Param layout}): {@code all} = all N rule sets are on
 * the reading type (worst case); {@code one} = one is, the other N - 1 on another type (the
 * engine's type index never hands them the event). No event may be dropped.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx2g"})
public class RuleBenchmark {

  static final int BATCH = 1_000;
  private static final String DRL =
      """
      rule "reading"
      when
        $e : Event( type == "%s", number("value") > -1.0 )
      then
      end""";

  @Param({"1", "10", "100"})
  public int rules;

  @Param({"all", "one"})
  public String layout;

  private ActionDispatcher dispatcher;
  private RuleEngine engine;
  private final List<RuleMetrics> consuming = new ArrayList<>();
  private final List<String> names = new ArrayList<>();
  private CloudEvent template;
  private long sequence;
  private long done;

  @Setup(Level.Trial)
  public void setUp() {
    RuleSettings s =
        RuleSettings.builder()
            .queueCapacity(10_000)
            .engineThreads(1)
            .eventExpiry(Duration.ofSeconds(1))
            .maxEventsPerRule(100_000)
            .actionConcurrency(4)
            .actionQueueCapacity(10_000)
            .webhookMaxAttempts(1)
            .build();
    dispatcher = new ActionDispatcher(List.of(), s.actionConcurrency(), s.actionQueueCapacity());
    engine = new RuleEngine(dispatcher, new SimpleMeterRegistry(), s);
    RuleCompiler compiler = new RuleCompiler(s.eventExpiry());
    CompiledRule reading = compiler.compile("reading", DRL.formatted(BenchmarkEvents.READING));
    CompiledRule other = compiler.compile("other", DRL.formatted("com.example.grid.reading"));
    boolean all = "all".equals(layout);
    for (int i = 0; i < rules; i++) {
      boolean consumes = all || i == rules - 1;
      CompiledRule r = consumes ? reading : other;
      String name = "r" + i;
      engine.deploy(new CompiledRule(name, r.drl(), r.kieBase(), r.types()));
      names.add(name);
      if (consumes) {
        consuming.add(engine.metrics(name).orElseThrow());
      }
    }
    CloudEvent e = BenchmarkEvents.reading("m-0", 7.5);
    template =
        CloudEventBuilder.v1(e)
            .withData(
                "application/json",
                JsonCloudEventData.wrap(
                    Json.parse(new String(e.getData().toBytes(), StandardCharsets.UTF_8), "data")))
            .build();
    sequence = 0;
    done = 0;
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long submitAndDrain() {
    long t0 = template.getTime().toInstant().toEpochMilli();
    for (int i = 0; i < BATCH; i++) {
      long n = sequence++;
      engine.onEvent(
          RoutableEvent.of(
              CloudEventBuilder.v1(template)
                  .withId("e-" + n)
                  .withTime(OffsetDateTime.ofInstant(Instant.ofEpochMilli(t0 + n), ZoneOffset.UTC))
                  .build()));
    }
    done += BATCH;
    for (RuleMetrics m : consuming) {
      while (m.matchCount() < done) {
        if (m.droppedCount() > 0) {
          throw new IllegalStateException(
              "a rule queue overflowed: " + m.droppedCount() + " dropped");
        }
        LockSupport.parkNanos(20_000);
      }
    }
    return done;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    long facts = engine.facts(names.get(names.size() - 1));
    engine.close();
    dispatcher.close();
    if (facts > 5_000) {
      throw new IllegalStateException("events do not expire: " + facts + " facts in one session");
    }
  }
}
