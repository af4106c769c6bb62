package io.activityservice.rules.engine;

import java.time.Duration;
import org.kie.api.runtime.rule.AgendaFilter;
import org.kie.api.runtime.rule.Match;

/**
 * Bounds one event's evaluation in a session, as the agenda filter of {@code fireAllRules}: at most
 * {@code maxActivations} rule firings, and no further firing once the time budget is spent. A match
 * the filter refuses is cancelled by Drools, so the rest of that event's matches are dropped rather
 * than left for the next event. Drools asks the filter before each firing; condition evaluation
 * (joins, accumulates) between two firings cannot be interrupted and is only measured.
 *
 * <p>The first firing of an evaluation always runs: its cost is bounded (the guard allows no
 * loops), and a slow condition or a garbage-collection pause must not lose an event's only action.
 * The time budget stops the firings after it.
 */
final class EvaluationBudget implements AgendaFilter {

  /** Which bound an evaluation hit. */
  enum Bound {
    /** More matches than {@code maxActivationsPerEvent}. */
    ACTIVATIONS,
    /** Longer than {@code evaluationBudget}. */
    TIME;

    String tag() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  private final int maxActivations;
  private final long budgetNanos;
  private long started;
  private int fired;
  private int dropped;
  private Bound exceeded;

  EvaluationBudget(Duration budget, int maxActivations) {
    this.budgetNanos = budget.toNanos();
    this.maxActivations = maxActivations;
  }

  /** Starts an evaluation at {@code nanoTime}. */
  void start(long nanoTime) {
    started = nanoTime;
    fired = 0;
    dropped = 0;
    exceeded = null;
  }

  @Override
  public boolean accept(Match match) {
    if (exceeded == null) {
      if (fired >= maxActivations) {
        exceeded = Bound.ACTIVATIONS;
      } else if (fired > 0 && System.nanoTime() - started > budgetNanos) {
        exceeded = Bound.TIME;
      }
    }
    if (exceeded != null) {
      dropped++;
      return false;
    }
    fired++;
    return true;
  }

  /**
   * After the evaluation: the bound it hit, also when the time was spent outside firings; null if
   * none.
   */
  Bound finish(long nanoTime) {
    if (exceeded == null && nanoTime - started > budgetNanos) {
      exceeded = Bound.TIME;
    }
    return exceeded;
  }

  int fired() {
    return fired;
  }

  int dropped() {
    return dropped;
  }
}
