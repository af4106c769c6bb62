package io.activityservice.perf.batching;

import io.activityservice.perf.report.Analysis;
import io.activityservice.perf.report.SvgChart;
import io.activityservice.perf.report.Table;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * Writes the batching sweep's report: {@code index.html} (charts in SVG, tables), {@code report.md}
 * and {@code results.csv} (one row per run), and judges the adaptive controller's two targets:
 * median latency at low load within 10 % of batch size 1, accepted throughput under overload within
 * 10 % of the best fixed size.
 */
final class SweepReport {

  private final List<SweepResult> results;
  private final double[] rates;
  private final double seconds;
  private final int reps;
  private final URI endpoint;
  private final Instant started;
  private final double loadBefore;
  private final double loadAfter;

  SweepReport(
      List<SweepResult> results,
      double[] rates,
      double seconds,
      int reps,
      URI endpoint,
      Instant started,
      double loadBefore,
      double loadAfter) {
    this.results = results;
    this.rates = rates;
    this.seconds = seconds;
    this.reps = reps;
    this.endpoint = endpoint;
    this.started = started;
    this.loadBefore = loadBefore;
    this.loadAfter = loadAfter;
  }

  /** Mean, min and max of a measure over the repetitions of one configuration and load. */
  record Stat(double mean, double min, double max) {}

  Stat stat(String config, String load, ToDoubleFunction<SweepResult> measure) {
    double sum = 0;
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    int n = 0;
    for (SweepResult r : results) {
      if (r.config().equals(config) && r.load().equals(load)) {
        double v = measure.applyAsDouble(r);
        if (Double.isFinite(v)) {
          sum += v;
          min = Math.min(min, v);
          max = Math.max(max, v);
          n++;
        }
      }
    }
    return n == 0 ? new Stat(Double.NaN, Double.NaN, Double.NaN) : new Stat(sum / n, min, max);
  }

  /** The adaptive median at low load over fixed size 1's. */
  double lowLoadLatencyRatio() {
    return stat("adaptive", "low", SweepResult::p50Millis).mean()
        / stat("fixed-1", "low", SweepResult::p50Millis).mean();
  }

  /** The adaptive throughput under overload over the best fixed size's. */
  double overloadThroughputRatio() {
    double best = 0;
    for (String c : BatchingSweep.CONFIGS) {
      if (c.startsWith("fixed")) {
        best = Math.max(best, stat(c, "overload", SweepResult::throughput).mean());
      }
    }
    return stat("adaptive", "overload", SweepResult::throughput).mean() / best;
  }

  private String bestFixedUnderOverload() {
    String best = null;
    double value = -1;
    for (String c : BatchingSweep.CONFIGS) {
      double v = stat(c, "overload", SweepResult::throughput).mean();
      if (c.startsWith("fixed") && v > value) {
        value = v;
        best = c;
      }
    }
    return best;
  }

  Table targets() {
    Table t = new Table("Target", "Measured", "");
    for (Analysis.Target v : verdicts()) {
      t.row(v.name(), v.measured(), v.status());
    }
    return t;
  }

  /** The controller's two targets, judged (as rows of the suite's target table in a full run). */
  List<Analysis.Target> verdicts() {
    double lat = lowLoadLatencyRatio();
    double tp = overloadThroughputRatio();
    return List.of(
        new Analysis.Target(
            "Adaptive batching (SQS send): median latency at low load ≤ 1.1× batch size 1's",
            String.format(
                Locale.ROOT,
                "%.2f ms vs %.2f ms (%.2f×)",
                stat("adaptive", "low", SweepResult::p50Millis).mean(),
                stat("fixed-1", "low", SweepResult::p50Millis).mean(),
                lat),
            Double.isFinite(lat) && lat <= 1.1 ? "met" : "missed",
            "batching",
            "sweep",
            0),
        new Analysis.Target(
            "Adaptive batching (SQS send): throughput under overload ≥ 0.9× the best fixed size's ("
                + bestFixedUnderOverload()
                + ")",
            String.format(
                Locale.ROOT,
                "%.0f vs %.0f ev/s (%.2f×)",
                stat("adaptive", "overload", SweepResult::throughput).mean(),
                stat(bestFixedUnderOverload(), "overload", SweepResult::throughput).mean(),
                tp),
            Double.isFinite(tp) && tp >= 0.9 ? "met" : "missed",
            "batching",
            "sweep",
            0));
  }

  Table summary() {
    Table t =
        new Table(
            "Load",
            "Offered ev/s",
            "Configuration",
            "Accepted ev/s",
            "p50 ms",
            "p99 ms",
            "Mean batch",
            "Requests",
            "Rejected");
    for (int l = 0; l < BatchingSweep.LOADS.size(); l++) {
      String load = BatchingSweep.LOADS.get(l);
      for (String c : BatchingSweep.CONFIGS) {
        t.row(
            load,
            fmt(rates[l]),
            c,
            fmt(stat(c, load, SweepResult::throughput).mean()),
            fmt(stat(c, load, SweepResult::p50Millis).mean()),
            fmt(stat(c, load, SweepResult::p99Millis).mean()),
            fmt(stat(c, load, SweepResult::meanBatch).mean()),
            fmt(stat(c, load, r -> r.requests()).mean()),
            fmt(stat(c, load, r -> r.rejected()).mean()));
      }
    }
    return t;
  }

  private String barsByConfig(
      String title, String yLabel, List<String> loads, ToDoubleFunction<SweepResult> m) {
    List<SvgChart.Bars> series = new ArrayList<>();
    for (String load : loads) {
      int k = BatchingSweep.CONFIGS.size();
      double[] mean = new double[k];
      double[] min = new double[k];
      double[] max = new double[k];
      for (int i = 0; i < k; i++) {
        Stat s = stat(BatchingSweep.CONFIGS.get(i), load, m);
        mean[i] = s.mean();
        min[i] = s.min();
        max[i] = s.max();
      }
      series.add(
          new SvgChart.Bars(
              load + " (" + fmt(rates[BatchingSweep.LOADS.indexOf(load)]) + " ev/s)",
              mean,
              min,
              max));
    }
    return SvgChart.bars(title, yLabel, BatchingSweep.CONFIGS, series);
  }

  void write(Path dir) throws IOException {
    Files.createDirectories(dir);
    String env =
        String.format(
            Locale.ROOT,
            "SQS endpoint %s; window %.1f s per run; %d repetitions, interleaved;"
                + " started %s; load average %.2f at start, %.2f at end; %d cores",
            endpoint,
            seconds,
            reps,
            started,
            loadBefore,
            loadAfter,
            Runtime.getRuntime().availableProcessors());
    String method =
        "Open-loop producer at a fixed rate; latency from each event's intended send time to SQS accepting"
            + " it (the send future); accepted throughput counted within the window. Fixed sizes send when the batch is"
            + " full or its oldest event waited 5 ms; adaptive chooses size and linger (≤ 10, ≤ 5 ms) from the observed"
            + " arrival rate and request latency (AdaptiveBatchPolicy). 8 requests in flight per channel.";
    StringBuilder md =
        new StringBuilder("# Batching sweep: SQS send batching, fixed sizes vs adaptive\n\n")
            .append(env)
            .append("\n\n")
            .append(method)
            .append("\n\n## Targets\n\n")
            .append(targets().markdown())
            .append("\n## Results (means over repetitions)\n\n")
            .append(summary().markdown());
    Files.writeString(dir.resolve("report.md"), md.toString());

    StringBuilder html =
        new StringBuilder(
                "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Batching sweep</title>"
                    + "<style>body{font-family:sans-serif;max-width:1000px;margin:auto}table{border-collapse:collapse}"
                    + "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}.ok{background:#dfd}.bad{background:#fdd}</style>"
                    + "</head><body><h1>Batching sweep: SQS send batching, fixed sizes vs adaptive</h1>")
            .append("<p>")
            .append(esc(env))
            .append("</p><p>")
            .append(esc(method))
            .append("</p>")
            .append("<h2>Targets</h2>")
            .append(targets().html())
            .append(
                barsByConfig(
                    "Median latency (intended send → accepted)",
                    "ms",
                    List.of("low", "medium"),
                    SweepResult::p50Millis))
            .append(
                barsByConfig(
                    "Accepted throughput",
                    "events/s",
                    BatchingSweep.LOADS,
                    SweepResult::throughput))
            .append(
                barsByConfig(
                    "Mean entries per SendMessageBatch",
                    "entries",
                    BatchingSweep.LOADS,
                    SweepResult::meanBatch))
            .append("<h2>Results (means over repetitions)</h2>")
            .append(summary().html())
            .append("</body></html>\n");
    Files.writeString(dir.resolve("index.html"), html.toString());

    StringBuilder csv =
        new StringBuilder(
            "config,load,offered_rate,rep,offered,accepted,rejected,throughput,p50_ms,"
                + "p99_ms,requests,mean_batch\n");
    for (SweepResult r : results) {
      csv.append(
          String.format(
              Locale.ROOT,
              "%s,%s,%.1f,%d,%d,%d,%d,%.1f,%.3f,%.3f,%d,%.2f%n",
              r.config(),
              r.load(),
              r.offeredRate(),
              r.rep(),
              r.offered(),
              r.accepted(),
              r.rejected(),
              r.throughput(),
              r.p50Millis(),
              r.p99Millis(),
              r.requests(),
              r.meanBatch()));
    }
    Files.writeString(dir.resolve("results.csv"), csv.toString());
  }

  private static String esc(String t) {
    return t.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }

  private static String fmt(double v) {
    if (!Double.isFinite(v)) {
      return "–";
    }
    return Math.abs(v) >= 100
        ? String.format(Locale.ROOT, "%.0f", v)
        : String.format(Locale.ROOT, "%.2f", v);
  }
}
