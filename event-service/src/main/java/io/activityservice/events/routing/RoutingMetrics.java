package io.activityservice.events.routing;

import io.activityservice.channel.ChannelUri;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * Micrometer meters of the router: events in per type, and routing latency (receipt until every
 * matching delivery was delivered or durably parked). Delivery meters are in {@link
 * io.activityservice.events.delivery.DeliveryMetrics}. Meters are cached per event type (given the
 * registry's version), so the hot path does one map lookup per count and builds no tag.
 *
 * <p>The {@code type} tag is bounded: it names registered types only and reports every other type
 * as {@value #OTHER}, so that publishers of random types cannot grow the metric without limit
 * (types are registered by administrators).
 *
 * <p>Per-hop latency without a tracing backend, measured where the {@link
 * io.activityservice.events.tracing.EventTracing} seam starts its spans: {@value #HOP_TRANSPORT}
 * (producer's send time to receipt, see {@link io.activityservice.events.tracing.HopLatency}, tag
 * {@code channel}: the inbound channel's scheme, {@code rest} for the API), {@value #HOP_INGEST}
 * (validation) and {@value #HOP_ROUTE} (matching). The outbound hops are in {@link
 * io.activityservice.events.delivery.DeliveryMetrics}. The scheme tag is bounded by the installed
 * adapters.
 */
public class RoutingMetrics {

  /** The {@code type} tag of events whose type is not registered. */
  public static final String OTHER = "other";

  private final MeterRegistry registry;
  private final Predicate<String> registered;
  private final LongSupplier version;
  private final Timer latency;
  private final Map<String, Counter> in = new ConcurrentHashMap<>();
  private final Map<String, Counter> receivedOn = new ConcurrentHashMap<>();
  private final Map<String, Timer> transport = new ConcurrentHashMap<>();
  private final Timer ingest;
  private final Timer route;

  /** Time an event waited in the inbound transport: producer's send time to receipt. */
  public static final String HOP_TRANSPORT = "activity.hop.transport";

  /** Time ingest took to validate and normalize an event. */
  public static final String HOP_INGEST = "activity.hop.ingest";

  /** Time the router took to match an event against the subscriptions. */
  public static final String HOP_ROUTE = "activity.hop.route";

  /**
   * Event type to its counter (its own or "other"), for the registry version {@link
   * #cachedVersion}.
   */
  private final Map<String, Counter> byType = new ConcurrentHashMap<>();

  private volatile long cachedVersion;

  /**
   * @param registered whether a type is registered (e.g. {@code type ->
   *     registry.find(type).isPresent()}); others are counted under {@value #OTHER}; asked per
   *     event
   */
  public RoutingMetrics(MeterRegistry registry, Predicate<String> registered) {
    this(registry, registered, null);
  }

  /**
   * @param registered whether a type is registered; others are counted under {@value #OTHER}
   * @param version changes whenever a type is registered or removed: the decision per type is
   *     cached until then, so counting an event is one map lookup
   */
  public RoutingMetrics(
      MeterRegistry registry, Predicate<String> registered, LongSupplier version) {
    this.registry = registry;
    this.registered = registered;
    this.version = version;
    this.latency =
        Timer.builder("activity.routing.latency")
            .description(
                "Time from receipt of an event until every matching delivery was delivered or parked")
            .publishPercentileHistogram()
            .register(registry);
    this.ingest =
        Timer.builder(HOP_INGEST)
            .description("Time ingest took to validate and normalize an event")
            .register(registry);
    this.route =
        Timer.builder(HOP_ROUTE)
            .description("Time the router took to match an event against the subscriptions")
            .register(registry);
  }

  /**
   * The transport-wait timer of an inbound channel ({@code null}: the REST API), resolved once per
   * channel by its scheme.
   */
  public Timer transport(ChannelUri channel) {
    String kind = channel == null ? "rest" : channel.scheme();
    return transport.computeIfAbsent(
        kind,
        k ->
            Timer.builder(HOP_TRANSPORT)
                .description(
                    "Time an event waited in the inbound transport: producer's send time (the"
                        + " event's time) to receipt")
                .tag("channel", k)
                .register(registry));
  }

  /** Records the time ingest took since {@code startNanos} ({@link System#nanoTime()}). */
  public void ingested(long startNanos) {
    ingest.record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
  }

  void matched(long startNanos) {
    route.record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
  }

  void received(String type) {
    if (version == null || type == null) {
      counter(type).increment();
      return;
    }
    long v = version.getAsLong();
    if (v != cachedVersion) {
      byType.clear();
      cachedVersion = v;
    }
    Counter c = byType.get(type);
    if (c == null) {
      c = counter(type);
      if (byType.size() < MAX_CACHED_TYPES && version.getAsLong() == v) {
        byType.put(type, c);
      }
    }
    c.increment();
  }

  private Counter counter(String type) {
    String tag = type != null && registered.test(type) ? type : OTHER;
    Counter c = in.get(tag);
    return c != null
        ? c
        : in.computeIfAbsent(
            tag,
            v ->
                Counter.builder("activity.events.in")
                    .description("Events received, by type")
                    .tag("type", v)
                    .register(registry));
  }

  /**
   * The counter of events received on one kind of inbound channel ({@code
   * activity.events.received}, tag {@code channel}: the channel's scheme, e.g. {@code jms}, {@code
   * sqs}, {@code kafka}, or {@code http} for the REST API). Callers resolve it once (per inbound
   * channel, per controller) and increment it per event, so counting costs one add. With {@code
   * activity.events.out} by target channel it gives the traffic per path that the capacity model
   * needs; the tag is bounded by the schemes the adapters know.
   */
  public Counter receivedOn(String channel) {
    return receivedOn.computeIfAbsent(
        channel,
        c ->
            Counter.builder("activity.events.received")
                .description("Events received, by inbound channel kind (scheme)")
                .tag("channel", c)
                .register(registry));
  }

  /**
   * Types whose tag decision is cached (random types of unregistered events beyond it are decided
   * per event).
   */
  private static final int MAX_CACHED_TYPES = 10_000;

  void routed(long receivedAtNanos) {
    latency.record(System.nanoTime() - receivedAtNanos, TimeUnit.NANOSECONDS);
  }
}
