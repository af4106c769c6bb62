package io.activityservice.rules.engine;

import static io.activityservice.rules.TestEvents.event;

import io.activityservice.rules.Event;
import io.activityservice.rules.RuleSettings;
import io.activityservice.rules.TestEvents.Recorder;
import io.activityservice.rules.action.ActionDispatcher;
import io.activityservice.rules.compile.RuleCompiler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Rule-path cost: events/s through the engine's tap with 1, 10 and 100 rule sets deployed, in two
 * layouts: every rule set on the event's type (each event is evaluated by all of them) and each rule
 * set on its own type (the type index hands each event to one). Run with
 * {@code ./mvnw -q -B -pl rule-execution test -Dtest=RulePathMeasurement -Dmeasure=true}; prints figures,
 * asserts nothing about time.
 */
@EnabledIfSystemProperty(named = "measure", matches = "true")
class RulePathMeasurement {

  static final long T0 = 1_700_000_000_000L;

  @Test
  void eventsPerSecond() {
    for (int rules : new int[] {1, 10, 100}) {
      run(rules, true);
      run(rules, false);
    }
  }

  private void run(int rules, boolean sameType) {
    RuleSettings d = RuleSettings.defaults();
    RuleSettings s = new RuleSettings(20_000, 2, Duration.ofSeconds(10), 50_000, 4, 100_000, 100, 8,
        d.webhookTimeout(), 1, d.webhookInitialBackoff(), d.webhookMaxBackoff());
    Recorder noop = new Recorder("noop");
    ActionDispatcher dispatcher = new ActionDispatcher(List.of(noop), s.actionConcurrency(), s.actionQueueCapacity());
    RuleEngine engine = new RuleEngine(dispatcher, new SimpleMeterRegistry(), s);
    RuleCompiler compiler = new RuleCompiler(s.eventExpiry());
    List<String> names = new ArrayList<>();
    long compileStart = System.nanoTime();
    for (int r = 0; r < rules; r++) {
      String type = sameType ? "com.example.meter.reading" : "com.example.meter.reading." + r;
      names.add("r" + r);
      engine.deploy(compiler.compile("r" + r, """
          rule "high %d"
          when
            $e : Event( type == "%s", number("value") > 99.5 )
          then
            actions.run("noop", Map.of("event", $e));
          end""".formatted(r, type)));
    }
    long compileMs = (System.nanoTime() - compileStart) / 1_000_000;
    int events = sameType ? Math.max(20_000, 200_000 / rules) : 200_000;
    List<Event> batch = new ArrayList<>(events);
    for (int i = 0; i < events; i++) {
      String type = sameType ? "com.example.meter.reading" : "com.example.meter.reading." + (i % rules);
      batch.add(event("e" + i, type, T0 + i, "{\"meter\": \"m" + (i % 50) + "\", \"value\": " + (i % 200) / 2.0 + "}"));
    }
    // Warm-up on the first 10%, then measure.
    int warm = events / 10;
    feed(engine, batch.subList(0, warm), names);
    long start = System.nanoTime();
    feed(engine, batch.subList(warm, events), names);
    double seconds = (System.nanoTime() - start) / 1e9;
    int measured = events - warm;
    long evaluations = sameType ? (long) measured * rules : measured;
    System.out.printf("MEASURE rules=%d layout=%s events=%d events/s=%.0f evaluations/s=%.0f compile=%dms%n",
        rules, sameType ? "same-type" : "own-type", measured, measured / seconds, evaluations / seconds, compileMs);
    engine.close();
    dispatcher.close();
  }

  private static void feed(RuleEngine engine, List<Event> events, List<String> names) {
    int i = 0;
    for (Event e : events) {
      engine.accept(e);
      if (++i % 1000 == 0) {
        for (String n : names) {
          while (engine.queued(n) > 10_000) {
            Thread.onSpinWait();
          }
        }
      }
    }
    for (String n : names) {
      while (engine.queued(n) > 0) {
        Thread.onSpinWait();
      }
    }
  }
}
