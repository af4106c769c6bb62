package io.activityservice.events.routing;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Micrometer meters of the router: events in per type, and routing latency (receipt until every matching
 * delivery was delivered or durably parked). Delivery meters are in
 * {@link io.activityservice.events.delivery.DeliveryMetrics}. Meters are cached, so the hot path does one map
 * lookup per count.
 *
 * <p>The {@code type} tag is bounded: it names registered types only and reports every other type as
 * {@value #OTHER}, so that publishers of random types cannot grow the metric without limit (types are
 * registered by administrators).
 */
public class RoutingMetrics {

  /** The {@code type} tag of events whose type is not registered. */
  public static final String OTHER = "other";

  private final MeterRegistry registry;
  private final Predicate<String> registered;
  private final Timer latency;
  private final Map<String, Counter> in = new ConcurrentHashMap<>();

  /**
   * @param registered whether a type is registered (e.g. {@code type -> registry.find(type).isPresent()});
   *                   others are counted under {@value #OTHER}
   */
  public RoutingMetrics(MeterRegistry registry, Predicate<String> registered) {
    this.registry = registry;
    this.registered = registered;
    this.latency = Timer.builder("activity.routing.latency")
        .description("Time from receipt of an event until every matching delivery was delivered or parked")
        .publishPercentileHistogram()
        .register(registry);
  }

  void received(String type) {
    String tag = type != null && registered.test(type) ? type : OTHER;
    Counter c = in.get(tag);
    (c != null ? c : in.computeIfAbsent(tag, v -> Counter.builder("activity.events.in")
        .description("Events received, by type").tag("type", v).register(registry))).increment();
  }

  void routed(long receivedAtNanos) {
    latency.record(System.nanoTime() - receivedAtNanos, TimeUnit.NANOSECONDS);
  }
}
