package io.activityservice.rules.engine;

import io.activityservice.rules.action.ExecutionRecord;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Micrometer meters of one rule set, tagged {@code rule=<name>}: {@code activity.rules.matches}
 * (rule firings), {@code activity.rules.evaluation} (time to insert an event and fire), {@code
 * activity.rules.dropped} (events refused by a full queue), {@code activity.rules.budget.exceeded}
 * (evaluations stopped or slowed past a bound, per {@code bound}: {@code time} or {@code
 * activations}), {@code activity.rules.actions} and {@code activity.rules.action.failures} (per
 * {@code handler}), gauges {@code activity.rules.queue.size} and {@code activity.rules.facts}.
 * Removed when the rule set is deleted.
 */
public final class RuleMetrics {

  private final MeterRegistry registry;
  private final String rule;
  private final List<Meter> meters = new CopyOnWriteArrayList<>();
  private final ConcurrentHashMap<String, Counter> actions = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Counter> failures = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Counter> budget = new ConcurrentHashMap<>();
  private final Counter matches;
  private final Counter dropped;
  private final Timer evaluation;

  RuleMetrics(
      MeterRegistry registry, String rule, Supplier<Number> queueSize, Supplier<Number> facts) {
    this.registry = registry;
    this.rule = rule;
    this.matches =
        keep(
            Counter.builder("activity.rules.matches")
                .description("Rule firings")
                .tag("rule", rule)
                .register(registry));
    this.dropped =
        keep(
            Counter.builder("activity.rules.dropped")
                .description("Events dropped because the rule set's queue was full")
                .tag("rule", rule)
                .register(registry));
    this.evaluation =
        keep(
            Timer.builder("activity.rules.evaluation")
                .description("Time to insert one event and fire the rules")
                .tag("rule", rule)
                .register(registry));
    keep(
        Gauge.builder("activity.rules.queue.size", queueSize)
            .description("Events waiting for the rule set")
            .tag("rule", rule)
            .register(registry));
    keep(
        Gauge.builder("activity.rules.facts", facts)
            .description("Facts held by the rule set's session")
            .tag("rule", rule)
            .register(registry));
  }

  void matched() {
    matches.increment();
  }

  void dropped() {
    dropped.increment();
  }

  void budgetExceeded(String bound) {
    budget
        .computeIfAbsent(
            bound,
            b ->
                keep(
                    Counter.builder("activity.rules.budget.exceeded")
                        .description(
                            "Evaluations of one event that hit a bound (evaluation budget or activations per event)")
                        .tag("rule", rule)
                        .tag("bound", b)
                        .register(registry)))
        .increment();
  }

  /** Evaluations that hit a bound: {@code time} or {@code activations}. */
  public double budgetExceededCount(String bound) {
    Counter c = budget.get(bound);
    return c == null ? 0 : c.count();
  }

  void evaluated(long nanos) {
    evaluation.record(nanos, TimeUnit.NANOSECONDS);
  }

  /** Counts one settled action. */
  void executed(ExecutionRecord r) {
    actions
        .computeIfAbsent(
            r.handler(),
            h ->
                keep(
                    Counter.builder("activity.rules.actions")
                        .description("Actions run")
                        .tag("rule", rule)
                        .tag("handler", h)
                        .register(registry)))
        .increment();
    if (!ExecutionRecord.SUCCEEDED.equals(r.outcome())) {
      failures
          .computeIfAbsent(
              r.handler(),
              h ->
                  keep(
                      Counter.builder("activity.rules.action.failures")
                          .description("Actions that failed")
                          .tag("rule", rule)
                          .tag("handler", h)
                          .register(registry)))
          .increment();
    }
  }

  public double matchCount() {
    return matches.count();
  }

  public double droppedCount() {
    return dropped.count();
  }

  void remove() {
    meters.forEach(registry::remove);
    meters.clear();
  }

  private <M extends Meter> M keep(M meter) {
    meters.add(meter);
    return meter;
  }
}
