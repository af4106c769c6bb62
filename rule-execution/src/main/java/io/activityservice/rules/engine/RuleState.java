package io.activityservice.rules.engine;

import io.activityservice.rules.action.ExecutionHistory;
import io.activityservice.rules.action.ExecutionRecord;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What one rule set keeps across redeployments: its execution history, metrics, current session and
 * the latest evaluation that hit a bound.
 */
final class RuleState {

  final String name;
  final ExecutionHistory history;
  final RuleMetrics metrics;
  final AtomicLong breaches = new AtomicLong();
  volatile RuleSession session;
  volatile BudgetBreach lastBreach;

  RuleState(String name, int historySize, MeterRegistry meters) {
    this.name = name;
    this.history = new ExecutionHistory(historySize);
    this.metrics =
        new RuleMetrics(
            meters,
            name,
            () -> session == null ? 0 : session.queued(),
            () -> session == null ? 0 : session.facts());
  }

  void record(ExecutionRecord r) {
    history.add(r);
    metrics.executed(r);
  }
}
