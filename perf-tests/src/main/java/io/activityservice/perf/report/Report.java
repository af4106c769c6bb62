package io.activityservice.perf.report;

import io.activityservice.perf.service.JfrProfile;
import io.activityservice.perf.stats.Stats;
import io.activityservice.perf.suite.RunResult;
import io.activityservice.perf.suite.Scenario;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Writes report.md and index.html (same tables; the HTML adds inline SVG charts) from an {@link Analysis}.
 */
public final class Report {

  /** Paper's Table I (JMS 500 events, 10 runs) alone / via OM4SPACE. */
  static final double[][] PAPER_TABLE_I = {{851, 836, 3956, 3895, 1525, 713, 3865, 3835, 4023, 887},
      {6300, 3942, 3484, 4247, 3323, 4522, 3360, 5247, 4168, 4258}};
  /** Paper's Table II (SQS 500 events, 10 runs) alone / via OM4SPACE. */
  static final double[][] PAPER_TABLE_II = {{65206, 65489, 66067, 64678, 67736, 65099, 64350, 65396, 65240, 64476},
      {265602, 264818, 270338, 264498, 264092, 270603, 266591, 266645, 268499, 262867}};

  private final Analysis a;
  private final Map<String, String> environment;
  private final List<String> notes;
  private final Map<String, Object> profiles;
  private final StringBuilder md = new StringBuilder();
  private final StringBuilder html = new StringBuilder();

  /**
   * @param profiles target name → {@link JfrProfile} or a String saying why there is none
   */
  public Report(Analysis a, Map<String, String> environment, List<String> notes, Map<String, Object> profiles) {
    this.a = a;
    this.environment = environment;
    this.notes = notes;
    this.profiles = profiles;
  }

  /** Writes both files into {@code dir}. */
  public void write(Path dir) throws IOException {
    build();
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("report.md"), md);
    String page = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Activity Service performance report</title>\n"
        + "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
        + "table{border-collapse:collapse;margin:1em 0;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;text-align:left}"
        + "th{background:#f3f3f3}.ok{background:#e3f5e1}.bad{background:#fbe3e3}svg{margin:.5em 1em .5em 0}"
        + "pre{background:#f6f6f6;padding:.5em;overflow-x:auto;font-size:12px}</style></head><body>\n"
        + html + "</body></html>\n";
    Files.writeString(dir.resolve("index.html"), page);
  }

  private void build() {
    heading(1, "Activity Service performance report");
    para("Channel-to-channel measurements in the method of the original Activity Service evaluation (burst mode, "
        + "T1–T6, time from the first send to the last receive, N = 100/500/1000 with repetitions) plus Kafka and REST "
        + "rows, larger bursts for throughput, open-loop latency at fixed rates (per-event latency from the intended "
        + "send time, HdrHistogram) and the service's overhead over each direct path. Raw data: results.csv and one "
        + "HdrHistogram log per scenario (*.hlog, microseconds).");
    environment();
    targets();
    bursts();
    paperTables();
    overhead();
    paced();
    cep();
    hypotheses();
    profiles();
    if (!notes.isEmpty()) {
      heading(2, "Notes");
      list(notes);
    }
  }

  private void environment() {
    heading(2, "Environment");
    Table t = new Table("item", "value");
    environment.forEach(t::row);
    table(t);
  }

  private void targets() {
    heading(2, "Targets");
    Table t = new Table("target", "measured", "status");
    for (Analysis.Target x : a.targets()) {
      t.row(x.name(), x.measured(), x.status());
    }
    table(t);
  }

  private void bursts() {
    heading(2, "Burst mode: first send to last receive");
    para("Mean, min and max over the repetitions (ms), like the paper's Figures 4/5 and Tables I/II; throughput = N / mean time. "
        + "Repetitions are interleaved across scenarios. p50/p99 = median over the repetitions of each burst's per-event latency.");
    Table t = new Table("scenario", "path", "N", "reps", "mean ms", "min ms", "max ms", "sd ms", "ev/s", "p50 ms", "p99 ms", "lost/dup");
    for (Scenario s : Scenario.all()) {
      for (int n : a.burstSizes()) {
        List<RunResult> runs = a.runs(s.id(), "burst", n);
        if (runs.isEmpty()) {
          continue;
        }
        double[] ms = runs.stream().mapToDouble(RunResult::millis).toArray();
        long lost = runs.stream().mapToLong(RunResult::lost).sum();
        long dup = runs.stream().mapToLong(RunResult::duplicates).sum();
        t.row(s.id(), s.title(), n, runs.size(), f0(Stats.mean(ms)), f0(Stats.min(ms)), f0(Stats.max(ms)), f0(Stats.stddev(ms)),
            f0(n / (Stats.mean(ms) / 1000)), f2(med(runs, 50)), f2(med(runs, 99)), lost + "/" + dup);
      }
    }
    table(t);
    List<Integer> small = a.burstSizes().stream().filter(n -> n <= 1000).toList();
    chartPair("Figure 4 style: JMS alone (T1) vs JMS via service (T2)", "T1", "T2", small);
    chartPair("Figure 5 style: SQS alone (T3) vs SQS via service (T4)", "T3", "T4", small);
    chartPair("Kafka alone (K1) vs via service (K2)", "K1", "K2", small);
    List<SvgChart.Line> tp = new ArrayList<>();
    for (Scenario s : Scenario.all()) {
      List<Integer> ns = a.burstSizes().stream().filter(n -> a.burst(s.id(), n).isPresent()).toList();
      if (!ns.isEmpty()) {
        tp.add(new SvgChart.Line(s.id(), ns.stream().mapToDouble(Integer::doubleValue).toArray(),
            ns.stream().mapToDouble(n -> a.burst(s.id(), n).get().throughput()).toArray()));
      }
    }
    svg(SvgChart.lines("Burst throughput over N", "N (events)", "events/s", true, true, tp));
  }

  private void chartPair(String title, String direct, String via, List<Integer> sizes) {
    List<String> cats = sizes.stream().map(n -> "N=" + n).toList();
    List<SvgChart.Bars> series = new ArrayList<>();
    for (String id : List.of(direct, via)) {
      double[] mean = new double[sizes.size()];
      double[] min = new double[sizes.size()];
      double[] max = new double[sizes.size()];
      boolean any = false;
      for (int i = 0; i < sizes.size(); i++) {
        Optional<Analysis.BurstSummary> b = a.burst(id, sizes.get(i));
        mean[i] = b.map(Analysis.BurstSummary::mean).orElse(Double.NaN);
        min[i] = b.map(x -> Stats.min(x.millis())).orElse(Double.NaN);
        max[i] = b.map(x -> Stats.max(x.millis())).orElse(Double.NaN);
        any |= b.isPresent();
      }
      if (any) {
        series.add(new SvgChart.Bars(id, mean, min, max));
      }
    }
    if (!series.isEmpty()) {
      svg(SvgChart.bars(title, "ms, first send to last receive", cats, series));
    }
  }

  private void paperTables() {
    heading(2, "Tables I and II: 500 events, each repetition, ours beside the paper's");
    for (String[] pair : new String[][] {{"T1", "T2", "I"}, {"T3", "T4", "II"}}) {
      double[][] paper = pair[2].equals("I") ? PAPER_TABLE_I : PAPER_TABLE_II;
      List<RunResult> d = a.runs(pair[0], "burst", 500);
      List<RunResult> v = a.runs(pair[1], "burst", 500);
      Table t = new Table("run", "paper alone ms", "paper via OM4 ms", "ours " + pair[0] + " ms", "ours " + pair[1] + " ms");
      for (int i = 0; i < 10; i++) {
        t.row(i + 1, f0(paper[0][i]), f0(paper[1][i]), i < d.size() ? f1(d.get(i).millis()) : "", i < v.size() ? f1(v.get(i).millis()) : "");
      }
      t.row("mean", f0(Stats.mean(paper[0])), f0(Stats.mean(paper[1])),
          f1(d.stream().mapToDouble(RunResult::millis).average().orElse(Double.NaN)),
          f1(v.stream().mapToDouble(RunResult::millis).average().orElse(Double.NaN)));
      para("Table " + pair[2] + " (" + (pair[2].equals("I") ? "JMS" : "SQS") + "):");
      table(t);
    }
  }

  private void overhead() {
    heading(2, "Overhead: via service vs direct counterpart (same run)");
    para("Ratio of mean totals with a bootstrap 95 % CI (10,000 resamples of the repetitions); the counterpart is the slower "
        + "direct leg of the path. Added p50/p99 = difference of the medians of the bursts' per-event percentiles.");
    Table t = new Table("via", "direct", "N", "ratio of totals", "95 % CI", "throughput ratio", "added p50 ms", "added p99 ms");
    for (Analysis.Overhead o : a.overheads()) {
      t.row(o.via(), o.direct(), o.n(), f2(o.ratio().estimate()), "[" + f2(o.ratio().low()) + ", " + f2(o.ratio().high()) + "]",
          f2(1 / o.ratio().estimate()), f2(o.addedP50Ms()), f2(o.addedP99Ms()));
    }
    table(t);
    Table p = new Table("via", "direct", "rate ev/s", "p50 via", "p50 direct", "added p50 ms", "p99 via", "p99 direct", "added p99 ms");
    for (String[] pair : new String[][] {{"T2", "T1"}, {"T4", "T3"}, {"K2", "K1"}}) {
      for (RunResult v : a.pacedRuns(pair[0])) {
        a.paced(pair[1], v.offeredRate()).ifPresent(d -> p.row(pair[0], pair[1], f0(v.offeredRate()),
            f2(v.percentileMillis(50)), f2(d.percentileMillis(50)), f2(v.percentileMillis(50) - d.percentileMillis(50)),
            f2(v.percentileMillis(99)), f2(d.percentileMillis(99)), f2(v.percentileMillis(99) - d.percentileMillis(99))));
      }
    }
    para("Open loop, same offered rate:");
    table(p);
  }

  private void paced() {
    heading(2, "Latency mode (open loop, coordinated-omission-free)");
    para("A producer thread sends at a fixed rate; each event's latency is measured from its intended send time. "
        + "A rate is sustained when every event arrived exactly once, the producer kept ≥ 90 % of the rate and p99 ≤ the bound.");
    Table t = new Table("scenario", "offered ev/s", "achieved send ev/s", "events", "received", "p50 ms", "p90 ms", "p99 ms",
        "p99.9 ms", "max ms", "sustained");
    List<SvgChart.Line> p99 = new ArrayList<>();
    List<SvgChart.Line> achieved = new ArrayList<>();
    for (Scenario s : Scenario.all()) {
      List<RunResult> runs = a.pacedRuns(s.id());
      if (runs.isEmpty()) {
        continue;
      }
      for (RunResult r : runs) {
        t.row(s.id(), f0(r.offeredRate()), f0(r.n() / r.sendSeconds()), r.n(), r.received(), f2(r.percentileMillis(50)),
            f2(r.percentileMillis(90)), f2(r.percentileMillis(99)), f2(r.percentileMillis(99.9)), f2(r.maxMillis()),
            r.offeredRate() <= a.sustainable().getOrDefault(s.id(), 0.0) && r.exactlyOnce() ? "yes" : "no");
      }
      double[] x = runs.stream().mapToDouble(RunResult::offeredRate).toArray();
      p99.add(new SvgChart.Line(s.id() + " p99", x, runs.stream().mapToDouble(r -> r.percentileMillis(99)).toArray()));
      achieved.add(new SvgChart.Line(s.id(), x, runs.stream().mapToDouble(r -> r.seconds() > 0 ? r.received() / r.seconds() : 0).toArray()));
    }
    table(t);
    Table sus = new Table("scenario", "highest sustained rate ev/s");
    a.sustainable().forEach((k, v) -> sus.row(k, f0(v)));
    table(sus);
    svg(SvgChart.lines("p99 latency vs offered rate", "offered events/s", "p99 ms", true, true, p99));
    svg(SvgChart.lines("Throughput vs offered rate", "offered events/s", "received events/s", true, true, achieved));
    for (String[] pair : new String[][] {{"T1", "T2", "1000"}, {"T3", "T4", "200"}, {"K1", "K2", "1000"}}) {
      double rate = Double.parseDouble(pair[2]);
      List<SvgChart.Line> curves = new ArrayList<>();
      for (String id : List.of(pair[0], pair[1])) {
        a.paced(id, rate).ifPresent(r -> curves.add(percentileCurve(id, r)));
      }
      if (!curves.isEmpty()) {
        svg(SvgChart.lines("Latency percentiles at " + pair[2] + " ev/s: " + pair[0] + " vs " + pair[1],
            "percentile (1/(1−p): 10 = p90, 100 = p99, 1000 = p99.9)", "ms", true, true, curves));
      }
    }
  }

  private static SvgChart.Line percentileCurve(String id, RunResult r) {
    double[] ps = {50, 75, 90, 95, 99, 99.5, 99.9, 99.99};
    double[] x = new double[ps.length];
    double[] y = new double[ps.length];
    for (int i = 0; i < ps.length; i++) {
      x[i] = 100 / (100 - ps[i]);
      y[i] = r.percentileMillis(ps[i]);
    }
    return new SvgChart.Line(id, x, y);
  }

  private void cep() {
    heading(2, "Relay-only vs 10 detectors + 10 rules (JMS → service → JMS)");
    para("Status: " + a.cepStatus());
    Table t = new Table("mode", "rep", "N", "ms", "ev/s", "p50 ms", "p99 ms", "exactly once");
    for (String mode : List.of("relay", "cep")) {
      for (RunResult r : a.runs("C1", mode, -1)) {
        t.row(mode, r.rep(), r.n(), f0(r.millis()), f0(r.throughput()), f2(r.percentileMillis(50)), f2(r.percentileMillis(99)),
            r.exactlyOnce());
      }
    }
    table(t);
  }

  private void hypotheses() {
    heading(2, "Hypotheses H1–H8 on our data");
    para("Test: percentile bootstrap 95 % confidence interval (10,000 resamples, seed 42) of a ratio of mean burst times. "
        + "H1/H2 hold when the CI of mean(via)/mean(direct) lies above 1 at every N; H3/H4 when the CI of the ratio excludes 1 "
        + "at every N; H5–H8 when the CI of t(largest N)/t(smallest N) of the paper's sizes excludes 1.");
    Table t = new Table("H", "hypothesis", "test", "ours", "paper", "verdict");
    for (Analysis.Hypothesis h : a.hypotheses()) {
      t.row(h.id(), h.statement(), h.test(), h.ours(), h.paper(), h.verdict());
    }
    table(t);
  }

  private void profiles() {
    if (profiles.isEmpty()) {
      return;
    }
    heading(2, "Where the time goes (missed targets, JFR of the service during the scenario)");
    para("From the service's continuous JFR recording (settings=default, execution samples every 20 ms per running thread), "
        + "cut to the wall-clock windows of the scenario's runs.");
    profiles.forEach((target, p) -> {
      heading(3, target);
      if (p instanceof JfrProfile jp) {
        para(jp.samples() + " execution samples.");
        Table self = new Table("top of stack (self)", "samples", "%");
        jp.self().forEach((m, c) -> self.row(m, c, f1(100.0 * c / Math.max(1, jp.samples()))));
        table(self);
        Table inc = new Table("project method (inclusive)", "samples", "%");
        jp.inclusive().forEach((m, c) -> inc.row(m, c, f1(100.0 * c / Math.max(1, jp.samples()))));
        table(inc);
        Table th = new Table("thread", "samples");
        jp.threads().forEach(th::row);
        table(th);
      } else {
        para(String.valueOf(p));
      }
    });
  }

  private static double med(List<RunResult> runs, double p) {
    return Stats.quantile(runs.stream().mapToDouble(r -> r.percentileMillis(p)).toArray(), 0.5);
  }

  private void heading(int level, String text) {
    md.append("#".repeat(level)).append(' ').append(text).append("\n\n");
    html.append("<h").append(level).append('>').append(SvgChart.esc(text)).append("</h").append(level).append(">\n");
  }

  private void para(String text) {
    md.append(text).append("\n\n");
    html.append("<p>").append(SvgChart.esc(text)).append("</p>\n");
  }

  private void list(List<String> items) {
    items.forEach(i -> md.append("- ").append(i).append('\n'));
    md.append('\n');
    html.append("<ul>");
    items.forEach(i -> html.append("<li>").append(SvgChart.esc(i)).append("</li>"));
    html.append("</ul>\n");
  }

  private void table(Table t) {
    md.append(t.markdown()).append('\n');
    html.append(t.html());
  }

  private void svg(String svg) {
    html.append(svg);
  }

  static String f0(double v) {
    return Double.isFinite(v) ? String.format(Locale.ROOT, "%,.0f", v) : "-";
  }

  static String f1(double v) {
    return Double.isFinite(v) ? String.format(Locale.ROOT, "%,.1f", v) : "-";
  }

  static String f2(double v) {
    return Double.isFinite(v) ? String.format(Locale.ROOT, "%.2f", v) : "-";
  }
}
