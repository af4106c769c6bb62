package io.activityservice.perf.batching;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sweep report's arithmetic and files, on made-up results (nothing timed). */
class SweepReportTest {

  private static SweepResult r(String config, String load, int rep, double throughput, double p50) {
    return new SweepResult(
        config, load, 100, rep, 500, (long) throughput * 5, 0, throughput, p50, p50 * 2, 50, 10);
  }

  private static SweepReport report() {
    List<SweepResult> results = new ArrayList<>();
    for (int rep = 1; rep <= 2; rep++) {
      for (String c : BatchingSweep.CONFIGS) {
        results.add(
            r(
                c,
                "low",
                rep,
                20,
                c.equals("fixed-1") ? 10 : c.equals("adaptive") ? 10.5 + rep : 15));
        results.add(r(c, "medium", rep, 400, 12));
        double overload =
            switch (c) {
              case "fixed-1" -> 300;
              case "fixed-10" -> 2000;
              case "adaptive" -> 1900;
              default -> 1000;
            };
        results.add(r(c, "overload", rep, overload, 500));
      }
    }
    return new SweepReport(
        results, new double[] {20, 400, 4000}, 5, 2, URI.create("http://x"), Instant.EPOCH, 1, 2);
  }

  @Test
  void ratiosCompareAdaptiveWithSizeOneAtLowLoadAndTheBestFixedSizeUnderOverload() {
    SweepReport report = report();
    assertEquals(12.0 / 10.0, report.lowLoadLatencyRatio(), 1e-9); // adaptive means 11.5 and 12.5
    assertEquals(1900.0 / 2000.0, report.overloadThroughputRatio(), 1e-9);
    assertEquals(11.5, report.stat("adaptive", "low", SweepResult::p50Millis).min(), 1e-9);
  }

  @Test
  void writesHtmlMarkdownAndCsv(@TempDir Path dir) throws Exception {
    report().write(dir);
    String md = Files.readString(dir.resolve("report.md"));
    assertTrue(md.contains("| Adaptive batching (SQS send): throughput under overload"), md);
    assertTrue(md.contains("missed"), "1.2× at low load misses the 1.1× target");
    assertTrue(Files.readString(dir.resolve("index.html")).contains("<svg"));
    assertEquals(
        1 + 2 * 3 * BatchingSweep.CONFIGS.size(),
        Files.readAllLines(dir.resolve("results.csv")).size());
  }
}
