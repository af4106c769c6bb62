package io.activityservice.app.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.activityservice.app.console.ConsoleProperties;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The sampler against a real Prometheus meter registry, with the meters the service registers:
 * counts per interval, exact window totals, per-interval latency percentiles from the histogram,
 * and the ring buffer's bound. Samples are taken by calling {@code sample()} directly, so nothing
 * depends on timing.
 */
class StatsSamplerTest {

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Timer latency =
      Timer.builder("activity.routing.latency").publishPercentileHistogram().register(registry);

  private StatsSampler sampler(Duration retention) {
    return new StatsSampler(
        registry,
        Clock.systemUTC(),
        new ConsoleProperties.Stats(Duration.ofSeconds(1), retention, 3));
  }

  private Counter in(String type) {
    return Counter.builder("activity.events.in").tag("type", type).register(registry);
  }

  @Test
  void countsPerIntervalAndTotalsPerSeries() {
    StatsSampler s = sampler(Duration.ofMinutes(1));
    in("a").increment(5);
    s.sample(); // baseline: what happened before the sampler started is not an interval
    in("a").increment(3);
    in("b").increment(1);
    Counter.builder("activity.events.out")
        .tag("channel", "jms:queue:x")
        .register(registry)
        .increment(4);
    s.sample();
    in("a").increment(2);
    s.sample();

    StatsSampler.Window w = s.window(Duration.ofMinutes(1), List.of());
    assertThat(w.times()).hasSize(2);
    assertThat(w.series().get("in").get("a")).containsExactly(3.0, 2.0);
    assertThat(w.series().get("in").get("b")).containsExactly(1.0, 0.0);
    assertThat(w.totals().get("in")).containsEntry("a", 5.0).containsEntry("b", 1.0);
    assertThat(w.totals().get("out")).containsEntry("jms:queue:x", 4.0);
    assertThat(s.window(Duration.ofMinutes(1), List.of(StatsSampler.Family.OUT)).series())
        .containsOnlyKeys("out");
  }

  @Test
  void seriesBeyondTheBoundAreSummedAsOther() {
    StatsSampler s = sampler(Duration.ofMinutes(1));
    s.sample();
    for (String t : List.of("t1", "t2", "t3", "t4", "t5")) {
      in(t).increment();
    }
    s.sample();
    StatsSampler.Window w = s.window(Duration.ofMinutes(1), List.of(StatsSampler.Family.IN));
    assertThat(w.totals().get("in")).hasSize(4).containsEntry("other", 2.0);
    assertThat(w.totals().get("in").values().stream().mapToDouble(Double::doubleValue).sum())
        .isEqualTo(5.0);
  }

  @Test
  void latencyPercentilesAreThoseOfTheIntervalOnly() {
    StatsSampler s = sampler(Duration.ofMinutes(1));
    for (int i = 0; i < 1000; i++) {
      latency.record(
          500, TimeUnit.MILLISECONDS); // before the baseline: must not leak into the intervals
    }
    s.sample();
    for (int i = 1; i <= 100; i++) {
      latency.record(i, TimeUnit.MILLISECONDS); // 1..100 ms
    }
    s.sample();
    s.sample(); // an interval without events

    StatsSampler.LatencyColumns l = s.window(Duration.ofMinutes(1), List.of()).latency();
    assertThat(l.count()).containsExactly(100L, 0L);
    // Histogram buckets are coarse (about ±15 % here); the interval's median is 50 ms, not the
    // earlier 500 ms.
    assertThat(l.p50().get(0)).isCloseTo(50.0, within(10.0));
    assertThat(l.p99().get(0)).isCloseTo(99.0, within(15.0));
    assertThat(l.p50().get(1)).isNull();
  }

  @Test
  void ringBufferKeepsOnlyTheRetention() {
    StatsSampler s = sampler(Duration.ofSeconds(5));
    s.sample();
    for (int i = 0; i < 12; i++) {
      in("a").increment();
      s.sample();
    }
    assertThat(s.window(Duration.ofSeconds(5), List.of()).times()).hasSize(5);
  }

  @Test
  void totalsForTheCapacityModelAddCpuTimeAndCountsPerInboundKindAndTarget() {
    long[] cpuNanos = {1_000_000_000L};
    ProcessCpu cpu =
        new ProcessCpu() {
          @Override
          public long processCpuNanos() {
            return cpuNanos[0];
          }

          @Override
          public double hostLoad() {
            return 0.5;
          }
        };
    StatsSampler s =
        new StatsSampler(
            registry,
            Clock.systemUTC(),
            new ConsoleProperties.Stats(Duration.ofSeconds(1), Duration.ofMinutes(1), 3),
            cpu);
    Counter jms =
        Counter.builder("activity.events.received").tag("channel", "jms").register(registry);
    Counter out =
        Counter.builder("activity.events.out").tag("channel", "sqs:orders").register(registry);
    jms.increment(100); // before the baseline: not in any interval
    s.sample();
    jms.increment(10);
    out.increment(20);
    cpuNanos[0] += 30_000_000L;
    s.sample();
    jms.increment(5);
    cpuNanos[0] += 12_000_000L;
    s.sample();

    StatsSampler.Totals t = s.totals(Duration.ofMinutes(1));
    assertThat(t.received()).containsExactly(java.util.Map.entry("jms", 15.0));
    assertThat(t.delivered()).containsExactly(java.util.Map.entry("sqs:orders", 20.0));
    assertThat(t.cpuSeconds()).isCloseTo(0.042, within(1e-9));
    assertThat(t.hostLoad()).isEqualTo(0.5);
    assertThat(t.seconds()).isPositive();
    // One point per sample for the fit of the other processes' load against the rate.
    assertThat(t.points()).hasSize(2);
    assertThat(t.points()).extracting(StatsSampler.Point::received).containsExactly(10.0, 5.0);
    assertThat(t.points()).extracting(StatsSampler.Point::cpuSeconds).containsExactly(0.030, 0.012);
    assertThat(t.points()).allSatisfy(p -> assertThat(p.hostLoad()).isEqualTo(0.5));
    assertThat(t.points().stream().mapToDouble(StatsSampler.Point::seconds).sum())
        .isCloseTo(t.seconds(), within(1e-9));
  }
}
