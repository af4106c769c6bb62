package io.activityservice.rules;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of the rule execution service (bound from {@code activity.rules.*} by the application).
 * Immutable; built with {@link #builder()}, whose every setting starts at the documented default
 * below, or from other settings with {@link #toBuilder()}. {@link Builder#build()} checks them and
 * says how to fix a bad one.
 *
 * <ul>
 *   <li>{@link #queueCapacity()} (default {@value #DEFAULT_QUEUE_CAPACITY}): events waiting per
 *       rule set; beyond it new events are dropped for that rule set and counted
 *   <li>{@link #engineThreads()} (default {@value #DEFAULT_ENGINE_THREADS}): threads evaluating
 *       rule sessions (each session runs on one thread at a time)
 *   <li>{@link #eventExpiry()} (default 10 minutes, {@link #DEFAULT_EVENT_EXPIRY}): how long after
 *       its {@code time} an event stays in a session at least (Drools {@code @expires}); windows
 *       and temporal operators that need longer keep events longer
 *   <li>{@link #maxEventsPerRule()} (default {@value #DEFAULT_MAX_EVENTS_PER_RULE}): hard bound on
 *       events held by one session; the oldest are retracted beyond it
 *   <li>{@link #actionConcurrency()} (default {@value #DEFAULT_ACTION_CONCURRENCY}): actions
 *       running at once (all rule sets)
 *   <li>{@link #actionQueueCapacity()} (default {@value #DEFAULT_ACTION_QUEUE_CAPACITY}): actions
 *       waiting for a slot; beyond it actions fail as rejected and are recorded
 *   <li>{@link #executionHistorySize()} (default {@value #DEFAULT_EXECUTION_HISTORY_SIZE}):
 *       executions remembered per rule set
 *   <li>{@link #maxHops()} (default {@value #DEFAULT_MAX_HOPS}): longest chain of rule-published
 *       events ({@code hopcount}); longer ones are dead-lettered
 *   <li>{@link #webhookTimeout()} (default 5 s, {@link #DEFAULT_WEBHOOK_TIMEOUT}): timeout of one
 *       webhook attempt
 *   <li>{@link #webhookMaxAttempts()} (default {@value #DEFAULT_WEBHOOK_MAX_ATTEMPTS}): webhook
 *       attempts before the action fails
 *   <li>{@link #webhookInitialBackoff()} (default 200 ms, {@link
 *       #DEFAULT_WEBHOOK_INITIAL_BACKOFF}): delay before the second attempt; doubles each attempt
 *   <li>{@link #webhookMaxBackoff()} (default 5 s, {@link #DEFAULT_WEBHOOK_MAX_BACKOFF}): longest
 *       delay between attempts
 *   <li>{@link #evaluationBudget()} (default 1 s, {@link #DEFAULT_EVALUATION_BUDGET}): time one
 *       event's evaluation (insert and fire) may take: no further rule fires after it (the first
 *       firing always runs), the remaining matches of that event are dropped and the breach is
 *       counted ({@code activity.rules.budget.exceeded{bound=time}})
 *   <li>{@link #maxActivationsPerEvent()} (default {@value #DEFAULT_MAX_ACTIVATIONS_PER_EVENT}):
 *       rule firings one event may cause in a rule set; beyond it the remaining matches are dropped
 *       and the breach is counted ({@code activity.rules.budget.exceeded{bound=activations}})
 * </ul>
 */
public final class RuleSettings {

  /** Default of {@link #queueCapacity()}. */
  public static final int DEFAULT_QUEUE_CAPACITY = 10_000;

  /** Default of {@link #engineThreads()}. */
  public static final int DEFAULT_ENGINE_THREADS = 2;

  /** Default of {@link #eventExpiry()}. */
  public static final Duration DEFAULT_EVENT_EXPIRY = Duration.ofMinutes(10);

  /**
   * Default of {@link #maxEventsPerRule()}: the one default (the application's property and the
   * README say it).
   */
  public static final int DEFAULT_MAX_EVENTS_PER_RULE = 50_000;

  /** Default of {@link #actionConcurrency()}. */
  public static final int DEFAULT_ACTION_CONCURRENCY = 64;

  /** Default of {@link #actionQueueCapacity()}. */
  public static final int DEFAULT_ACTION_QUEUE_CAPACITY = 10_000;

  /** Default of {@link #executionHistorySize()}. */
  public static final int DEFAULT_EXECUTION_HISTORY_SIZE = 100;

  /** Default of {@link #maxHops()}. */
  public static final int DEFAULT_MAX_HOPS = 8;

  /** Default of {@link #webhookTimeout()}. */
  public static final Duration DEFAULT_WEBHOOK_TIMEOUT = Duration.ofSeconds(5);

  /** Default of {@link #webhookMaxAttempts()}. */
  public static final int DEFAULT_WEBHOOK_MAX_ATTEMPTS = 4;

  /** Default of {@link #webhookInitialBackoff()}. */
  public static final Duration DEFAULT_WEBHOOK_INITIAL_BACKOFF = Duration.ofMillis(200);

  /** Default of {@link #webhookMaxBackoff()}. */
  public static final Duration DEFAULT_WEBHOOK_MAX_BACKOFF = Duration.ofSeconds(5);

  /** Default of {@link #evaluationBudget()}. */
  public static final Duration DEFAULT_EVALUATION_BUDGET = Duration.ofSeconds(1);

  /** Default of {@link #maxActivationsPerEvent()}. */
  public static final int DEFAULT_MAX_ACTIVATIONS_PER_EVENT = 1_000;

  private final int queueCapacity;
  private final int engineThreads;
  private final Duration eventExpiry;
  private final int maxEventsPerRule;
  private final int actionConcurrency;
  private final int actionQueueCapacity;
  private final int executionHistorySize;
  private final int maxHops;
  private final Duration webhookTimeout;
  private final int webhookMaxAttempts;
  private final Duration webhookInitialBackoff;
  private final Duration webhookMaxBackoff;
  private final Duration evaluationBudget;
  private final int maxActivationsPerEvent;

  private RuleSettings(Builder b) {
    this.queueCapacity = atLeastOne(b.queueCapacity, "queueCapacity", "10000");
    this.engineThreads = atLeastOne(b.engineThreads, "engineThreads", "2");
    this.eventExpiry = positive(b.eventExpiry, "eventExpiry", "10m");
    this.maxEventsPerRule = atLeastOne(b.maxEventsPerRule, "maxEventsPerRule", "50000");
    this.actionConcurrency = atLeastOne(b.actionConcurrency, "actionConcurrency", "64");
    this.actionQueueCapacity = atLeastOne(b.actionQueueCapacity, "actionQueueCapacity", "10000");
    this.executionHistorySize = atLeastOne(b.executionHistorySize, "executionHistorySize", "100");
    this.maxHops = atLeastOne(b.maxHops, "maxHops", "8");
    this.webhookTimeout = positive(b.webhookTimeout, "webhookTimeout", "5s");
    this.webhookMaxAttempts = atLeastOne(b.webhookMaxAttempts, "webhookMaxAttempts", "4");
    this.webhookInitialBackoff =
        Objects.requireNonNull(b.webhookInitialBackoff, "webhookInitialBackoff");
    this.webhookMaxBackoff = Objects.requireNonNull(b.webhookMaxBackoff, "webhookMaxBackoff");
    if (webhookInitialBackoff.isNegative()
        || webhookMaxBackoff.compareTo(webhookInitialBackoff) < 0) {
      throw new IllegalArgumentException(
          "webhookInitialBackoff must be >= 0 and <= webhookMaxBackoff, e.g. 200ms "
              + "and 5s; got "
              + webhookInitialBackoff
              + " and "
              + webhookMaxBackoff);
    }
    this.evaluationBudget = positive(b.evaluationBudget, "evaluationBudget", "1s");
    this.maxActivationsPerEvent =
        atLeastOne(b.maxActivationsPerEvent, "maxActivationsPerEvent", "1000");
  }

  /** A builder whose settings start at the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** The defaults, as documented above and in the module README. */
  public static RuleSettings defaults() {
    return builder().build();
  }

  /** A builder that starts from these settings. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** These settings with other evaluation bounds. */
  public RuleSettings withEvaluationBounds(Duration evaluationBudget, int maxActivationsPerEvent) {
    return toBuilder()
        .evaluationBudget(evaluationBudget)
        .maxActivationsPerEvent(maxActivationsPerEvent)
        .build();
  }

  public int queueCapacity() {
    return queueCapacity;
  }

  public int engineThreads() {
    return engineThreads;
  }

  public Duration eventExpiry() {
    return eventExpiry;
  }

  public int maxEventsPerRule() {
    return maxEventsPerRule;
  }

  public int actionConcurrency() {
    return actionConcurrency;
  }

  public int actionQueueCapacity() {
    return actionQueueCapacity;
  }

  public int executionHistorySize() {
    return executionHistorySize;
  }

  public int maxHops() {
    return maxHops;
  }

  public Duration webhookTimeout() {
    return webhookTimeout;
  }

  public int webhookMaxAttempts() {
    return webhookMaxAttempts;
  }

  public Duration webhookInitialBackoff() {
    return webhookInitialBackoff;
  }

  public Duration webhookMaxBackoff() {
    return webhookMaxBackoff;
  }

  public Duration evaluationBudget() {
    return evaluationBudget;
  }

  public int maxActivationsPerEvent() {
    return maxActivationsPerEvent;
  }

  @Override
  public String toString() {
    return "RuleSettings[queueCapacity="
        + queueCapacity
        + ", engineThreads="
        + engineThreads
        + ", eventExpiry="
        + eventExpiry
        + ", maxEventsPerRule="
        + maxEventsPerRule
        + ", actionConcurrency="
        + actionConcurrency
        + ", actionQueueCapacity="
        + actionQueueCapacity
        + ", executionHistorySize="
        + executionHistorySize
        + ", maxHops="
        + maxHops
        + ", webhookTimeout="
        + webhookTimeout
        + ", webhookMaxAttempts="
        + webhookMaxAttempts
        + ", webhookInitialBackoff="
        + webhookInitialBackoff
        + ", webhookMaxBackoff="
        + webhookMaxBackoff
        + ", evaluationBudget="
        + evaluationBudget
        + ", maxActivationsPerEvent="
        + maxActivationsPerEvent
        + "]";
  }

  private static int atLeastOne(int value, String name, String example) {
    if (value < 1) {
      throw new IllegalArgumentException(
          name + " must be at least 1, e.g. " + example + "; got " + value);
    }
    return value;
  }

  private static Duration positive(Duration value, String name, String example) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(
          name + " must be positive, e.g. " + example + "; got " + value);
    }
    return value;
  }

  /** Builds {@link RuleSettings}; every setting starts at its default. Not thread-safe. */
  public static final class Builder {

    private int queueCapacity = DEFAULT_QUEUE_CAPACITY;
    private int engineThreads = DEFAULT_ENGINE_THREADS;
    private Duration eventExpiry = DEFAULT_EVENT_EXPIRY;
    private int maxEventsPerRule = DEFAULT_MAX_EVENTS_PER_RULE;
    private int actionConcurrency = DEFAULT_ACTION_CONCURRENCY;
    private int actionQueueCapacity = DEFAULT_ACTION_QUEUE_CAPACITY;
    private int executionHistorySize = DEFAULT_EXECUTION_HISTORY_SIZE;
    private int maxHops = DEFAULT_MAX_HOPS;
    private Duration webhookTimeout = DEFAULT_WEBHOOK_TIMEOUT;
    private int webhookMaxAttempts = DEFAULT_WEBHOOK_MAX_ATTEMPTS;
    private Duration webhookInitialBackoff = DEFAULT_WEBHOOK_INITIAL_BACKOFF;
    private Duration webhookMaxBackoff = DEFAULT_WEBHOOK_MAX_BACKOFF;
    private Duration evaluationBudget = DEFAULT_EVALUATION_BUDGET;
    private int maxActivationsPerEvent = DEFAULT_MAX_ACTIVATIONS_PER_EVENT;

    private Builder() {}

    private Builder(RuleSettings s) {
      queueCapacity = s.queueCapacity;
      engineThreads = s.engineThreads;
      eventExpiry = s.eventExpiry;
      maxEventsPerRule = s.maxEventsPerRule;
      actionConcurrency = s.actionConcurrency;
      actionQueueCapacity = s.actionQueueCapacity;
      executionHistorySize = s.executionHistorySize;
      maxHops = s.maxHops;
      webhookTimeout = s.webhookTimeout;
      webhookMaxAttempts = s.webhookMaxAttempts;
      webhookInitialBackoff = s.webhookInitialBackoff;
      webhookMaxBackoff = s.webhookMaxBackoff;
      evaluationBudget = s.evaluationBudget;
      maxActivationsPerEvent = s.maxActivationsPerEvent;
    }

    public Builder queueCapacity(int queueCapacity) {
      this.queueCapacity = queueCapacity;
      return this;
    }

    public Builder engineThreads(int engineThreads) {
      this.engineThreads = engineThreads;
      return this;
    }

    public Builder eventExpiry(Duration eventExpiry) {
      this.eventExpiry = eventExpiry;
      return this;
    }

    public Builder maxEventsPerRule(int maxEventsPerRule) {
      this.maxEventsPerRule = maxEventsPerRule;
      return this;
    }

    public Builder actionConcurrency(int actionConcurrency) {
      this.actionConcurrency = actionConcurrency;
      return this;
    }

    public Builder actionQueueCapacity(int actionQueueCapacity) {
      this.actionQueueCapacity = actionQueueCapacity;
      return this;
    }

    public Builder executionHistorySize(int executionHistorySize) {
      this.executionHistorySize = executionHistorySize;
      return this;
    }

    public Builder maxHops(int maxHops) {
      this.maxHops = maxHops;
      return this;
    }

    public Builder webhookTimeout(Duration webhookTimeout) {
      this.webhookTimeout = webhookTimeout;
      return this;
    }

    public Builder webhookMaxAttempts(int webhookMaxAttempts) {
      this.webhookMaxAttempts = webhookMaxAttempts;
      return this;
    }

    public Builder webhookInitialBackoff(Duration webhookInitialBackoff) {
      this.webhookInitialBackoff = webhookInitialBackoff;
      return this;
    }

    public Builder webhookMaxBackoff(Duration webhookMaxBackoff) {
      this.webhookMaxBackoff = webhookMaxBackoff;
      return this;
    }

    public Builder evaluationBudget(Duration evaluationBudget) {
      this.evaluationBudget = evaluationBudget;
      return this;
    }

    public Builder maxActivationsPerEvent(int maxActivationsPerEvent) {
      this.maxActivationsPerEvent = maxActivationsPerEvent;
      return this;
    }

    /**
     * The settings.
     *
     * @throws IllegalArgumentException naming the first setting out of range, with an example of a
     *     valid value
     */
    public RuleSettings build() {
      return new RuleSettings(this);
    }
  }
}
