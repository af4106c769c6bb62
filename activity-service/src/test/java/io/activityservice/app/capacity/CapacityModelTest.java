package io.activityservice.app.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.activityservice.app.stats.StatsSampler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The operational-analysis arithmetic on known inputs (pure logic, no Spring). */
class CapacityModelTest {

  private static final CapacityProperties SETTINGS =
      new CapacityProperties(Duration.ofMinutes(1), 0.8, 0.2);

  private static CapacityModel.Capacity evaluate(StatsSampler.Totals totals, int cores) {
    return CapacityModel.evaluate(totals, Duration.ofMinutes(1), cores, SETTINGS);
  }

  @Test
  void utilisationLawGivesDemandAndHeadroomAtTheCurrentMix() {
    // 60 s, 2 cores, 24 CPU seconds: U = 24 / 120 = 0.2. 6,000 events in over JMS, each delivered
    // once on SQS: X = 100/s, D = 24 s / 6,000 = 4,000 µs. Nothing else on the host (load 0.2).
    StatsSampler.Totals totals =
        new StatsSampler.Totals(
            60, 24, 0.2, Map.of("jms", 6000.0), Map.of("sqs:orders", 4000.0, "sqs:audit", 2000.0));
    CapacityModel.Capacity c = evaluate(totals, 2);
    assertThat(c.cpuUtilisation()).isCloseTo(0.2, within(1e-9));
    assertThat(c.eventsPerSecond()).isCloseTo(100, within(1e-9));
    assertThat(c.cpuMicrosPerEvent()).isCloseTo(4000, within(1e-6));
    // Up to 0.8: four times the traffic, so 400/s at most and 300/s left; 75 % of it free.
    assertThat(c.maxEventsPerSecond()).isCloseTo(400, within(1e-6));
    assertThat(c.headroomShare()).isCloseTo(0.75, within(1e-9));
    assertThat(c.warning()).isFalse();
    assertThat(c.bottleneck()).isEqualTo(CapacityModel.SERVICE_CPU);
    assertThat(c.paths())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.inbound()).isEqualTo("jms");
              assertThat(p.outbound()).isEqualTo("sqs");
              assertThat(p.eventsPerSecond()).isCloseTo(100, within(1e-9));
              assertThat(p.cpuMicrosPerEvent()).isCloseTo(4000, within(1e-6));
              assertThat(p.headroomEventsPerSecond()).isCloseTo(300, within(1e-6));
              assertThat(p.bottleneck()).isEqualTo(CapacityModel.SERVICE_CPU);
            });
  }

  @Test
  void otherProcessesOnTheHostShrinkTheHeadroomAndBecomeTheBottleneck() {
    // The service uses 0.1 of the cores, the host is at 0.6: a co-located broker takes 0.5, so the
    // service may grow to 0.3 only (3x), and the host's CPU runs out first.
    StatsSampler.Totals totals =
        new StatsSampler.Totals(10, 2, 0.6, Map.of("http", 1000.0), Map.of("jms:queue:a", 1000.0));
    CapacityModel.Capacity c = evaluate(totals, 2);
    assertThat(c.bottleneck()).isEqualTo(CapacityModel.HOST_CPU);
    assertThat(c.maxEventsPerSecond()).isCloseTo(300, within(1e-6));
    assertThat(c.paths().get(0).headroomEventsPerSecond()).isCloseTo(200, within(1e-6));
  }

  /**
   * Samples of 5 s on 2 cores: the service uses 1,000 µs per event; a co-located broker 0.2 cores
   * plus 2,000 µs per event (other = 0.2 + 0.002·X cores).
   */
  private static StatsSampler.Totals withBroker(double... rates) {
    List<StatsSampler.Point> points = new ArrayList<>();
    double received = 0;
    double cpu = 0;
    double load = 0;
    for (double x : rates) {
      double service = 0.001 * x; // cores
      double other = 0.2 + 0.002 * x;
      points.add(new StatsSampler.Point(5, 5 * x, 5 * service, (service + other) / 2));
      received += 5 * x;
      cpu += 5 * service;
      load += (service + other) / 2;
    }
    return new StatsSampler.Totals(
        5.0 * rates.length,
        cpu,
        load / rates.length,
        Map.of("sqs", received),
        Map.of("sqs:out", received),
        points);
  }

  @Test
  void aCoLocatedBrokerThatScalesWithTheTrafficCountsAsDemandPerEvent() {
    CapacityModel.Capacity c = evaluate(withBroker(50, 100, 150, 200), 2);
    assertThat(c.otherFitSamples()).isEqualTo(4);
    assertThat(c.otherCpuCores()).isCloseTo(0.2, within(1e-9));
    assertThat(c.otherCpuMicrosPerEvent()).isCloseTo(2000, within(1e-6));
    assertThat(c.cpuMicrosPerEvent()).isCloseTo(1000, within(1e-6));
    // X_max = (0.8·2 − 0.2) / (0.001 + 0.002) = 466.7/s; now 125/s
    assertThat(c.eventsPerSecond()).isCloseTo(125, within(1e-9));
    assertThat(c.maxEventsPerSecond()).isCloseTo(1.4 / 0.003, within(1e-6));
    assertThat(c.paths().get(0).headroomEventsPerSecond())
        .isCloseTo(1.4 / 0.003 - 125, within(1e-6));
    // the broker's 0.45 cores at 125/s outweigh the service's 0.125
    assertThat(c.bottleneck()).isEqualTo(CapacityModel.HOST_CPU);
    // Taken as fixed (0.45 cores), the same load would have promised (1.6 − 0.45) / 0.001 =
    // 1,150/s.
    CapacityModel.OtherLoad fixed =
        CapacityModel.fitOther(withBroker(125, 125, 125).points(), 2, 0.45);
    assertThat(fixed.samples()).isZero();
    assertThat(fixed.perEvent()).isZero();
    assertThat(fixed.cores()).isCloseTo(0.45, within(1e-9));
  }

  @Test
  void unrelatedLoadThatFallsAsTrafficGrowsStaysFixedAtItsMean() {
    List<StatsSampler.Point> points =
        List.of(
            new StatsSampler.Point(5, 250, 0.25, 0.6), // 50/s: other 1.2 − 0.05 = 1.15 cores
            new StatsSampler.Point(5, 500, 0.5, 0.5), // 100/s: 1.0 − 0.1 = 0.9
            new StatsSampler.Point(5, 750, 0.75, 0.4)); // 150/s: 0.8 − 0.15 = 0.65
    CapacityModel.OtherLoad fit = CapacityModel.fitOther(points, 2, 0);
    assertThat(fit.perEvent()).isZero();
    assertThat(fit.cores()).isCloseTo(0.9, within(1e-9));
    assertThat(fit.samples()).isEqualTo(3);
    // too few measurable samples: the mean given stands
    assertThat(CapacityModel.fitOther(points.subList(0, 2), 2, 0.3).cores()).isEqualTo(0.3);
  }

  @Test
  void beyondTheTargetThereIsNoHeadroomAndTheWarningIsOn() {
    StatsSampler.Totals totals =
        new StatsSampler.Totals(10, 18, 0.9, Map.of("kafka", 1000.0), Map.of("kafka:x", 1000.0));
    CapacityModel.Capacity c = evaluate(totals, 2);
    assertThat(c.headroomShare()).isZero();
    assertThat(c.warning()).isTrue();
    assertThat(c.paths().get(0).headroomEventsPerSecond()).isZero();
  }

  @Test
  void pathsShareDeliveriesByTheInboundKindsShareOfEvents() {
    // 300 in over http, 100 over sqs; 400 deliveries on jms and 200 on https.
    StatsSampler.Totals totals =
        new StatsSampler.Totals(
            10,
            1,
            Double.NaN,
            Map.of("http", 300.0, "sqs", 100.0),
            Map.of("jms:topic:t", 400.0, "https://hooks.example/x", 200.0));
    CapacityModel.Capacity c = evaluate(totals, 2);
    assertThat(c.hostCpuUtilisation()).isNull();
    assertThat(c.paths())
        .extracting(p -> p.inbound() + ">" + p.outbound() + "=" + Math.round(p.eventsPerSecond()))
        .containsExactly("http>https=15", "http>jms=30", "sqs>https=5", "sqs>jms=10");
    // The path rates add up to the deliveries, so Σ X·D is the CPU time: U = X·D holds.
    double cpu =
        c.paths().stream().mapToDouble(p -> p.eventsPerSecond() * p.cpuMicrosPerEvent()).sum();
    assertThat(cpu / 1e6).isCloseTo(0.1, within(1e-9)); // 1 CPU second over 10 s
  }

  @Test
  void withoutTrafficOrCpuTimeTheAnswerSaysUnknownAndStaysFinite() {
    CapacityModel.Capacity idle =
        evaluate(new StatsSampler.Totals(10, 0.5, 0.1, Map.of(), Map.of()), 2);
    assertThat(idle.bottleneck()).isEqualTo(CapacityModel.UNKNOWN);
    assertThat(idle.paths()).isEmpty();
    assertThat(idle.headroomShare()).isNull();
    assertThat(idle.warning()).isFalse();

    CapacityModel.Capacity noCpu =
        evaluate(
            new StatsSampler.Totals(10, -1, Double.NaN, Map.of("jms", 10.0), Map.of("jms:q", 10.0)),
            2);
    assertThat(noCpu.cpuUtilisation()).isNull();
    assertThat(noCpu.bottleneck()).isEqualTo(CapacityModel.UNKNOWN);
    assertThat(noCpu.paths())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.cpuMicrosPerEvent()).isNull();
              assertThat(p.headroomEventsPerSecond()).isNull();
            });

    CapacityModel.Capacity empty =
        evaluate(new StatsSampler.Totals(0, 0, Double.NaN, Map.of(), Map.of()), 2);
    assertThat(empty.cpuUtilisation()).isNull();
    assertThat(empty.eventsPerSecond()).isZero();
  }

  @Test
  void settingsAreValidatedWithHowToFixThem() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new CapacityProperties(Duration.ofMinutes(1), 1.5, 0.2))
        .hasMessageContaining("activity.capacity.target-utilisation")
        .hasMessageContaining("e.g. 0.8");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new CapacityProperties(Duration.ofMillis(10), 0.8, 0.2))
        .hasMessageContaining("activity.capacity.window");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new CapacityProperties(Duration.ofMinutes(1), 0.8, 1.0))
        .hasMessageContaining("activity.capacity.warning-share");
  }
}
