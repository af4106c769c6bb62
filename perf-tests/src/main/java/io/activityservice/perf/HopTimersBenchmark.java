package io.activityservice.perf;

import io.activityservice.channel.ChannelUri;
import io.activityservice.events.delivery.DeliveryMetrics;
import io.activityservice.events.routing.RoutingMetrics;
import io.activityservice.events.tracing.HopLatency;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.time.OffsetDateTime;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The per-hop timers' own cost per event (issue 23), in isolation: what one relayed event records
 * on the {@code activity.hop.*} timers, as the service does — the transport wait from the
 * transport's send time, and the ingest, route and send timers from {@code System.nanoTime()}
 * deltas — on the timers the service registers ({@link RoutingMetrics}, {@link DeliveryMetrics}).
 * {@code hops=off} denies the timers with a Micrometer {@code MeterFilter} (no-op timers), so the
 * difference is the recording itself; the clock reads are in both. {@code registry=prometheus} is
 * the service's registry, {@code simple} the pipeline benchmark's.
 *
 * <p>Run: {@code java -jar perf-tests/target/benchmarks.jar HopTimersBenchmark -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class HopTimersBenchmark {

  @Param({"prometheus", "simple"})
  public String registry;

  @Param({"on", "off"})
  public String hops;

  private Timer transport;
  private Timer ingest;
  private Timer route;
  private Timer send;
  private CloudEvent event;
  private long sentAt;

  @Setup
  public void setUp() {
    MeterRegistry meters =
        registry.equals("prometheus")
            ? new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)
            : new SimpleMeterRegistry();
    if (hops.equals("off")) {
      meters.config().meterFilter(MeterFilter.denyNameStartsWith("activity.hop."));
    }
    ChannelUri jms = ChannelUri.parse("jms:queue:perf.in");
    RoutingMetrics routing = new RoutingMetrics(meters, type -> true);
    transport = routing.transport(jms);
    // The timers RoutingMetrics and DeliveryMetrics registered (same ids: the registry hands back
    // the
    // same timer; denied ones are no-op timers).
    ingest = Timer.builder(RoutingMetrics.HOP_INGEST).register(meters);
    route = Timer.builder(RoutingMetrics.HOP_ROUTE).register(meters);
    send = Timer.builder(DeliveryMetrics.HOP_SEND).tag("channel", "jms").register(meters);
    event =
        CloudEventBuilder.v1()
            .withId("1")
            .withSource(URI.create("/perf"))
            .withType("com.example.perf")
            .withTime(OffsetDateTime.now())
            .build();
    sentAt = System.currentTimeMillis();
  }

  /** One event's hop recordings. */
  @Benchmark
  public void oneEvent() {
    HopLatency.waited(transport, event, sentAt, System.currentTimeMillis());
    long start = System.nanoTime();
    ingest.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
    start = System.nanoTime();
    route.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
    start = System.nanoTime();
    send.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
  }
}
