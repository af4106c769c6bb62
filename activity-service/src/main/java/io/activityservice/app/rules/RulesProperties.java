package io.activityservice.app.rules;

import io.activityservice.rules.RuleSettings;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the rule execution service ({@code activity.rules.*}); omitted values take the defaults.
 *
 * @param queueCapacity         events waiting per rule set before new ones are dropped for it (default 10000)
 * @param engineThreads         threads evaluating rule sessions (default 2)
 * @param eventExpiry           how long after its time an event stays in a session at least (default 10m)
 * @param maxEventsPerRule      hard bound on events one session holds; the oldest are retracted (default 50000)
 * @param actionConcurrency     actions in flight at once, including retries (default 64)
 * @param actionQueueCapacity   actions waiting for a slot before they fail as rejected (default 10000)
 * @param executionHistorySize  executions kept per rule set for {@code /executions} (default 100)
 * @param maxHops               longest chain of rule-emitted events ({@code hopcount}) before dead-lettering (default 8)
 * @param webhook               webhook action settings
 * @param evaluationBudget      time one event's evaluation in a rule set may take before its remaining matches are
 *                              dropped and the breach is counted (default 1s)
 * @param maxActivationsPerEvent rule firings one event may cause in a rule set (default 1000)
 */
@ConfigurationProperties("activity.rules")
public record RulesProperties(Integer queueCapacity, Integer engineThreads, Duration eventExpiry,
                              Integer maxEventsPerRule, Integer actionConcurrency, Integer actionQueueCapacity,
                              Integer executionHistorySize, Integer maxHops, Webhook webhook,
                              Duration evaluationBudget, Integer maxActivationsPerEvent) {

  public RulesProperties {
    queueCapacity = positive(queueCapacity, 10_000, "queue-capacity", "10000");
    engineThreads = positive(engineThreads, 2, "engine-threads", "2");
    eventExpiry = eventExpiry == null ? Duration.ofMinutes(10) : eventExpiry;
    maxEventsPerRule = positive(maxEventsPerRule, 50_000, "max-events-per-rule", "50000");
    actionConcurrency = positive(actionConcurrency, 64, "action-concurrency", "64");
    actionQueueCapacity = positive(actionQueueCapacity, 10_000, "action-queue-capacity", "10000");
    executionHistorySize = positive(executionHistorySize, 100, "execution-history-size", "100");
    maxHops = positive(maxHops, 8, "max-hops", "8");
    webhook = webhook == null ? new Webhook(null, null, null, null) : webhook;
    evaluationBudget = evaluationBudget == null ? RuleSettings.DEFAULT_EVALUATION_BUDGET : evaluationBudget;
    maxActivationsPerEvent = positive(maxActivationsPerEvent, RuleSettings.DEFAULT_MAX_ACTIVATIONS_PER_EVENT,
        "max-activations-per-event", "1000");
    if (evaluationBudget.isNegative() || evaluationBudget.isZero()) {
      throw new IllegalArgumentException("activity.rules.evaluation-budget must be positive, e.g. 1s");
    }
    if (eventExpiry.isNegative() || eventExpiry.isZero()) {
      throw new IllegalArgumentException("activity.rules.event-expiry must be positive, e.g. 10m");
    }
  }

  /**
   * @param timeout        timeout of one attempt (default 5s)
   * @param maxAttempts    attempts before the action fails (default 4)
   * @param initialBackoff delay before the second attempt, doubling each time (default 200ms)
   * @param maxBackoff     longest delay between attempts (default 5s)
   */
  public record Webhook(Duration timeout, Integer maxAttempts, Duration initialBackoff, Duration maxBackoff) {
    public Webhook {
      timeout = timeout == null ? Duration.ofSeconds(5) : timeout;
      maxAttempts = positive(maxAttempts, 4, "webhook.max-attempts", "4");
      initialBackoff = initialBackoff == null ? Duration.ofMillis(200) : initialBackoff;
      maxBackoff = maxBackoff == null ? Duration.ofSeconds(5) : maxBackoff;
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("activity.rules.webhook.timeout must be positive, e.g. 5s");
      }
      if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0) {
        throw new IllegalArgumentException("activity.rules.webhook.initial-backoff must be >= 0 and <= "
            + "activity.rules.webhook.max-backoff, e.g. 200ms and 5s");
      }
    }
  }

  /** The module's settings. */
  public RuleSettings toSettings() {
    return RuleSettings.builder().queueCapacity(queueCapacity).engineThreads(engineThreads).eventExpiry(eventExpiry)
        .maxEventsPerRule(maxEventsPerRule).actionConcurrency(actionConcurrency).actionQueueCapacity(actionQueueCapacity)
        .executionHistorySize(executionHistorySize).maxHops(maxHops).webhookTimeout(webhook.timeout())
        .webhookMaxAttempts(webhook.maxAttempts()).webhookInitialBackoff(webhook.initialBackoff())
        .webhookMaxBackoff(webhook.maxBackoff()).evaluationBudget(evaluationBudget)
        .maxActivationsPerEvent(maxActivationsPerEvent).build();
  }

  private static int positive(Integer value, int fallback, String name, String example) {
    if (value == null) {
      return fallback;
    }
    if (value <= 0) {
      throw new IllegalArgumentException("activity.rules." + name + " must be at least 1, e.g. " + example
          + "; got " + value);
    }
    return value;
  }
}
