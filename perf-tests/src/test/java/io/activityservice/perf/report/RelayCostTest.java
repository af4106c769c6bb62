package io.activityservice.perf.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.activityservice.perf.cpu.CpuUse;
import io.activityservice.perf.suite.RunResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The issue-20 target table: steady bursts only, the broker ratio, Camel beside the service, idle,
 * JMH, links.
 */
class RelayCostTest {

  @TempDir Path dir;

  @Test
  void cpuTargetsUseOnlyTheSteadyBurstsNetOfIdleAndCompareWithTheBrokerAndCamel() {
    List<CpuUse> uses = new ArrayList<>();
    // T2: the first burst still compiling (10 % JIT), then three steady ones at 40 µs/event gross
    uses.add(use("T2", 1, "service", 900, 90));
    uses.add(use("T2", 2, "service", 400, 1));
    uses.add(use("T2", 3, "service", 400, 2));
    uses.add(use("T2", 4, "service", 400, 0));
    // X2: T2's path with a transformation, 45 µs/event gross
    uses.add(use("X2", 1, "service", 450, 1));
    uses.add(use("X2", 2, "service", 450, 1));
    uses.add(use("X2", 3, "service", 450, 1));
    uses.add(use("T1", 1, "activemq", 2000, 0));
    uses.add(use("T1", 2, "activemq", 2000, 0));
    uses.add(use("T1", 3, "activemq", 2000, 0));
    uses.add(use("CT2", 1, "camel", 300, 1));
    uses.add(use("CT2", 2, "camel", 300, 1));
    uses.add(use("CT2", 3, "camel", 300, 1));
    Map<String, Double> idle = Map.of("service-own", 2.5, "camel-own", 1.0, "activemq-own", 0.0);
    Analysis a =
        new Analysis(
            List.of(burst("T2", 10_000, 4000), burst("CT2", 10_000, 3000)),
            Map.of("T2", 1500.0, "CT2", 2000.0),
            "not run",
            List.of(),
            new CpuFacts(uses, idle, List.of(), Map.of(), false, List.of()),
            "not run",
            Map.of());
    Map<String, String> subjects =
        Map.of("T2", "service", "X2", "service", "T1", "activemq", "CT2", "camel");
    RelayCost rc =
        new RelayCost(
            a,
            new RelayCost.Facts(
                10_000,
                3,
                0.02,
                subjects,
                Map.of("T2", Map.of("cpu", "profiles/T2-service-cpu.html")),
                Map.of(),
                "started: 4 routes",
                null));

    // (3 × 400 ms − 2.5 ms/s × 3 s) / 30,000 events = 39.75 µs
    assertEquals(39.75, rc.cpuPerEvent("T2", "service").getAsDouble(), 1e-9);
    assertEquals(200.0, rc.cpuPerEvent("T1", "activemq").getAsDouble(), 1e-9);
    Map<String, RelayCost.Row> rows = new HashMap<>();
    rc.targets().forEach(r -> rows.put(r.key(), r));
    assertEquals(
        "met", rows.get("cpu-t2-vs-broker").status(), rows.get("cpu-t2-vs-broker").figure());
    assertTrue(
        rows.get("cpu-t2-vs-broker").figure().startsWith("0.20× (39.8 vs 200.0"),
        rows.get("cpu-t2-vs-broker").figure());
    assertEquals("met", rows.get("cpu-t2").status());
    // X2: (3 × 450 ms − 2.5 ms/s × 3 s) / 30,000 = 44.75 µs, 5.0 µs more than T2
    assertEquals("measured", rows.get("cpu-transform").status());
    assertTrue(
        rows.get("cpu-transform").figure().startsWith("+5.0 µs/event (X2 44.8"),
        rows.get("cpu-transform").figure());
    // Camel: (900 − 3) / 30,000 = 29.9 µs: the service's 39.75 is more
    assertEquals("missed", rows.get("camel-cpu-T2").status(), rows.get("camel-cpu-T2").figure());
    assertEquals("T2", rows.get("camel-cpu-T2").scenario(), "a miss links T2's flame graphs");
    assertEquals(
        "missed", rows.get("camel-burst-T2").status(), "4,000 ms vs 3,000 ms is over 1.0×");
    assertEquals("missed", rows.get("camel-rate-T2").status(), "1,500 < 2,000 ev/s");
    assertTrue(
        rows.get("camel-cpu-T4").status().startsWith("not measured"),
        rows.get("camel-cpu-T4").status());
    assertEquals("met", rows.get("idle").status(), rows.get("idle").figure());
    assertTrue(
        rows.get("idle").figure().contains("Camel peer 1.00 ms/s"), rows.get("idle").figure());
    assertTrue(
        rows.get("jmh-pipeline").status().startsWith("n/a"), rows.get("jmh-pipeline").status());
    Analysis none =
        new Analysis(
            List.of(),
            Map.of("T2", 0.0, "CT2", 0.0),
            "not run",
            List.of(),
            new CpuFacts(uses, idle, List.of(), Map.of(), false, List.of()),
            "not run",
            Map.of());
    RelayCost.Row zero =
        new RelayCost(none, rc.facts())
            .targets().stream()
                .filter(r -> r.key().equals("camel-rate-T2"))
                .findFirst()
                .orElseThrow();
    assertTrue(
        zero.status().startsWith("not measured: neither sustained"),
        "0 ≥ 0 is no win: " + zero.status());
    assertTrue(rows.get("cpu-k2").status().startsWith("not measured"));
  }

  @Test
  void aFigureWithoutEnoughSteadyBurstsSaysSo() {
    List<CpuUse> uses = List.of(use("K2", 1, "service", 100, 50), use("K2", 2, "service", 100, 1));
    Analysis a =
        new Analysis(
            List.of(),
            Map.of(),
            "not run",
            List.of(),
            new CpuFacts(uses, Map.of(), List.of(), Map.of(), false, List.of()),
            "not run",
            Map.of());
    RelayCost rc =
        new RelayCost(
            a,
            new RelayCost.Facts(
                10_000, 3, 0.02, Map.of("K2", "service"), Map.of(), Map.of(), "not run", null));
    RelayCost.Row k2 =
        rc.targets().stream().filter(r -> r.key().equals("cpu-k2")).findFirst().orElseThrow();
    assertTrue(
        rc.targets().stream()
            .filter(r -> r.key().equals("cpu-transform"))
            .findFirst()
            .orElseThrow()
            .status()
            .startsWith("not measured: no X2 and T2"));
    assertEquals(
        "met (not steady)",
        k2.status(),
        k2.figure()); // the one steady burst: 100 ms / 10,000 = 10 µs
    assertTrue(k2.figure().startsWith("10.0 µs/event (not steady: 1 of 3"), k2.figure());
  }

  @Test
  void readsTheInProcessPipelineFromAJmhResult() throws Exception {
    String json =
        "[{\"benchmark\":\"x.RouterMatchBenchmark.match\",\"primaryMetric\":{\"score\":2000,\"scoreUnit\":\"ns/op\"}},"
            + "{\"benchmark\":\"x.PipelineBenchmark.relay\",\"primaryMetric\":{\"score\":8500.0,\"scoreUnit\":\"ns/op\"},"
            + "\"secondaryMetrics\":{\"·gc.alloc.rate.norm\":{\"score\":1900.0,\"scoreUnit\":\"B/op\"}}}]";
    double[] r = RelayCost.jmh(json).orElseThrow();
    assertEquals(8.5, r[0], 1e-9);
    assertEquals(1900, r[1], 1e-9);
    Path file = dir.resolve("pipeline.json");
    Files.writeString(file, json);
    Analysis a = new Analysis(List.of(), Map.of(), "not run");
    RelayCost rc =
        new RelayCost(
            a, new RelayCost.Facts(10_000, 3, 0.02, Map.of(), Map.of(), Map.of(), "not run", file));
    RelayCost.Row row =
        rc.targets().stream().filter(x -> x.key().equals("jmh-pipeline")).findFirst().orElseThrow();
    assertEquals("met", row.status(), row.figure());
  }

  @Test
  void reportsTracingCostPerSamplingRatioAgainstNoTracer() throws Exception {
    String json =
        "["
            + bench("off", "type", 8000)
            + ","
            + bench("0", "type", 8400)
            + ","
            + bench("0.1", "type", 9000)
            + ","
            + bench("1", "type", 16000)
            + ","
            + bench("off", "data", 12000)
            + "]";
    assertEquals(
        Map.of("off", 8000.0, "0", 8400.0, "0.1", 9000.0, "1", 16000.0),
        RelayCost.tracingCpu(json));
    Path file = dir.resolve("pipeline-tracing.json");
    Files.writeString(file, json);
    RelayCost rc =
        new RelayCost(
            new Analysis(List.of(), Map.of(), "not run"),
            new RelayCost.Facts(10_000, 3, 0.02, Map.of(), Map.of(), Map.of(), "not run", file));
    RelayCost.Row row =
        rc.targets().stream().filter(x -> x.key().equals("jmh-tracing")).findFirst().orElseThrow();
    assertEquals(
        "no tracer 8.00 µs; 0 % sampled +0.40 µs (+5 %); 10 % sampled +1.00 µs (+13 %);"
            + " 100 % sampled +8.00 µs (+100 %)",
        row.figure());
    assertEquals("measured", row.status());
  }

  private static String bench(String tracing, String pattern, double cpuNanos) {
    return "{\"benchmark\":\"x.PipelineBenchmark.relay\",\"params\":{\"pattern\":\""
        + pattern
        + "\",\"tracing\":\""
        + tracing
        + "\"},\"primaryMetric\":{\"score\":1000.0,\"scoreUnit\":\"ns/op\"},"
        + "\"secondaryMetrics\":{\"·cpu.process.norm\":{\"score\":"
        + cpuNanos
        + ",\"scoreUnit\":\"ns/op\"}}}";
  }

  @Test
  void targetRowsRoundTripThroughTheirFileForTheBeforeColumn() throws Exception {
    Path file = dir.resolve(RelayTargets.FILE);
    RelayTargets.write(
        file,
        List.of(new RelayCost.Row("cpu-t2", "T2 ≤ 50 µs", "152.5 µs/event\t(x)", "missed", "T2")));
    RelayCost.Row back = RelayTargets.read(file).get("cpu-t2");
    assertEquals("152.5 µs/event (x)", back.figure());
    assertEquals("missed", back.status());
    assertTrue(RelayTargets.read(dir.resolve("absent.tsv")).isEmpty());
  }

  private static CpuUse use(String scenario, int rep, String process, double ownMs, double jitMs) {
    return new CpuUse(
        scenario,
        "burst",
        10_000,
        rep,
        10_000,
        1.0,
        Map.of(process + "-own", ownMs, process + "-jit", jitMs),
        true);
  }

  private static RunResult burst(String scenario, int n, double millis) {
    Histogram h = new Histogram(3);
    h.recordValue(1000);
    return new RunResult(
        scenario,
        "burst",
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
}
