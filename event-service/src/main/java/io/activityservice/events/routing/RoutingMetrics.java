package io.activityservice.events.routing;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Micrometer meters of the router: events in per type, deliveries out/failed per target channel,
 * and routing latency (receipt to last delivery settled). Meters are cached, so the hot path does
 * one map lookup per count.
 */
public class RoutingMetrics {

  private final MeterRegistry registry;
  private final Timer latency;
  private final Map<String, Counter> in = new ConcurrentHashMap<>();
  private final Map<String, Counter> out = new ConcurrentHashMap<>();
  private final Map<String, Counter> failed = new ConcurrentHashMap<>();
  private final Map<String, Counter> dead = new ConcurrentHashMap<>();

  public RoutingMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.latency = Timer.builder("activity.routing.latency")
        .description("Time from receipt of an event to the last of its deliveries settled")
        .publishPercentileHistogram()
        .register(registry);
  }

  void received(String type) {
    counter(in, "activity.events.in", "type", type, "Events received, by type").increment();
  }

  void delivered(String channel) {
    counter(out, "activity.events.out", "channel", channel, "Deliveries accepted by the target channel").increment();
  }

  void failedAttempt(String channel) {
    counter(failed, "activity.events.failed", "channel", channel, "Failed delivery attempts (retried or dead-lettered)").increment();
  }

  void deadLettered(String channel) {
    counter(dead, "activity.events.deadlettered", "channel", channel, "Deliveries given up and dead-lettered").increment();
  }

  void routed(long receivedAtNanos) {
    latency.record(System.nanoTime() - receivedAtNanos, TimeUnit.NANOSECONDS);
  }

  private Counter counter(Map<String, Counter> cache, String name, String tag, String value, String help) {
    Counter c = cache.get(value);
    return c != null ? c : cache.computeIfAbsent(value,
        v -> Counter.builder(name).description(help).tag(tag, v).register(registry));
  }
}
