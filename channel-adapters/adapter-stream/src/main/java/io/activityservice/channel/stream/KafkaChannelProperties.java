package io.activityservice.channel.stream;

import io.activityservice.channel.RedeliverySettings;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the {@code kafka:<topic>} channels ({@code activity.channels.kafka.*}). The brokers
 * and client settings are Spring Cloud Stream's ({@code spring.cloud.stream.kafka.binder.*}).
 *
 * @param enabled          registers the adapter; by default it is registered only when
 *                         {@code spring.cloud.stream.kafka.binder.brokers} is set, so an
 *                         application without Kafka starts without it
 * @param binder           name of the Spring Cloud Stream binder to bind through: a binder type
 *                         ({@code kafka}) or a configuration under
 *                         {@code spring.cloud.stream.binders.<name>}; default: the application's
 *                         default binder
 * @param group            consumer group of inbound channels, so that replicas of the service share
 *                         a topic's partitions (default {@code activity-service}); a channel may
 *                         override it with the inbound setting {@code group}
 * @param sendTimeout      time for Kafka to acknowledge a send before its future fails (default 30s)
 * @param maxInFlight      sends accepted but not yet acknowledged by Kafka, over all outbound
 *                         channels; beyond it {@code send} fails at once (default 10000)
 * @param sendThreads      threads that hand records to the binder and wait for Kafka's
 *                         acknowledgement (default 8)
 * @param maxUnacknowledged events of one inbound channel handed to the handler and not yet settled;
 *                         beyond it the channel's consumer waits (default 1000)
 * @param redeliveryDelay  deprecated old name of {@code redelivery.initial}; used only when no
 *                         {@code redelivery.*} is set
 * @param redelivery       backoff of a nacked event before it is handed to the handler again
 *                         (default 1s doubling up to 60s, full jitter; see {@link RedeliverySettings})
 */
@ConfigurationProperties("activity.channels.kafka")
public record KafkaChannelProperties(
    Boolean enabled,
    String binder,
    String group,
    Duration sendTimeout,
    Integer maxInFlight,
    Integer sendThreads,
    Integer maxUnacknowledged,
    Duration redeliveryDelay,
    RedeliverySettings redelivery) {

  private static final String P = "activity.channels.kafka.";

  public KafkaChannelProperties {
    binder = binder == null || binder.isBlank() ? null : binder.trim();
    group = group == null ? "activity-service" : group.trim();
    sendTimeout = sendTimeout == null ? Duration.ofSeconds(30) : sendTimeout;
    maxInFlight = maxInFlight == null ? 10_000 : maxInFlight;
    sendThreads = sendThreads == null ? 8 : sendThreads;
    maxUnacknowledged = maxUnacknowledged == null ? 1000 : maxUnacknowledged;
    if (group.isEmpty()) {
      throw new IllegalArgumentException(P + "group must not be blank; remove it to use 'activity-service'");
    }
    if (sendTimeout.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException(P + "send-timeout must be at least 1s, e.g. 30s; was " + sendTimeout);
    }
    if (redeliveryDelay != null && (redeliveryDelay.isNegative() || redeliveryDelay.isZero())) {
      throw new IllegalArgumentException(P + "redelivery-delay (deprecated: use redelivery.initial) must be"
          + " positive, e.g. 1s");
    }
    redelivery = redelivery != null ? redelivery : new RedeliverySettings(redeliveryDelay, null, null);
    if (sendThreads < 1 || maxInFlight < sendThreads) {
      throw new IllegalArgumentException(P + "send-threads must be >= 1 and max-in-flight >= send-threads"
          + ", e.g. send-threads=8, max-in-flight=10000; were " + sendThreads + " and " + maxInFlight);
    }
    if (maxUnacknowledged < 1) {
      throw new IllegalArgumentException(P + "max-unacknowledged must be >= 1, e.g. 1000");
    }
  }

  /** All defaults (the adapter's settings when constructed outside Spring Boot). */
  public static KafkaChannelProperties defaults() {
    return new KafkaChannelProperties(null, null, null, null, null, null, null, null, null);
  }
}
