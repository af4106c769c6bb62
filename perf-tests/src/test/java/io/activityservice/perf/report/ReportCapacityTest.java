package io.activityservice.perf.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.perf.cpu.CpuUse;
import io.activityservice.perf.suite.RunResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generated report carries the capacity model, the per-stage split and the SPECjms row without
 * hand steps: from the runs, their CPU readings, the profiles' shares and a search's file.
 */
class ReportCapacityTest {

  @Test
  void aRunsReportHasTheCapacityTableItsStagesAndTheSearchesRow(@TempDir Path dir)
      throws Exception {
    Histogram h = new Histogram(3);
    h.recordValue(1000);
    // Two bursts of 10,000 in 2.5 s each: 4,000 ev/s measured.
    List<RunResult> runs =
        List.of(
            new RunResult(
                "T2",
                "burst",
                10_000,
                1,
                0,
                10_000,
                0,
                0,
                2.5,
                0.01,
                h,
                Instant.EPOCH,
                Instant.EPOCH),
            new RunResult(
                "T2",
                "burst",
                10_000,
                2,
                0,
                10_000,
                0,
                0,
                2.5,
                0.01,
                h,
                Instant.EPOCH,
                Instant.EPOCH));
    // Per burst (3 s windows): service 1,500 ms + runner 500 ms = 200 µs/ev; host 2,300 ms: 0.1
    // other cores; (2 − 0.1) / 200 µs = 9,500 ev/s predicted, +138 % over 4,000.
    Map<String, Double> cpu =
        Map.of("service", 1500.0, "runner", 500.0, "host", 2300.0, "disk", 300.0);
    CpuFacts facts =
        new CpuFacts(
            List.of(
                new CpuUse("T2", "burst", 10_000, 1, 10_000, 3.0, cpu, true),
                new CpuUse("T2", "burst", 10_000, 2, 10_000, 3.0, cpu, true)),
            Map.of(),
            List.of(),
            Map.of("service", "the service", "runner", "the runner", "host", "the host"),
            true,
            List.of("host"));
    Analysis a = new Analysis(runs, Map.of(), "not run", List.of(), facts, "not run", Map.of());
    Files.writeString(
        dir.resolve(CapacityModelTable.specjmsFile("horizontal")),
        CapacityModelTable.specjmsRow(
                    "horizontal",
                    11,
                    12,
                    600,
                    Map.of("service", 400.0, "localstack", 800.0),
                    List.of("p90 delivery time"),
                    2,
                    1.0)
                .line()
            + "\n");
    new Report(a, Map.of(), List.of(), Map.of())
        .withStages(
            Map.of(
                "T2",
                Map.of(
                    "receive", 0.1, "route", 0.05, "deliver", 0.2, "settle", 0.05, "broker", 0.6)))
        .withSpecjms(CapacityModelTable.specjmsRows(dir))
        .write(dir);

    String md = Files.readString(dir.resolve("report.md"));
    int cores = Runtime.getRuntime().availableProcessors();
    assertThat(md).contains("## Capacity model: predicted beside measured");
    String t2 =
        md.lines()
            .filter(l -> l.startsWith("| T2 | 10,000 | 150.0 |"))
            .findFirst()
            .orElseThrow(() -> new AssertionError(md));
    assertThat(t2).contains("| 50.0 | 200.0 | 0.10 |").contains("| 4,000 |");
    assertThat(t2)
        .contains(String.format(java.util.Locale.ROOT, "| %,.0f |", (cores - 0.1) * 1e6 / 200));
    // stages: shares times the service's 150 µs/ev
    assertThat(md).contains("| T2 | 150.0 | 15.0 (10 %) | 7.5 (5 %) | 30.0 (20 %) | 7.5 (5 %) |");
    assertThat(md).contains("| horizontal | 600.0 |").contains("| 11 (12 failed) |");
  }
}
