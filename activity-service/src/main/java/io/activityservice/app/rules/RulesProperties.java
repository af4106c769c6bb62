package io.activityservice.app.rules;

import io.activityservice.rules.RuleSettings;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the rule execution service ({@code activity.rules.*}); counts must be at least 1 and
 * times positive.
 *
 * @param queueCapacity events waiting per rule set before new ones are dropped for it
 * @param engineThreads threads evaluating rule sessions
 * @param eventExpiry how long after its time an event stays in a session at least
 * @param maxEventsPerRule hard bound on events one session holds; the oldest are retracted
 * @param actionConcurrency actions in flight at once, including retries
 * @param actionQueueCapacity actions waiting for a slot before they fail as rejected
 * @param executionHistorySize executions kept per rule set for {@code /executions}
 * @param maxHops longest chain of rule-emitted events ({@code hopcount}) before dead-lettering
 * @param webhook webhook action settings
 * @param evaluationBudget time one event's evaluation in a rule set may take before its remaining
 *     matches are dropped and the breach is counted
 * @param maxActivationsPerEvent rule firings one event may cause in a rule set
 */
@ConfigurationProperties("activity.rules")
public record RulesProperties(
    @DefaultValue("10000") Integer queueCapacity,
    @DefaultValue("2") Integer engineThreads,
    @DefaultValue("10m") Duration eventExpiry,
    @DefaultValue("50000") Integer maxEventsPerRule,
    @DefaultValue("64") Integer actionConcurrency,
    @DefaultValue("10000") Integer actionQueueCapacity,
    @DefaultValue("100") Integer executionHistorySize,
    @DefaultValue("8") Integer maxHops,
    @DefaultValue Webhook webhook,
    @DefaultValue("1s") Duration evaluationBudget,
    @DefaultValue("" + RuleSettings.DEFAULT_MAX_ACTIVATIONS_PER_EVENT)
        Integer maxActivationsPerEvent) {

  public RulesProperties {
    positive(queueCapacity, "queue-capacity", "10000");
    positive(engineThreads, "engine-threads", "2");
    positive(maxEventsPerRule, "max-events-per-rule", "50000");
    positive(actionConcurrency, "action-concurrency", "64");
    positive(actionQueueCapacity, "action-queue-capacity", "10000");
    positive(executionHistorySize, "execution-history-size", "100");
    positive(maxHops, "max-hops", "8");
    positive(maxActivationsPerEvent, "max-activations-per-event", "1000");
    if (evaluationBudget.isNegative() || evaluationBudget.isZero()) {
      throw new IllegalArgumentException(
          "activity.rules.evaluation-budget must be positive, e.g. 1s");
    }
    if (eventExpiry.isNegative() || eventExpiry.isZero()) {
      throw new IllegalArgumentException("activity.rules.event-expiry must be positive, e.g. 10m");
    }
  }

  /**
   * @param timeout timeout of one attempt
   * @param maxAttempts attempts before the action fails
   * @param initialBackoff delay before the second attempt, doubling each time
   * @param maxBackoff longest delay between attempts
   */
  public record Webhook(
      @DefaultValue("5s") Duration timeout,
      @DefaultValue("4") Integer maxAttempts,
      @DefaultValue("200ms") Duration initialBackoff,
      @DefaultValue("5s") Duration maxBackoff) {
    public Webhook {
      positive(maxAttempts, "webhook.max-attempts", "4");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException(
            "activity.rules.webhook.timeout must be positive, e.g. 5s");
      }
      if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0) {
        throw new IllegalArgumentException(
            "activity.rules.webhook.initial-backoff must be >= 0 and <= "
                + "activity.rules.webhook.max-backoff, e.g. 200ms and 5s");
      }
    }
  }

  /** The module's settings. */
  public RuleSettings toSettings() {
    return RuleSettings.builder()
        .queueCapacity(queueCapacity)
        .engineThreads(engineThreads)
        .eventExpiry(eventExpiry)
        .maxEventsPerRule(maxEventsPerRule)
        .actionConcurrency(actionConcurrency)
        .actionQueueCapacity(actionQueueCapacity)
        .executionHistorySize(executionHistorySize)
        .maxHops(maxHops)
        .webhookTimeout(webhook.timeout())
        .webhookMaxAttempts(webhook.maxAttempts())
        .webhookInitialBackoff(webhook.initialBackoff())
        .webhookMaxBackoff(webhook.maxBackoff())
        .evaluationBudget(evaluationBudget)
        .maxActivationsPerEvent(maxActivationsPerEvent)
        .build();
  }

  private static void positive(int value, String name, String example) {
    if (value <= 0) {
      throw new IllegalArgumentException(
          "activity.rules." + name + " must be at least 1, e.g. " + example + "; got " + value);
    }
  }
}
