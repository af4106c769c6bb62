package io.activityservice.app.cep;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of complex event detectors ({@code activity.detectors.*}).
 *
 * @param queueCapacity bound of each detector thread's queue of events (default 10000); when full, events are
 *                      dropped for detectors (never for subscriptions) and counted in {@code activity.detectors.dropped}
 * @param threads       detector engine threads; each detector runs on one of them (default 1)
 * @param maxHopCount   derived events whose hop count exceeds this are dead-lettered, breaking detector loops (default 8)
 * @param tick          how often processing-time detector clocks advance: their timer resolution (default 100ms)
 */
@ConfigurationProperties("activity.detectors")
public record DetectorProperties(Integer queueCapacity, Integer threads, Integer maxHopCount, Duration tick) {

  public DetectorProperties {
    queueCapacity = queueCapacity == null ? 10_000 : queueCapacity;
    threads = threads == null ? 1 : threads;
    maxHopCount = maxHopCount == null ? 8 : maxHopCount;
    tick = tick == null ? Duration.ofMillis(100) : tick;
    if (queueCapacity < 1) {
      throw new IllegalArgumentException("activity.detectors.queue-capacity must be at least 1, e.g. 10000");
    }
    if (threads < 1 || threads > 64) {
      throw new IllegalArgumentException("activity.detectors.threads must be between 1 and 64, e.g. 1");
    }
    if (maxHopCount < 1) {
      throw new IllegalArgumentException("activity.detectors.max-hop-count must be at least 1, e.g. 8");
    }
    if (tick.toMillis() < 1 || tick.compareTo(Duration.ofSeconds(10)) > 0) {
      throw new IllegalArgumentException("activity.detectors.tick must be between 1ms and 10s, e.g. 100ms");
    }
  }
}
