package io.activityservice.events.routing;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Micrometer meters of the router: events in per type, and routing latency (receipt until every matching
 * delivery was delivered or durably parked). Delivery meters are in
 * {@link io.activityservice.events.delivery.DeliveryMetrics}. Meters are cached, so the hot path does one map
 * lookup per count.
 */
public class RoutingMetrics {

  private final MeterRegistry registry;
  private final Timer latency;
  private final Map<String, Counter> in = new ConcurrentHashMap<>();

  public RoutingMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.latency = Timer.builder("activity.routing.latency")
        .description("Time from receipt of an event until every matching delivery was delivered or parked")
        .publishPercentileHistogram()
        .register(registry);
  }

  void received(String type) {
    Counter c = in.get(type);
    (c != null ? c : in.computeIfAbsent(type, v -> Counter.builder("activity.events.in")
        .description("Events received, by type").tag("type", v).register(registry))).increment();
  }

  void routed(long receivedAtNanos) {
    latency.record(System.nanoTime() - receivedAtNanos, TimeUnit.NANOSECONDS);
  }
}
