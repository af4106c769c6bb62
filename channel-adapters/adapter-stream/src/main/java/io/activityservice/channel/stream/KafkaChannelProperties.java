package io.activityservice.channel.stream;

import io.activityservice.channel.RedeliverySettings;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the {@code kafka:<topic>} channels ({@code activity.channels.kafka.*}). The brokers
 * and client settings are Spring Cloud Stream's ({@code spring.cloud.stream.kafka.binder.*}).
 *
 * @param enabled registers the adapter; by default it is registered only when {@code
 *     spring.cloud.stream.kafka.binder.brokers} is set, so an application without Kafka starts
 *     without it
 * @param binder name of the Spring Cloud Stream binder to bind through: a binder type ({@code
 *     kafka}) or a configuration under {@code spring.cloud.stream.binders.<name>}; default: the
 *     application's default binder
 * @param group consumer group of inbound channels, so that replicas of the service share a topic's
 *     partitions; a channel may override it with the inbound setting {@code group}
 * @param sendTimeout time for Kafka to acknowledge a send before its future fails (at least 1s; the
 *     producer's {@code delivery.timeout.ms} and {@code max.block.ms}, and half of it {@code
 *     request.timeout.ms}, unless the binding's {@code configuration} sets them)
 * @param maxInFlight sends accepted but not yet acknowledged by Kafka, over all outbound channels;
 *     beyond it {@code send} fails at once
 * @param sendThreads send lanes: threads that bind outbound channels and hand their records to the
 *     producer, each channel on one lane in send order; they never wait for Kafka's acknowledgement
 * @param maxUnacknowledged events of one inbound channel handed to the handler and not yet settled;
 *     beyond it the channel's consumer waits
 * @param redeliveryDelay deprecated old name of {@code redelivery.initial}; used only when no
 *     {@code redelivery.*} is set
 * @param redelivery backoff of a nacked event before it is handed to the handler again (default 1s
 *     doubling up to 60s, full jitter; see {@link RedeliverySettings})
 * @param handoff when a send lane hands records to the producer: {@code adaptive} (the {@link
 *     io.activityservice.channel.batching.AdaptiveBatchPolicy}: at once at low load, grouped for up
 *     to {@code handoff-linger} under load) or {@code immediate}
 * @param handoffLinger longest time the adaptive hand-off holds a record (at most 1s)
 * @param commitInterval inbound: how long an acknowledged offset may wait before it is committed,
 *     so that commits go in batches (0 commits every acknowledged prefix at once). A crash
 *     redelivers at most what was acknowledged in that window
 */
@ConfigurationProperties("activity.channels.kafka")
public record KafkaChannelProperties(
    Boolean enabled,
    String binder,
    @DefaultValue("activity-service") String group,
    @DefaultValue("30s") Duration sendTimeout,
    @DefaultValue("10000") Integer maxInFlight,
    @DefaultValue("2") Integer sendThreads,
    @DefaultValue("1000") Integer maxUnacknowledged,
    Duration redeliveryDelay,
    @NestedConfigurationProperty RedeliverySettings redelivery,
    @DefaultValue("adaptive") String handoff,
    @DefaultValue("5ms") Duration handoffLinger,
    @DefaultValue("100ms") Duration commitInterval) {

  private static final String P = "activity.channels.kafka.";

  @ConstructorBinding
  public KafkaChannelProperties {
    binder = binder == null || binder.isBlank() ? null : binder.trim();
    group = group == null ? "activity-service" : group.trim();
    sendTimeout = sendTimeout == null ? Duration.ofSeconds(30) : sendTimeout;
    maxInFlight = maxInFlight == null ? 10_000 : maxInFlight;
    sendThreads = sendThreads == null ? 2 : sendThreads;
    handoff =
        handoff == null || handoff.isBlank()
            ? "adaptive"
            : handoff.trim().toLowerCase(java.util.Locale.ROOT);
    handoffLinger = handoffLinger == null ? Duration.ofMillis(5) : handoffLinger;
    commitInterval = commitInterval == null ? Duration.ofMillis(100) : commitInterval;
    if (!handoff.equals("adaptive") && !handoff.equals("immediate")) {
      throw new IllegalArgumentException(
          P + "handoff must be adaptive or immediate; was " + handoff);
    }
    if (handoffLinger.isNegative() || handoffLinger.compareTo(Duration.ofSeconds(1)) > 0) {
      throw new IllegalArgumentException(
          P + "handoff-linger must be between 0 and 1s, e.g. 5ms; was " + handoffLinger);
    }
    if (commitInterval.isNegative() || commitInterval.compareTo(Duration.ofSeconds(10)) > 0) {
      throw new IllegalArgumentException(
          P + "commit-interval must be between 0 and 10s, e.g. 100ms; was " + commitInterval);
    }
    maxUnacknowledged = maxUnacknowledged == null ? 1000 : maxUnacknowledged;
    if (group.isEmpty()) {
      throw new IllegalArgumentException(
          P + "group must not be blank; remove it to use 'activity-service'");
    }
    if (sendTimeout.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException(
          P + "send-timeout must be at least 1s, e.g. 30s; was " + sendTimeout);
    }
    if (redeliveryDelay != null && (redeliveryDelay.isNegative() || redeliveryDelay.isZero())) {
      throw new IllegalArgumentException(
          P
              + "redelivery-delay (deprecated: use redelivery.initial) must be"
              + " positive, e.g. 1s");
    }
    redelivery =
        redelivery != null ? redelivery : new RedeliverySettings(redeliveryDelay, null, null);
    if (sendThreads < 1 || maxInFlight < sendThreads) {
      throw new IllegalArgumentException(
          P
              + "send-threads must be >= 1 and max-in-flight >= send-threads"
              + ", e.g. send-threads=8, max-in-flight=10000; were "
              + sendThreads
              + " and "
              + maxInFlight);
    }
    if (maxUnacknowledged < 1) {
      throw new IllegalArgumentException(P + "max-unacknowledged must be >= 1, e.g. 1000");
    }
  }

  /** The constructor of the earlier version (without hand-off and commit settings). */
  public KafkaChannelProperties(
      Boolean enabled,
      String binder,
      String group,
      Duration sendTimeout,
      Integer maxInFlight,
      Integer sendThreads,
      Integer maxUnacknowledged,
      Duration redeliveryDelay,
      RedeliverySettings redelivery) {
    this(
        enabled,
        binder,
        group,
        sendTimeout,
        maxInFlight,
        sendThreads,
        maxUnacknowledged,
        redeliveryDelay,
        redelivery,
        null,
        null,
        null);
  }

  /** All defaults (the adapter's settings when constructed outside Spring Boot). */
  public static KafkaChannelProperties defaults() {
    return new KafkaChannelProperties(
        null, null, null, null, null, null, null, null, null, null, null, null);
  }

  /** Whether send lanes hand records over adaptively ({@code handoff=adaptive}). */
  public boolean adaptiveHandoff() {
    return "adaptive".equals(handoff);
  }
}
