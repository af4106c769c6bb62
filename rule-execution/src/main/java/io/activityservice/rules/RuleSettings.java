package io.activityservice.rules;

import java.time.Duration;

/**
 * Settings of the rule execution service (bound from {@code activity.rules.*} by the application).
 *
 * @param queueCapacity          events waiting per rule set; beyond it new events are dropped for that rule set and counted
 * @param engineThreads          threads evaluating rule sessions (each session runs on one thread at a time)
 * @param eventExpiry            how long after its {@code time} an event stays in a session at least (Drools {@code @expires});
 *                               windows and temporal operators that need longer keep events longer
 * @param maxEventsPerRule       hard bound on events held by one session; the oldest are retracted beyond it
 * @param actionConcurrency      actions running at once (all rule sets)
 * @param actionQueueCapacity    actions waiting for a slot; beyond it actions fail as rejected and are recorded
 * @param executionHistorySize   executions remembered per rule set
 * @param maxHops                longest chain of rule-published events ({@code hopcount}); longer ones are dead-lettered
 * @param webhookTimeout         timeout of one webhook attempt
 * @param webhookMaxAttempts     webhook attempts before the action fails
 * @param webhookInitialBackoff  delay before the second attempt; doubles each attempt
 * @param webhookMaxBackoff      longest delay between attempts
 * @param evaluationBudget       time one event's evaluation (insert and fire) may take: no further rule fires after it
 *                               (the first firing always runs), the remaining matches of that event are dropped and
 *                               the breach is counted ({@code activity.rules.budget.exceeded{bound=time}})
 * @param maxActivationsPerEvent rule firings one event may cause in a rule set; beyond it the remaining matches are
 *                               dropped and the breach is counted ({@code activity.rules.budget.exceeded{bound=activations}})
 */
public record RuleSettings(int queueCapacity, int engineThreads, Duration eventExpiry, int maxEventsPerRule,
                           int actionConcurrency, int actionQueueCapacity, int executionHistorySize, int maxHops,
                           Duration webhookTimeout, int webhookMaxAttempts, Duration webhookInitialBackoff,
                           Duration webhookMaxBackoff, Duration evaluationBudget, int maxActivationsPerEvent) {

  /** Default of {@link #evaluationBudget()}. */
  public static final Duration DEFAULT_EVALUATION_BUDGET = Duration.ofSeconds(1);
  /** Default of {@link #maxActivationsPerEvent()}. */
  public static final int DEFAULT_MAX_ACTIVATIONS_PER_EVENT = 1_000;

  public RuleSettings {
    if (evaluationBudget == null || evaluationBudget.isNegative() || evaluationBudget.isZero()) {
      throw new IllegalArgumentException("evaluationBudget must be positive, e.g. 1s; got " + evaluationBudget);
    }
    if (maxActivationsPerEvent < 1) {
      throw new IllegalArgumentException("maxActivationsPerEvent must be at least 1, e.g. 1000; got "
          + maxActivationsPerEvent);
    }
  }

  /**
   * The settings before the evaluation bounds existed, with their defaults: kept so that callers that
   * do not set the bounds yet keep compiling.
   */
  public RuleSettings(int queueCapacity, int engineThreads, Duration eventExpiry, int maxEventsPerRule,
                      int actionConcurrency, int actionQueueCapacity, int executionHistorySize, int maxHops,
                      Duration webhookTimeout, int webhookMaxAttempts, Duration webhookInitialBackoff,
                      Duration webhookMaxBackoff) {
    this(queueCapacity, engineThreads, eventExpiry, maxEventsPerRule, actionConcurrency, actionQueueCapacity,
        executionHistorySize, maxHops, webhookTimeout, webhookMaxAttempts, webhookInitialBackoff, webhookMaxBackoff,
        DEFAULT_EVALUATION_BUDGET, DEFAULT_MAX_ACTIVATIONS_PER_EVENT);
  }

  /** The defaults, as documented in the README. */
  public static RuleSettings defaults() {
    return new RuleSettings(10_000, 2, Duration.ofMinutes(10), 100_000, 64, 10_000, 100, 8,
        Duration.ofSeconds(5), 4, Duration.ofMillis(200), Duration.ofSeconds(5), DEFAULT_EVALUATION_BUDGET,
        DEFAULT_MAX_ACTIVATIONS_PER_EVENT);
  }

  /** These settings with other evaluation bounds. */
  public RuleSettings withEvaluationBounds(Duration evaluationBudget, int maxActivationsPerEvent) {
    return new RuleSettings(queueCapacity, engineThreads, eventExpiry, maxEventsPerRule, actionConcurrency,
        actionQueueCapacity, executionHistorySize, maxHops, webhookTimeout, webhookMaxAttempts, webhookInitialBackoff,
        webhookMaxBackoff, evaluationBudget, maxActivationsPerEvent);
  }
}
