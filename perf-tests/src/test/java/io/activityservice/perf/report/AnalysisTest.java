package io.activityservice.perf.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.activityservice.perf.cpu.CpuUse;
import io.activityservice.perf.suite.RunResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class AnalysisTest {

  @Test
  void isolationTargetComparesTheHealthySubscriptionBesideAFailingOneWithAlone() {
    List<RunResult> runs =
        List.of(
            burst("I1", "alone", 500, 100),
            burst("I1", "beside", 500, 104),
            burst("I1", "beside", 500, 118),
            burst("I1", "alone", 500, 110));
    Analysis.Target t = target(analysis(runs, CpuFacts.none()), "Healthy subscriber");
    assertEquals("met", t.status(), t.measured());
    assertTrue(t.measured().contains("beside 111 ms vs alone 105 ms: 1.06×"), t.measured());
    assertEquals("beside", t.mode(), "a miss is profiled on the beside runs");

    List<RunResult> slow =
        List.of(
            burst("I1", "alone", 500, 100),
            burst("I1", "beside", 500, 300),
            burst("I1", "alone", 500, 100),
            burst("I1", "beside", 500, 260));
    assertEquals("missed", target(analysis(slow, CpuFacts.none()), "Healthy subscriber").status());
    assertTrue(
        target(analysis(List.of(), CpuFacts.none()), "Healthy subscriber")
            .status()
            .startsWith("not measured"));
  }

  @Test
  void
      cpuTargetsUseTheServicesOwnNetCostOfTheLargestBurstsAndRefuseJmsFiguresThatIncludeTheEmbeddedBroker() {
    List<CpuUse> uses =
        List.of(
            // cold small bursts: expensive, left out of the target
            new CpuUse(
                "T2",
                "burst",
                100,
                1,
                100,
                1.0,
                Map.of("service-own", 50.0, "service", 80.0),
                true),
            new CpuUse(
                "T2",
                "burst",
                500,
                1,
                500,
                1.0,
                Map.of("service-own", 14.0, "service", 30.0),
                true),
            new CpuUse(
                "T2",
                "burst",
                500,
                2,
                500,
                1.0,
                Map.of("service-own", 16.0, "service", 30.0),
                true),
            new CpuUse(
                "K2",
                "burst",
                500,
                1,
                500,
                1.0,
                Map.of("service-own", 42.0, "service", 60.0),
                true));
    Map<String, Double> idle = Map.of("service-own", 2.0, "service", 5.0); // ms CPU per s
    Analysis a =
        analysis(List.of(), new CpuFacts(uses, idle, List.of(), Map.of(), false, List.of()));
    assertEquals("service-own", a.serviceSource());
    Analysis.Target jms = target(a, "≤ 50 µs for JMS→JMS");
    assertEquals("met", jms.status(), jms.measured());
    // (14 + 16 − 2 × 2 s idle) ms / 1,000 events = 26 µs
    assertTrue(
        jms.measured()
            .startsWith(
                "26.0 µs/event (without JIT and JFR threads; gross 30.0; 1,000 events in 2"),
        jms.measured());
    Analysis.Target kafka = target(a, "≤ 50 µs for Kafka→Kafka");
    assertEquals("missed", kafka.status(), kafka.measured()); // (42 − 2) / 500 = 80 µs
    assertEquals("K2", kafka.scenario(), "a miss is profiled on the K2 bursts");
    assertTrue(target(a, "≤ 100 µs for SQS→SQS").status().startsWith("not measured"));

    Analysis b =
        analysis(List.of(), new CpuFacts(uses, idle, List.of(), Map.of(), true, List.of()));
    assertTrue(
        target(b, "≤ 50 µs for JMS→JMS")
            .status()
            .startsWith("not measured: the embedded ActiveMQ"));
    assertEquals(
        "missed",
        target(b, "≤ 50 µs for Kafka→Kafka").status(),
        "Kafka's path has no JMS broker in it");
  }

  @Test
  void addedLatencyUsesTheMedianOfTheStepsRunsSoOneSpikeDoesNotDecide() {
    List<RunResult> runs = new ArrayList<>();
    for (double p99 : new double[] {1.2, 1.1, 1.3}) {
      runs.add(paced("T1", 1000, 0.5, p99));
    }
    for (double p99 : new double[] {1.9, 45.0, 2.1}) {
      runs.add(paced("T2", 1000, 0.7, p99));
    }
    Analysis a = analysis(runs, CpuFacts.none());
    Analysis.Target t = target(a, "JMS→service→JMS at 1,000 ev/s");
    assertEquals("met", t.status(), t.measured());
    assertEquals(2.1, a.pacedMedian("T2", 1000, 99), 0.01);
    assertEquals(
        2.1,
        a.paced("T2", 1000).map(r -> r.percentileMillis(99)).orElseThrow(),
        0.01,
        "paced() is the run with the median p99, not the spike");
  }

  @Test
  void kafkaTargetsJudgeK2AgainstK1AtEachBurstSizeAndAtAFixedRate() {
    List<RunResult> runs =
        new ArrayList<>(
            List.of(
                burst("K1", "burst", 1000, 100),
                burst("K2", "burst", 1000, 120),
                burst("K1", "burst", 10_000, 500),
                burst("K2", "burst", 10_000, 900)));
    for (int i = 0; i < 3; i++) {
      runs.add(paced("K1", 1000, 1.5, 4));
      runs.add(paced("K2", 1000, 3.0, 9));
    }
    Analysis a = analysis(runs, CpuFacts.none());
    Analysis.Target thousand = target(a, "K2 1,000-event burst");
    assertEquals("met", thousand.status(), thousand.measured());
    assertTrue(
        thousand.measured().startsWith("K2 120 ms vs K1 100 ms: 1.20×"), thousand.measured());
    assertEquals("missed", target(a, "K2 10,000-event burst").status(), "1.8× is over 1.3×");
    Analysis.Target added = target(a, "Kafka→service→Kafka at 1,000 ev/s");
    assertEquals("missed", added.status(), added.measured());
    assertTrue(added.measured().startsWith("added p50 1.50 ms"), added.measured());
    assertTrue(
        target(a, "T4 10,000-event burst")
            .status()
            .startsWith("not measured: no 10000-event bursts"),
        "a run without 10,000-event bursts says so");
  }

  @Test
  void targetsMeasuredOutsideTheSuiteFollowItsOwn() {
    Analysis a = analysis(List.of(), CpuFacts.none());
    int own = a.targets().size();
    a.addTargetsMeasuredElsewhere(
        List.of(
            new Analysis.Target("Adaptive batching: x", "1 vs 1", "met", "batching", "sweep", 0)));
    assertEquals(own + 1, a.targets().size());
    assertEquals("Adaptive batching: x", a.targets().get(own).name());
  }

  private static Analysis analysis(List<RunResult> runs, CpuFacts cpu) {
    return new Analysis(runs, Map.of(), "not run", List.of(), cpu, "measured", Map.of());
  }

  private static Analysis.Target target(Analysis a, String nameContains) {
    return a.targets().stream()
        .filter(t -> t.name().contains(nameContains))
        .findFirst()
        .orElseThrow();
  }

  private static RunResult burst(String scenario, String mode, int n, double millis) {
    Histogram h = new Histogram(3);
    h.recordValue(1000);
    return new RunResult(
        scenario,
        mode,
        n,
        1,
        0,
        n,
        0,
        0,
        millis / 1000,
        millis / 2000,
        h,
        Instant.EPOCH,
        Instant.EPOCH);
  }

  private static RunResult paced(String scenario, double rate, double p50, double p99) {
    Histogram h = new Histogram(3);
    for (int i = 0; i < 98; i++) {
      h.recordValue(Math.round(p50 * 1000));
    }
    h.recordValue(Math.round(p99 * 1000));
    h.recordValue(Math.round(p99 * 1000));
    return new RunResult(
        scenario, "rate", 1000, 1, rate, 1000, 0, 0, 1.0, 1.0, h, Instant.EPOCH, Instant.EPOCH);
  }
}
