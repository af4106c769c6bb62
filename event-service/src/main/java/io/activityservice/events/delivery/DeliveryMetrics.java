package io.activityservice.events.delivery;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.Redaction;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Micrometer meters of delivery. Per target channel (tag {@code channel}, the URI without
 * credentials or query): deliveries accepted, failed attempts, deliveries given up. Per
 * subscription (tag {@code subscription}, its id): parked, pending (a gauge refreshed from the
 * store), redriven, dead-lettered, evicted by {@code retry.maxPending}. Tag values are bounded:
 * past {@code maxTagValues} distinct values a meter family reports {@code other}.
 *
 * <p>The outbound per-hop timers, beside the delivery spans of the {@link
 * io.activityservice.events.tracing.EventTracing} seam (tag {@code channel}: the target's scheme,
 * bounded by the installed adapters): {@value #HOP_SEND} (send until the target acknowledged, each
 * accepted attempt) and {@value #HOP_PARKED} (parked until a retry from the store delivered it).
 */
public class DeliveryMetrics {

  static final String OTHER = "other";

  /** Time from handing an event to the target channel until it acknowledged. */
  public static final String HOP_SEND = "activity.hop.send";

  /** Time a delivery spent parked in the durable store until a retry delivered it. */
  public static final String HOP_PARKED = "activity.hop.parked";

  private final Map<String, Timer> send = new ConcurrentHashMap<>();
  private final Map<String, Timer> parkedTime = new ConcurrentHashMap<>();

  private final MeterRegistry registry;
  private final int maxTagValues;
  private final Map<String, Counter> out = new ConcurrentHashMap<>();
  private final Map<String, Counter> failed = new ConcurrentHashMap<>();
  private final Map<String, Counter> deadByChannel = new ConcurrentHashMap<>();
  private final Map<String, Counter> parked = new ConcurrentHashMap<>();
  private final Map<String, Counter> redriven = new ConcurrentHashMap<>();
  private final Map<String, Counter> deadBySubscription = new ConcurrentHashMap<>();
  private final Map<String, Counter> evicted = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> pending = new ConcurrentHashMap<>();

  /**
   * Target channel to its counters; bounded like the tag values (targets beyond the bound share
   * "other").
   */
  private final Map<ChannelUri, ChannelMeters> byTarget = new ConcurrentHashMap<>();

  public DeliveryMetrics(MeterRegistry registry, int maxTagValues) {
    this.registry = registry;
    this.maxTagValues = maxTagValues;
  }

  /**
   * The delivery counters of one target channel, resolved once (tag redacted and bounded), then
   * cached.
   */
  record ChannelMeters(Counter delivered, Counter failed, Timer send, Timer parked) {}

  /**
   * The counters of a target channel: its redacted tag is computed on the first delivery to it
   * only.
   */
  ChannelMeters channel(ChannelUri target) {
    ChannelMeters m = byTarget.get(target);
    if (m != null) {
      return m;
    }
    // Targets come and go with subscriptions: beyond a bound, resolve without caching rather than
    // grow.
    return byTarget.size() < MAX_CACHED_TARGETS
        ? byTarget.computeIfAbsent(target, this::resolve)
        : resolve(target);
  }

  private ChannelMeters resolve(ChannelUri target) {
    String tag = Redaction.uri(target.toString());
    return new ChannelMeters(
        counter(
            out,
            "activity.events.out",
            "channel",
            tag,
            "Deliveries accepted by the target channel"),
        counter(
            failed,
            "activity.events.failed",
            "channel",
            tag,
            "Failed delivery attempts (retried or dead-lettered)"),
        timer(
            send,
            HOP_SEND,
            target.scheme(),
            "Time from handing an event to the target channel until it acknowledged"),
        timer(
            parkedTime,
            HOP_PARKED,
            target.scheme(),
            "Time a delivery spent parked in the durable store until a retry delivered it"));
  }

  private Timer timer(Map<String, Timer> cache, String name, String scheme, String help) {
    return cache.computeIfAbsent(
        scheme, s -> Timer.builder(name).description(help).tag("channel", s).register(registry));
  }

  private static final int MAX_CACHED_TARGETS = 10_000;

  void delivered(ChannelUri channel) {
    channel(channel).delivered().increment();
  }

  void failedAttempt(ChannelUri channel) {
    channel(channel).failed().increment();
  }

  void parked(String subscription) {
    counter(
            parked,
            "activity.delivery.parked",
            "subscription",
            subscription,
            "Deliveries handed to the durable retry store")
        .increment();
  }

  void deadLettered(String subscription, String channel, int n) {
    counter(
            deadBySubscription,
            "activity.delivery.deadlettered",
            "subscription",
            subscription,
            "Deliveries given up and dead-lettered")
        .increment(n);
    if (channel != null) {
      counter(
              deadByChannel,
              "activity.events.deadlettered",
              "channel",
              Redaction.uri(channel),
              "Deliveries given up and dead-lettered, by target channel")
          .increment(n);
    }
  }

  void redriven(String subscription, int n) {
    counter(
            redriven,
            "activity.delivery.redriven",
            "subscription",
            subscription,
            "Dead letters moved back into the retry cycle")
        .increment(n);
  }

  void evicted(String subscription, int n) {
    counter(
            evicted,
            "activity.delivery.evicted",
            "subscription",
            subscription,
            "Pending deliveries dead-lettered because retry.maxPending was exceeded")
        .increment(n);
  }

  /** Sets the pending gauges from a fresh count; subscriptions not in the map report 0. */
  void pending(Map<String, Long> counts) {
    for (Map.Entry<String, AtomicLong> e : pending.entrySet()) {
      if (!counts.containsKey(e.getKey())) {
        e.getValue().set(0);
      }
    }
    Map<String, Long> byTag = new java.util.HashMap<>();
    counts.forEach((sub, n) -> byTag.merge(tagValue(pending, sub), n, Long::sum));
    byTag.forEach(
        (tag, n) ->
            pending
                .computeIfAbsent(
                    tag,
                    t -> {
                      AtomicLong value = new AtomicLong();
                      Gauge.builder("activity.delivery.pending", value, AtomicLong::get)
                          .description("Deliveries waiting in the durable retry store")
                          .tag("subscription", t)
                          .register(registry);
                      return value;
                    })
                .set(n));
  }

  private Counter counter(
      Map<String, Counter> cache, String name, String tag, String value, String help) {
    String v = tagValue(cache, value == null ? "none" : value);
    Counter c = cache.get(v);
    return c != null
        ? c
        : cache.computeIfAbsent(
            v, x -> Counter.builder(name).description(help).tag(tag, x).register(registry));
  }

  private String tagValue(Map<String, ?> family, String value) {
    return family.containsKey(value) || family.size() < maxTagValues ? value : OTHER;
  }
}
