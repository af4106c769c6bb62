package io.activityservice.perf.report;

import io.activityservice.perf.stats.Stats;
import io.activityservice.perf.suite.RunResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * "Before/after": an earlier run's {@code results.csv} (e.g. with the previous service jar) beside
 * this run, per scenario, mode and N (bursts) or offered rate (paced runs): median p50 and p99 over
 * the runs, and the mean time of the bursts. Columns are found by their header names, so older
 * files with fewer columns work.
 */
public final class Baseline {

  private Baseline() {}

  /**
   * One run as the comparison needs it.
   *
   * @param scenario scenario id
   * @param mode run mode
   * @param n events
   * @param offeredRate offered rate (paced runs), else 0
   * @param millis first send to last receive
   * @param p50 median latency, ms
   * @param p99 p99 latency, ms
   */
  public record Row(
      String scenario,
      String mode,
      int n,
      double offeredRate,
      double millis,
      double p50,
      double p99) {

    /** The row of a run of this suite. */
    static Row of(RunResult r) {
      return new Row(
          r.scenario(),
          r.mode(),
          r.n(),
          r.offeredRate(),
          r.millis(),
          r.percentileMillis(50),
          r.percentileMillis(99));
    }

    String key() {
      return scenario
          + "|"
          + mode
          + "|"
          + (mode.equals("rate") ? "r" + Math.round(offeredRate) : "n" + n);
    }

    String size() {
      return mode.equals("rate") ? String.format(Locale.ROOT, "%,.0f ev/s", offeredRate) : "N=" + n;
    }
  }

  /**
   * One scenario, mode and size in both runs (NaN where a run has none).
   *
   * @param scenario scenario id
   * @param mode run mode
   * @param size {@code N=500} or {@code 1,000 ev/s}
   * @param runsBefore runs in the baseline
   * @param runsAfter runs in this run
   * @param p50Before median over the baseline's runs of their p50 (ms)
   * @param p50After the same for this run
   * @param p99Before median of p99 (ms), baseline
   * @param p99After median of p99 (ms), this run
   * @param msBefore mean time of the baseline's bursts (ms); NaN for paced runs
   * @param msAfter mean time of this run's bursts (ms); NaN for paced runs
   */
  public record Comparison(
      String scenario,
      String mode,
      String size,
      int runsBefore,
      int runsAfter,
      double p50Before,
      double p50After,
      double p99Before,
      double p99After,
      double msBefore,
      double msAfter) {

    /** This run's mean time over the baseline's (NaN if either is missing). */
    public double timeRatio() {
      return msAfter / msBefore;
    }
  }

  /** Reads a results.csv. */
  public static List<Row> read(Path csv) throws IOException {
    return parse(Files.readAllLines(csv));
  }

  /** Parses the lines of a results.csv (header first). */
  public static List<Row> parse(List<String> lines) {
    if (lines.isEmpty()) {
      throw new IllegalArgumentException("empty results file");
    }
    List<String> header = List.of(lines.get(0).trim().split(","));
    int scenario = column(header, "scenario");
    int mode = column(header, "mode");
    int n = column(header, "n");
    int rate = column(header, "offered_rate");
    int seconds = column(header, "seconds");
    int p50 = column(header, "p50_ms");
    int p99 = column(header, "p99_ms");
    List<Row> rows = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      if (line.isBlank()) {
        continue;
      }
      String[] f = line.split(",", -1);
      rows.add(
          new Row(
              f[scenario],
              f[mode],
              Integer.parseInt(f[n]),
              Double.parseDouble(f[rate]),
              Double.parseDouble(f[seconds]) * 1000,
              Double.parseDouble(f[p50]),
              Double.parseDouble(f[p99])));
    }
    return rows;
  }

  private static int column(List<String> header, String name) {
    int i = header.indexOf(name);
    if (i < 0) {
      throw new IllegalArgumentException(
          "results file has no column " + name + " (header: " + header + ")");
    }
    return i;
  }

  /** This run's results as rows. */
  public static List<Row> rows(List<RunResult> results) {
    return results.stream().map(Row::of).toList();
  }

  /**
   * Both runs side by side: this run's scenarios in its order first, then any the baseline alone
   * has.
   */
  public static List<Comparison> compare(List<Row> before, List<Row> after) {
    Map<String, List<Row>> b = group(before);
    Map<String, List<Row>> a = group(after);
    Map<String, Row> first = new LinkedHashMap<>();
    after.forEach(r -> first.putIfAbsent(r.key(), r));
    before.forEach(r -> first.putIfAbsent(r.key(), r));
    List<Comparison> out = new ArrayList<>();
    first.forEach(
        (key, r) -> {
          List<Row> x = b.getOrDefault(key, List.of());
          List<Row> y = a.getOrDefault(key, List.of());
          boolean paced = r.mode().equals("rate");
          out.add(
              new Comparison(
                  r.scenario(),
                  r.mode(),
                  r.size(),
                  x.size(),
                  y.size(),
                  median(x, Row::p50),
                  median(y, Row::p50),
                  median(x, Row::p99),
                  median(y, Row::p99),
                  paced ? Double.NaN : mean(x),
                  paced ? Double.NaN : mean(y)));
        });
    return out;
  }

  private static Map<String, List<Row>> group(List<Row> rows) {
    Map<String, List<Row>> m = new LinkedHashMap<>();
    rows.forEach(r -> m.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r));
    return m;
  }

  private static double median(List<Row> rows, java.util.function.ToDoubleFunction<Row> f) {
    return Stats.quantile(rows.stream().mapToDouble(f).filter(Double::isFinite).toArray(), 0.5);
  }

  private static double mean(List<Row> rows) {
    return Stats.mean(rows.stream().mapToDouble(Row::millis).toArray());
  }
}
