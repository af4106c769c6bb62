package io.activityservice.perf.report;

import io.activityservice.perf.cpu.CpuCost;
import io.activityservice.perf.profile.Stages;
import io.activityservice.perf.profile.SyscallCount;
import io.activityservice.perf.service.JfrProfile;
import io.activityservice.perf.stats.Stats;
import io.activityservice.perf.suite.HopBreakdown;
import io.activityservice.perf.suite.RateLadder;
import io.activityservice.perf.suite.RateStep;
import io.activityservice.perf.suite.RunResult;
import io.activityservice.perf.suite.Scenario;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Writes report.md and index.html (same tables; the HTML adds inline SVG charts) from an {@link
 * Analysis}.
 */
public final class Report {

  /** Paper's Table I (JMS 500 events, 10 runs) alone / via OM4SPACE. */
  static final double[][] PAPER_TABLE_I = {
    {851, 836, 3956, 3895, 1525, 713, 3865, 3835, 4023, 887},
    {6300, 3942, 3484, 4247, 3323, 4522, 3360, 5247, 4168, 4258}
  };

  /** Paper's Table II (SQS 500 events, 10 runs) alone / via OM4SPACE. */
  static final double[][] PAPER_TABLE_II = {
    {65206, 65489, 66067, 64678, 67736, 65099, 64350, 65396, 65240, 64476},
    {265602, 264818, 270338, 264498, 264092, 270603, 266591, 266645, 268499, 262867}
  };

  private final Analysis a;
  private final Map<String, String> environment;
  private final List<String> notes;
  private final Map<String, Object> profiles;
  private final List<Baseline.Comparison> baseline;
  private final String baselineName;
  private RelayCost relay;
  private Map<String, Map<String, Double>> hops = Map.of();
  private Map<String, RelayCost.Row> before = Map.of();
  private final StringBuilder md = new StringBuilder();
  private List<CapacityModelTable.SpecjmsRow> specjms = List.of();
  private Map<String, Map<String, Double>> stages = Map.of();
  private final StringBuilder html = new StringBuilder();

  /**
   * @param profiles target name → {@link JfrProfile} or a String saying why there is none
   */
  public Report(
      Analysis a,
      Map<String, String> environment,
      List<String> notes,
      Map<String, Object> profiles) {
    this(a, environment, notes, profiles, List.of(), null);
  }

  /**
   * A report with a "before/after" table.
   *
   * @param baseline this run beside an earlier one (empty: no table)
   * @param baselineName what the earlier run was (its results.csv path)
   */
  public Report(
      Analysis a,
      Map<String, String> environment,
      List<String> notes,
      Map<String, Object> profiles,
      List<Baseline.Comparison> baseline,
      String baselineName) {
    this.a = a;
    this.environment = environment;
    this.notes = notes;
    this.profiles = profiles;
    this.baseline = baseline;
    this.baselineName = baselineName;
  }

  /**
   * Adds the relay's cost in steady state (issue 20): its target table (with the baseline run's
   * rows as "before", by key), the Camel peer beside the service, steadiness, counts per event,
   * paced CPU and flame graphs.
   */
  public Report withRelayCost(RelayCost relay, Map<String, RelayCost.Row> before) {
    this.relay = relay;
    this.before = before == null ? Map.of() : before;
    return this;
  }

  /**
   * Adds the per-hop breakdown of each scenario (issue 23): per scenario, per hop, mean
   * milliseconds inside the service (see {@link HopBreakdown}).
   */
  public Report withHops(Map<String, Map<String, Double>> hops) {
    this.hops = hops == null ? Map.of() : hops;
    return this;
  }

  /**
   * Adds the capacity model's SPECjms rows that earlier {@code --specjms-search} runs left in the
   * report directory ({@link CapacityModelTable#specjmsRows}).
   */
  public Report withSpecjms(List<CapacityModelTable.SpecjmsRow> rows) {
    this.specjms = rows == null ? List.of() : rows;
    return this;
  }

  /**
   * Adds the per-stage split of the service's CPU per profiled path (stage → share of its CPU
   * profile, {@link io.activityservice.perf.profile.Stages}).
   */
  public Report withStages(Map<String, Map<String, Double>> stages) {
    this.stages = stages == null ? Map.of() : stages;
    return this;
  }

  /** Writes both files into {@code dir}. */
  public void write(Path dir) throws IOException {
    build();
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("report.md"), md);
    String page =
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Activity Service performance report</title>\n"
            + "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
            + "table{border-collapse:collapse;margin:1em 0;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;text-align:left}"
            + "th{background:#f3f3f3}.ok{background:#e3f5e1}.bad{background:#fbe3e3}svg{margin:.5em 1em .5em 0}"
            + "pre{background:#f6f6f6;padding:.5em;overflow-x:auto;font-size:12px}</style></head><body>\n"
            + html
            + "</body></html>\n";
    Files.writeString(dir.resolve("index.html"), page);
  }

  private void build() {
    heading(1, "Activity Service performance report");
    para(
        "Channel-to-channel measurements in the method of the original Activity Service evaluation (burst mode, "
            + "T1–T6, time from the first send to the last receive, N = 100/500/1000 with repetitions) plus Kafka and REST "
            + "rows, larger bursts for throughput, open-loop latency at fixed rates (per-event latency from the intended "
            + "send time, HdrHistogram), the service's overhead over each direct path, a healthy subscription beside a "
            + "failing one (I1) and the CPU time per relayed event. Raw data: results.csv, cpu.csv and one "
            + "HdrHistogram log per scenario (*.hlog, microseconds).");
    environment();
    relayTargets();
    targets();
    peer();
    steadiness();
    bursts();
    hopBreakdown();
    paperTables();
    overhead();
    paced();
    isolation();
    cpu();
    capacityModel();
    cep();
    beforeAfter();
    hypotheses();
    profiles();
    if (!notes.isEmpty()) {
      heading(2, "Notes");
      list(notes);
    }
  }

  /**
   * Where each scenario's time went inside the service, from the service's per-hop timers scraped
   * around each measured burst; the rest of an event's latency is the transports' (producer →
   * broker → service, service → broker → consumer).
   */
  private void hopBreakdown() {
    heading(2, "Per-hop breakdown inside the service");
    if (hops.isEmpty()) {
      para(
          "Not measured: the service's per-hop timers (activity_hop_*) were not readable at "
              + "/actuator/prometheus (see Notes).");
      return;
    }
    para(
        "Mean milliseconds per event and hop, from the service's per-hop timers (activity.hop.*, "
            + "docs/tracing.md) scraped before and after each measured burst: ingest (validation), "
            + "route (matching), parked (parked until a retry delivered it) and send (handed to the "
            + "target channel until it acknowledged). Transport wait is measured from the event's "
            + "time, which the benchmark's events fix (so it is left out here); the rest of each "
            + "path's latency in the burst tables is the transports' (producer → broker → service "
            + "receive, service → broker → consumer) and queueing within the burst.");
    List<String> columns = HopBreakdown.HOPS.stream().filter(h -> !h.equals("transport")).toList();
    List<String> headers = new ArrayList<>(List.of("scenario"));
    columns.forEach(h -> headers.add(h + " ms"));
    Table t = new Table(headers.toArray(String[]::new));
    hops.forEach(
        (scenario, row) -> {
          List<Object> cells = new ArrayList<>(List.of(scenario));
          columns.forEach(
              h -> cells.add(row.containsKey(h) ? String.format("%.3f", row.get(h)) : "–"));
          t.row(cells.toArray());
        });
    table(t);
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

  private void relayTargets() {
    if (relay == null) {
      return;
    }
    heading(2, "Relay cost in steady state: targets of issue 20");
    RelayCost.Facts f = relay.facts();
    para(
        String.format(
            Locale.ROOT,
            "CPU per relayed event = CPU time of the relaying process's own threads (without its"
                + " JIT compiler and JFR threads), net of its idle rate, over the bursts of %,d events whose window had the JIT"
                + " compiler threads below %.0f %% of that CPU (at least %d such bursts per figure; the suite repeats bursts up"
                + " to a bound and marks a figure \"not steady\" otherwise), after the warm-up. Before = %s, after = this run. A missed target links the flame"
                + " graphs of its path.",
            f.n(),
            f.maxJitShare() * 100,
            f.needed(),
            beforeSource()));
    Table t = new Table("target", "before", "after", "status", "flame graphs");
    for (RelayCost.Row r : relay.targets()) {
      RelayCost.Row b = before.get(r.key());
      t.row(
          r.target(),
          b == null ? "-" : b.figure() + " (" + b.status() + ")",
          r.figure(),
          r.status(),
          r.status().startsWith("missed") && r.scenario() != null ? links(r.scenario()) : "");
    }
    table(t);
  }

  /**
   * What the "before" column of the relay targets is: the --compare-jar run, another run's rows, or
   * nothing.
   */
  private String beforeSource() {
    if (before.isEmpty()) {
      return "none (no --baseline or --compare-jar)";
    }
    if (baselineName == null || baselineName.endsWith("baseline/results.csv")) {
      return "the --compare-jar run (the older jar, same options, an earlier window of the same run)";
    }
    return "the rows of the --baseline run ("
        + baselineName.replace("results.csv", "relay-targets.tsv")
        + "), measured at another time, possibly with other options";
  }

  /**
   * Links to a path's flame graphs (markdown and HTML render them as text with the relative paths).
   */
  private String links(String scenario) {
    Map<String, String> g = relay.facts().flameGraphs().get(scenario);
    if (g == null || g.isEmpty()) {
      return "none (profiles run in full mode: --profile)";
    }
    List<String> out = new ArrayList<>();
    for (String kind : List.of("cpu", "alloc")) {
      String v = g.get(kind);
      if (v != null) {
        out.add(v.startsWith("profiles/") ? kind + ": " + v : kind + ": " + v);
      }
    }
    return String.join("; ", out);
  }

  private void peer() {
    if (relay == null) {
      return;
    }
    heading(2, "The Camel peer beside the service");
    para(
        "A plain Apache Camel 4 relay (module perf-peer-camel: Spring Boot 4, camel-jms with a pooled connection "
            + "factory, camel-aws2-sqs, camel-kafka; its own process, started with the same JVM flags) on the same brokers "
            + "with the same events, its paths measured interleaved with the service's. JMS source: the virtual topic's "
            + "consumer queue Consumer.camel.<topic>, the same kind of source the service's jms:topic: inbound consumes "
            + "(the broker copies each topic message into every Consumer.*.<topic> queue), so broker work is alike on both "
            + "sides; 4 consumers, each on a locally transacted session with the send inside it (one commit per message); "
            + "SQS: 4 polling consumers receiving 10 per request. Routes and settings: the environment "
            + "table's 'setting: peer'. Status: "
            + relay.facts().peerStatus());
    Table t =
        new Table(
            "path",
            "relay",
            "scenario",
            String.format(Locale.ROOT, "burst %,d mean ms", relay.facts().n()),
            "burst ev/s",
            "sustained ev/s",
            "p50 / p99 ms at reference rate",
            "CPU µs/event (own, net)",
            "steady state",
            "idle ms/s");
    for (String[] p : RelayCost.PEER_PATHS) {
      for (String id : List.of(p[1], p[2])) {
        String process = id.startsWith("C") ? "camel" : "service";
        java.util.OptionalDouble ms = relay.burstMillis(id);
        double ref =
            id.equals("T2") || id.equals("CT2") || id.equals("K2") || id.equals("CK2") ? 1000 : 200;
        Double sus = a.sustainable().get(id);
        t.row(
            p[0],
            process,
            id,
            ms.isPresent() ? f0(ms.getAsDouble()) : "-",
            ms.isPresent() ? f0(relay.facts().n() / (ms.getAsDouble() / 1000)) : "-",
            sus == null ? "-" : f0(sus),
            a.pacedRuns(id, ref).isEmpty()
                ? "-"
                : f2(a.pacedMedian(id, ref, 50))
                    + " / "
                    + f2(a.pacedMedian(id, ref, 99))
                    + " ("
                    + f0(ref)
                    + " ev/s)",
            relay.cpuPerEvent(id, process).isPresent()
                ? f1(relay.cpuPerEvent(id, process).getAsDouble())
                : "-",
            relay.selection(id).verdict(),
            f2(relay.idle(process)));
      }
    }
    table(t);
  }

  private void steadiness() {
    if (relay == null) {
      return;
    }
    heading(2, "Steady state, counts per event, profiles");
    para(
        "Per path: the bursts of the figures' size, their JIT share and which counted; per relayed event over those "
            + "bursts: context switches of the relaying process's threads (voluntary: blocked, e.g. a hand-off; "
            + "involuntary: preempted; /proc/<pid>/task/*/status) and its write-family and read-family system calls "
            + "(/proc/<pid>/io syscw/syscr: socket and file writes, selector wake-ups), and the broker process's.");
    Table t =
        new Table(
            "scenario",
            "process",
            "steady state",
            "JIT share per burst",
            "vcsw/ev",
            "ivcsw/ev",
            "syscw/ev",
            "syscr/ev",
            "broker vcsw/ev",
            "broker syscw/ev",
            "flame graphs");
    for (Scenario s : Scenario.all()) {
      io.activityservice.perf.cpu.SteadyState.Selection sel = relay.selection(s.id());
      if (sel.all().isEmpty()) {
        continue;
      }
      String process = sel.process() == null ? RelayCost.relayProcess(s.id()) : sel.process();
      Map<String, Double> c = relay.countsPerEvent(s.id());
      String shares =
          String.join(
              " / ",
              sel.all().stream()
                  .map(
                      u -> {
                        double x = u.jitShare(sel.process());
                        return Double.isFinite(x)
                            ? String.format(Locale.ROOT, "%.1f%%", x * 100)
                            : "∞";
                      })
                  .toList());
      Map<String, String> g = relay.facts().flameGraphs().getOrDefault(s.id(), Map.of());
      t.row(
          s.id(),
          process == null ? "-" : process,
          sel.verdict(),
          shares,
          f2(c.getOrDefault(process + ".vcsw", Double.NaN)),
          f2(c.getOrDefault(process + ".ivcsw", Double.NaN)),
          f2(c.getOrDefault(process + ".syscw", Double.NaN)),
          f2(c.getOrDefault(process + ".syscr", Double.NaN)),
          f2(c.getOrDefault("activemq.vcsw", Double.NaN)),
          f2(c.getOrDefault("activemq.syscw", Double.NaN)),
          g.isEmpty() ? "" : links(s.id()));
    }
    table(t);
    Map<String, Map<String, String>> graphs = relay.facts().flameGraphs();
    if (!graphs.isEmpty()) {
      para(
          "Flame graphs (async-profiler attached to the relaying process over one burst of "
              + String.format(Locale.ROOT, "%,d", relay.facts().n())
              + " events per path, not a measured burst; CPU: event 'cpu' = perf events with kernel "
              + "stacks, 'itimer' where perf events are not permitted; allocations: bytes by allocating stack):");
      List<String[]> links = new ArrayList<>();
      graphs.forEach(
          (id, g) ->
              g.forEach(
                  (kind, v) -> {
                    if (!kind.equals("event")) {
                      links.add(
                          new String[] {
                            id
                                + " "
                                + kind
                                + (kind.equals("cpu") && g.containsKey("event")
                                    ? " (" + g.get("event") + ")"
                                    : ""),
                            v
                          });
                    }
                  }));
      linkList(links);
    }
    Map<String, SyscallCount> sys = relay.facts().syscalls();
    if (!sys.isEmpty()) {
      para(
          "System calls of the relaying process per relayed event, traced with strace -f over one smaller burst per "
              + "path (not a measured one: tracing slows the process down). Writes to the broker are classified by "
              + "OpenWire command (one command per write: message sends, acks, transaction commands — each a request to "
              + "the broker), writes to SQS by HTTP request and X-Amz-Target action (LocalStack requests per event), "
              + "futex calls count thread wake-ups and waits.");
      Table st = new Table("scenario", "process", "events", "kind", "per event");
      sys.forEach(
          (id, x) -> {
            if (x.error() != null) {
              st.row(id, x.process(), "-", x.error(), "-");
            } else {
              x.counts()
                  .forEach(
                      (k, v) ->
                          st.row(
                              id,
                              x.process(),
                              x.events(),
                              k,
                              f2(x.events() == 0 ? Double.NaN : (double) v / x.events())));
            }
          });
      table(st);
    }
    Map<String, Map<Double, Double>> paced = relay.pacedCpu();
    if (!paced.isEmpty()) {
      para(
          "CPU per relayed event in the paced runs (the relaying process's own threads, net of idle, over the runs "
              + "at each rate; direct rows: the broker process where the suite started one):");
      Table pt = new Table("scenario", "offered ev/s", "CPU µs/event");
      paced.forEach((id, m) -> m.forEach((rate, v) -> pt.row(id, f0(rate), f1(v))));
      table(pt);
    }
  }

  private void bursts() {
    heading(2, "Burst mode: first send to last receive");
    para(
        "Mean, min and max over the repetitions (ms), like the paper's Figures 4/5 and Tables I/II; throughput = N / mean time. "
            + "Repetitions are interleaved across scenarios. p50/p99 = median over the repetitions of each burst's per-event latency.");
    Table t =
        new Table(
            "scenario",
            "path",
            "N",
            "reps",
            "mean ms",
            "min ms",
            "max ms",
            "sd ms",
            "ev/s",
            "p50 ms",
            "p99 ms",
            "lost/dup");
    for (Scenario s : Scenario.all()) {
      for (int n : a.burstSizes()) {
        List<RunResult> runs = a.runs(s.id(), "burst", n);
        if (runs.isEmpty()) {
          continue;
        }
        double[] ms = runs.stream().mapToDouble(RunResult::millis).toArray();
        long lost = runs.stream().mapToLong(RunResult::lost).sum();
        long dup = runs.stream().mapToLong(RunResult::duplicates).sum();
        t.row(
            s.id(),
            s.title(),
            n,
            runs.size(),
            f0(Stats.mean(ms)),
            f0(Stats.min(ms)),
            f0(Stats.max(ms)),
            f0(Stats.stddev(ms)),
            f0(n / (Stats.mean(ms) / 1000)),
            f2(med(runs, 50)),
            f2(med(runs, 99)),
            lost + "/" + dup);
      }
    }
    table(t);
    List<Integer> small = a.burstSizes().stream().filter(n -> n <= 1000).toList();
    chartPair("Figure 4 style: JMS alone (T1) vs JMS via service (T2)", "T1", "T2", small);
    chartPair("Figure 5 style: SQS alone (T3) vs SQS via service (T4)", "T3", "T4", small);
    chartPair("Kafka alone (K1) vs via service (K2)", "K1", "K2", small);
    List<SvgChart.Line> tp = new ArrayList<>();
    for (Scenario s : Scenario.all()) {
      List<Integer> ns =
          a.burstSizes().stream().filter(n -> a.burst(s.id(), n).isPresent()).toList();
      if (!ns.isEmpty()) {
        tp.add(
            new SvgChart.Line(
                s.id(),
                ns.stream().mapToDouble(Integer::doubleValue).toArray(),
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
      Table t =
          new Table(
              "run",
              "paper alone ms",
              "paper via OM4 ms",
              "ours " + pair[0] + " ms",
              "ours " + pair[1] + " ms");
      for (int i = 0; i < 10; i++) {
        t.row(
            i + 1,
            f0(paper[0][i]),
            f0(paper[1][i]),
            i < d.size() ? f1(d.get(i).millis()) : "",
            i < v.size() ? f1(v.get(i).millis()) : "");
      }
      t.row(
          "mean",
          f0(Stats.mean(paper[0])),
          f0(Stats.mean(paper[1])),
          f1(d.stream().mapToDouble(RunResult::millis).average().orElse(Double.NaN)),
          f1(v.stream().mapToDouble(RunResult::millis).average().orElse(Double.NaN)));
      para("Table " + pair[2] + " (" + (pair[2].equals("I") ? "JMS" : "SQS") + "):");
      table(t);
    }
  }

  private void overhead() {
    heading(2, "Overhead: via service vs direct counterpart (same run)");
    para(
        "Ratio of mean totals with a bootstrap 95 % CI (10,000 resamples of the repetitions); the counterpart is the slower "
            + "direct leg of the path. Added p50/p99 = difference of the medians of the bursts' per-event percentiles.");
    Table t =
        new Table(
            "via",
            "direct",
            "N",
            "ratio of totals",
            "95 % CI",
            "throughput ratio",
            "added p50 ms",
            "added p99 ms");
    for (Analysis.Overhead o : a.overheads()) {
      t.row(
          o.via(),
          o.direct(),
          o.n(),
          f2(o.ratio().estimate()),
          "[" + f2(o.ratio().low()) + ", " + f2(o.ratio().high()) + "]",
          f2(1 / o.ratio().estimate()),
          f2(o.addedP50Ms()),
          f2(o.addedP99Ms()));
    }
    table(t);
    Table p =
        new Table(
            "via",
            "direct",
            "rate ev/s",
            "p50 via",
            "p50 direct",
            "added p50 ms",
            "p99 via",
            "p99 direct",
            "added p99 ms");
    for (String[] pair : new String[][] {{"T2", "T1"}, {"R1", "T1"}, {"T4", "T3"}, {"K2", "K1"}}) {
      for (double rate : a.pacedRates(pair[0])) {
        if (a.pacedRuns(pair[1], rate).isEmpty()) {
          continue;
        }
        double v50 = a.pacedMedian(pair[0], rate, 50);
        double d50 = a.pacedMedian(pair[1], rate, 50);
        double v99 = a.pacedMedian(pair[0], rate, 99);
        double d99 = a.pacedMedian(pair[1], rate, 99);
        p.row(
            pair[0],
            pair[1],
            f0(rate),
            f2(v50),
            f2(d50),
            f2(v50 - d50),
            f2(v99),
            f2(d99),
            f2(v99 - d99));
      }
    }
    para(
        "Open loop, same offered rate (medians over each step's runs; R1 = REST POST /api/v1/events → JMS, "
            + "against direct JMS):");
    table(p);
  }

  private void paced() {
    heading(2, "Latency mode (open loop, coordinated-omission-free)");
    para(
        "A producer thread sends at a fixed rate; each event's latency is measured from its intended send time. "
            + "A run meets the bound when every event arrived exactly once, the producer kept ≥ 90 % of the rate and "
            + "p99 ≤ the bound. Each rate is run "
            + RateLadder.RUNS
            + " times, the scenarios of a group (T1/T2/R1, "
            + "T3/T4, K1/K2) interleaved run by run; a rate is sustained when at least "
            + RateLadder.NEEDED
            + " of its "
            + RateLadder.RUNS
            + " runs meet the bound (the quick mode skips a third run once two agree). The ladder "
            + "stops at the first rate not sustained, except that every scenario still runs at the reference rate (JMS "
            + "and Kafka 1,000, SQS 200 ev/s) for its latency figures.");
    Table t =
        new Table(
            "scenario",
            "offered ev/s",
            "run",
            "achieved send ev/s",
            "events",
            "received",
            "p50 ms",
            "p90 ms",
            "p99 ms",
            "p99.9 ms",
            "max ms",
            "meets bound");
    List<SvgChart.Line> p99 = new ArrayList<>();
    List<SvgChart.Line> achieved = new ArrayList<>();
    for (Scenario s : Scenario.all()) {
      List<RunResult> runs = a.pacedRuns(s.id());
      if (runs.isEmpty()) {
        continue;
      }
      for (RateStep step : a.steps().stream().filter(x -> x.scenario().equals(s.id())).toList()) {
        for (int i = 0; i < step.runs().size(); i++) {
          RunResult r = step.runs().get(i);
          t.row(
              s.id(),
              f0(r.offeredRate()),
              r.rep(),
              f0(r.n() / r.sendSeconds()),
              r.n(),
              r.received(),
              f2(r.percentileMillis(50)),
              f2(r.percentileMillis(90)),
              f2(r.percentileMillis(99)),
              f2(r.percentileMillis(99.9)),
              f2(r.maxMillis()),
              step.passes().get(i) ? "yes" : "no");
        }
      }
      List<Double> rates = a.pacedRates(s.id());
      double[] x = rates.stream().mapToDouble(Double::doubleValue).toArray();
      p99.add(
          new SvgChart.Line(
              s.id() + " p99",
              x,
              rates.stream().mapToDouble(r -> a.pacedMedian(s.id(), r, 99)).toArray()));
      achieved.add(
          new SvgChart.Line(
              s.id(),
              x,
              rates.stream()
                  .mapToDouble(
                      r ->
                          Stats.quantile(
                              a.pacedRuns(s.id(), r).stream()
                                  .mapToDouble(
                                      run -> run.seconds() > 0 ? run.received() / run.seconds() : 0)
                                  .toArray(),
                              0.5))
                  .toArray()));
    }
    table(t);
    para(
        "Per step: the p99 of each run (the spread), the runs meeting the bound, and the outcome.");
    Table st =
        new Table(
            "scenario",
            "offered ev/s",
            "p50 ms (median)",
            "p99 ms per run",
            "p99 ms (median)",
            "runs meeting bound",
            "bound ms",
            "sustained");
    for (RateStep step : a.steps()) {
      String spread =
          String.join(" / ", step.runs().stream().map(r -> f2(r.percentileMillis(99))).toList());
      long ok = step.passes().stream().filter(b -> b).count();
      st.row(
          step.scenario(),
          f0(step.rate()),
          f2(a.pacedMedian(step.scenario(), step.rate(), 50)),
          spread,
          f2(a.pacedMedian(step.scenario(), step.rate(), 99)),
          ok + " of " + step.runs().size(),
          f0(step.boundMs()),
          !step.sustained()
              ? "no"
              : step.rate() > a.sustainable().getOrDefault(step.scenario(), Double.MAX_VALUE)
                  ? "yes, not counted (a lower rate failed)"
                  : "yes");
    }
    table(st);
    Table sus = new Table("scenario", "highest sustained rate ev/s (≥ 2 of 3 runs)");
    a.sustainable().forEach((k, v) -> sus.row(k, f0(v)));
    table(sus);
    svg(
        SvgChart.lines(
            "p99 latency vs offered rate (median of the runs)",
            "offered events/s",
            "p99 ms",
            true,
            true,
            p99));
    svg(
        SvgChart.lines(
            "Throughput vs offered rate",
            "offered events/s",
            "received events/s",
            true,
            true,
            achieved));
    for (String[] group :
        new String[][] {{"T1", "T2", "R1", "1000"}, {"T3", "T4", "200"}, {"K1", "K2", "1000"}}) {
      String rateText = group[group.length - 1];
      double rate = Double.parseDouble(rateText);
      List<String> ids = List.of(group).subList(0, group.length - 1);
      List<SvgChart.Line> curves = new ArrayList<>();
      for (String id : ids) {
        a.paced(id, rate).ifPresent(r -> curves.add(percentileCurve(id, r)));
      }
      if (!curves.isEmpty()) {
        svg(
            SvgChart.lines(
                "Latency percentiles at "
                    + rateText
                    + " ev/s (median run by p99): "
                    + String.join(" vs ", ids),
                "percentile (1/(1−p): 10 = p90, 100 = p99, 1000 = p99.9)",
                "ms",
                true,
                true,
                curves));
      }
    }
  }

  private void isolation() {
    heading(2, "Isolation: a healthy subscriber beside a failing one (I1)");
    para(
        "JMS topic → service → JMS topic (the healthy subscription), in bursts, alone and beside a second "
            + "subscription on the same event type whose webhook (served by the runner) answers 503 after 5 s "
            + "(retry: 5 attempts, backoff 1–30 s). Alone and beside alternate, their order swapped every repetition. "
            + "The failing subscription is created before each \"beside\" burst and deleted once its deliveries were "
            + "parked (deleting drops them, so its retries do not run on into the next burst). Time = first send to the "
            + "last receipt on the healthy topic; ratio of means with a bootstrap 95 % CI. Status: "
            + a.isolationStatus());
    Table t =
        new Table(
            "N",
            "reps",
            "alone mean ms",
            "beside mean ms",
            "alone min–max ms",
            "beside min–max ms",
            "beside / alone",
            "95 % CI");
    for (Analysis.Isolation i : a.isolation()) {
      t.row(
          i.n(),
          i.alone().length + "/" + i.beside().length,
          f0(Stats.mean(i.alone())),
          f0(Stats.mean(i.beside())),
          f0(Stats.min(i.alone())) + "–" + f0(Stats.max(i.alone())),
          f0(Stats.min(i.beside())) + "–" + f0(Stats.max(i.beside())),
          f2(i.ratio().estimate()),
          "[" + f2(i.ratio().low()) + ", " + f2(i.ratio().high()) + "]");
    }
    table(t);
    Table r =
        new Table(
            "mode",
            "N",
            "rep",
            "ms",
            "ev/s",
            "p50 ms",
            "p99 ms",
            "exactly once",
            "failing deliveries parked");
    for (RunResult x : a.results().stream().filter(x -> x.scenario().equals("I1")).toList()) {
      Long parked = a.parked().get(x.n() + "/" + x.rep());
      r.row(
          x.mode(),
          x.n(),
          x.rep(),
          f0(x.millis()),
          f0(x.throughput()),
          f2(x.percentileMillis(50)),
          f2(x.percentileMillis(99)),
          x.exactlyOnce(),
          x.mode().equals("beside")
              ? (parked == null
                  ? "-"
                  : parked < 0 ? "n/a (no deliveries API)" : parked + " of " + x.n())
              : "");
    }
    table(r);
  }

  private void cpu() {
    heading(2, "CPU time per relayed event");
    CpuFacts c = a.cpu();
    if (c.uses().isEmpty()) {
      para("Not measured: the suite reads CPU time only of a service it started itself.");
      return;
    }
    para(
        "CPU time (user + system) of each process, read right before and after every burst with the service idle "
            + "(≤ 10 % of a core over 100 ms, at most 3 s of waiting), divided by the events relayed. Net = minus the "
            + "source's idle rate over the same windows (timers, the retry store's poller), i.e. the cost that grows with "
            + "the event rate. \"-own\" = the process without its JIT compiler threads and JFR threads (read per thread "
            + "from /proc/<pid>/task/*/schedstat): what a warmed-up replica without the suite's recording spends; GC stays "
            + "in (\"-gc\" shows its part: GC workers, G1's concurrent threads, the VM thread). The whole process's figures "
            + "and the JFR threads' are in cpu.csv. Process CPU time comes in 10 ms clock ticks, so each burst's reading is within ±10 ms; in quick mode, and "
            + "for small N, read the figures as rough (the code is not fully compiled yet: interpreted code costs more even "
            + "without the compiler threads). CPU time is far less affected by other load on the machine than wall-clock "
            + "times. "
            + (c.brokerInService()
                ? "ActiveMQ ran embedded in the service, so the service's figures for paths with JMS include the broker's "
                    + "work (run with --activemq-process to separate them)."
                : "ActiveMQ ran outside the service process."));
    Table src = new Table("source", "what", "idle ms CPU per s", "idle measurements");
    c.sources()
        .forEach(
            (name, what) ->
                src.row(
                    name,
                    what,
                    f2(c.idleRates().getOrDefault(name, Double.NaN)),
                    String.join(
                        " / ",
                        c.idleMeasurements().stream()
                            .map(m -> f2(m.getOrDefault(name, Double.NaN)))
                            .toList())));
    table(src);
    // The tables leave out JFR threads and a process's total where its "-own" figure is shown (both
    // in cpu.csv).
    List<String> sources =
        c.sources().keySet().stream()
            .filter(s -> !s.endsWith("-jfr") && !c.sources().containsKey(s + "-own"))
            .toList();
    para(
        "Bursts of each scenario's largest N (the warmest runs), µs per relayed event, net of idle (also gross for the "
            + "service's own figure; a shared LocalStack only gross, as its idle rate is no baseline):");
    table(cpuTable(a.cpuCostsLargestN(), sources, a.serviceSource(), c.shared()));
    para(
        "All bursts of each scenario (every N, every repetition, including the first, coldest ones):");
    table(cpuTable(a.cpuCosts(), sources, a.serviceSource(), c.shared()));
    para(
        "Direct rows (T1, T3, K1) show what the broker costs per event where its process is measured: the ActiveMQ "
            + "process (--activemq-process), LocalStack's process (shared with other users of it, so other traffic counts "
            + "too), the embedded Kafka broker's threads in the runner (its share of the runner's GC and JIT is missing). "
            + "The service's own figure on direct rows is its idle noise and should be about 0. I1 beside includes parking "
            + "the failing subscription's deliveries (its later retries are not in the window). Per-burst readings: cpu.csv.");
  }

  /**
   * The capacity model (issue 24, {@link CapacityModelTable}): predicted highest rate per path from
   * the host's demand per event beside the measured burst throughput.
   */
  private void capacityModel() {
    heading(2, "Capacity model: predicted beside measured");
    if (a.cpu().uses().isEmpty()) {
      para("Not computed: the suite read no CPU times (a service it did not start).");
      return;
    }
    int cores = Runtime.getRuntime().availableProcessors();
    double uMax = CapacityModelTable.DEFAULT_U_MAX;
    List<CapacityModelTable.Row> rows =
        CapacityModelTable.rows(
            a.cpu().uses(),
            (s, n) -> a.burst(s, n).map(Analysis.BurstSummary::throughput).orElse(null),
            a.sustainable(),
            cores,
            uMax);
    para(
        String.format(
            Locale.ROOT,
            "Operational analysis (seeds 000/001, docs/performance.md#capacity-model): per path the CPU µs"
                + " per event of every process sharing this host's %d cores — the service, the ActiveMQ"
                + " broker process, LocalStack, the embedded Kafka broker's threads and the runner JVM that"
                + " drives the load — gross over the bursts of the path's largest N; \"other cores busy\" ="
                + " the host's busy CPU time (/proc/stat) minus those processes' over the same windows. The"
                + " utilisation law's bottleneck bound X ≤ (U_max·C − other) / ΣD_host (U_max = %.2f) and"
                + " LocalStack's single thread (1 / D) give the prediction; C / D_service is the bound of a"
                + " deployment whose brokers and clients run elsewhere. Measured = mean burst throughput"
                + " (first send to last receive) at the same N. Rows off by more than 15 %% name the"
                + " effects outside the model their own figures show.",
            cores,
            uMax));
    table(CapacityModelTable.table(rows, cores, uMax));
    stageTable();
    if (specjms.isEmpty()) {
      para(
          "SPECjms: no row — no perf-tests/run.sh --specjms-search wrote its "
              + CapacityModelTable.specjmsFile("<topology>")
              + " into this report directory before this run.");
    } else {
      para(
          "SPECjms, from the --specjms-search runs written into this report directory: the same law"
              + " over the CPU per delivery of the highest passing BASE's measurement period;"
              + " predicted highest BASE = the host's bound over the deliveries per second per BASE.");
      table(CapacityModelTable.specjmsTable(specjms));
    }
  }

  /**
   * The service's CPU per event split by stage: each profiled path's CPU profile bucketed by frame,
   * its shares times the service's gross CPU per event at the path's largest N.
   */
  private void stageTable() {
    if (stages.isEmpty()) {
      para(
          "Per stage: not measured in this run (the split comes from the CPU flame graphs of a run"
              + " with --profile, on by default in full runs).");
      return;
    }
    para(
        "Per stage (receive, route, deliver, settle; the embedded broker's and the JIT/GC threads'"
            + " share beside them): each via-service path's CPU profile (async-profiler, one burst,"
            + " collapsed stacks in profiles/*.collapsed) bucketed by frame — a stack counts for the"
            + " stage of its frame nearest the leaf that names one (perf-tests profile.Stages) — and"
            + " the shares multiplied by the service's gross CPU µs per event at the path's largest N."
            + " The profiled burst is not one of the measured ones; the shares are of the profile's"
            + " samples.");
    List<String> headers = new ArrayList<>(List.of("path", "service µs/ev"));
    Stages.STAGES.forEach(st -> headers.add(st + " µs/ev (share)"));
    Table t = new Table(headers.toArray(String[]::new));
    Map<String, Double> perEvent = new LinkedHashMap<>();
    for (CpuCost.Cost c : a.cpuCostsLargestN()) {
      if (c.mode().equals("burst") && c.source().equals("service")) {
        perEvent.put(c.scenario(), c.grossMicros());
      }
    }
    stages.forEach(
        (scenario, shares) -> {
          Double d = perEvent.get(scenario);
          List<Object> row = new ArrayList<>(List.of(scenario, d == null ? "–" : f1(d)));
          for (String st : Stages.STAGES) {
            double share = shares.getOrDefault(st, 0.0);
            row.add(
                d == null
                    ? String.format(Locale.ROOT, "(%.0f %%)", 100 * share)
                    : String.format(Locale.ROOT, "%.1f (%.0f %%)", d * share, 100 * share));
          }
          t.row(row.toArray());
        });
    table(t);
  }

  private static Table cpuTable(
      List<CpuCost.Cost> costs, List<String> sources, String own, List<String> shared) {
    List<String> headers = new ArrayList<>(List.of("scenario", "mode", "bursts", "events"));
    for (String s : sources) {
      headers.add(s + (shared.contains(s) ? " µs/ev gross (shared)" : " µs/ev"));
      if (s.equals(own)) {
        headers.add(s + " gross");
      }
    }
    Table t = new Table(headers.toArray(String[]::new));
    java.util.LinkedHashSet<String> keys = new java.util.LinkedHashSet<>();
    costs.forEach(x -> keys.add(x.scenario() + "|" + x.mode()));
    for (String key : keys) {
      String[] k = key.split("\\|");
      List<Object> row = new ArrayList<>();
      row.add(k[0]);
      row.add(k[1]);
      Optional<CpuCost.Cost> any =
          costs.stream()
              .filter(x -> x.scenario().equals(k[0]) && x.mode().equals(k[1]))
              .findFirst();
      row.add(any.map(CpuCost.Cost::runs).orElse(0));
      row.add(any.map(x -> String.format(Locale.ROOT, "%,d", x.events())).orElse("-"));
      for (String s : sources) {
        Optional<CpuCost.Cost> x = CpuCost.find(costs, k[0], k[1], s);
        row.add(
            x.map(
                    v ->
                        f1(
                            Double.isFinite(v.netMicros()) && !shared.contains(s)
                                ? v.netMicros()
                                : v.grossMicros()))
                .orElse("-"));
        if (s.equals(own)) {
          row.add(x.map(v -> f1(v.grossMicros())).orElse("-"));
        }
      }
      t.row(row.toArray());
    }
    return t;
  }

  private void beforeAfter() {
    if (baseline.isEmpty()) {
      return;
    }
    heading(2, "Before / after");
    para(
        "This run beside the baseline "
            + baselineName
            + " (an earlier run, e.g. with the previous service jar): "
            + "median over the runs of each one's p50 and p99, mean burst time. The two runs were measured at different "
            + "times on a shared machine: differences within the bursts' spread (see the tables above) are noise.");
    Table t =
        new Table(
            "scenario",
            "mode",
            "N / rate",
            "runs before/after",
            "p50 ms before",
            "p50 ms after",
            "p99 ms before",
            "p99 ms after",
            "time ms before",
            "time ms after",
            "time after/before");
    for (Baseline.Comparison x : baseline) {
      t.row(
          x.scenario(),
          x.mode(),
          x.size(),
          x.runsBefore() + "/" + x.runsAfter(),
          f2(x.p50Before()),
          f2(x.p50After()),
          f2(x.p99Before()),
          f2(x.p99After()),
          f0(x.msBefore()),
          f0(x.msAfter()),
          f2(x.timeRatio()));
    }
    table(t);
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
        t.row(
            mode,
            r.rep(),
            r.n(),
            f0(r.millis()),
            f0(r.throughput()),
            f2(r.percentileMillis(50)),
            f2(r.percentileMillis(99)),
            r.exactlyOnce());
      }
    }
    table(t);
  }

  private void hypotheses() {
    heading(2, "Hypotheses H1–H8 on our data");
    para(
        "Test: percentile bootstrap 95 % confidence interval (10,000 resamples, seed 42) of a ratio of mean burst times. "
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
    para(
        "From the service's continuous JFR recording (settings=default, execution samples every 20 ms per running thread), "
            + "cut to the wall-clock windows of the scenario's runs.");
    profiles.forEach(
        (target, p) -> {
          heading(3, target);
          if (p instanceof JfrProfile jp) {
            para(jp.samples() + " execution samples.");
            Table self = new Table("top of stack (self)", "samples", "%");
            jp.self().forEach((m, c) -> self.row(m, c, f1(100.0 * c / Math.max(1, jp.samples()))));
            table(self);
            Table inc = new Table("project method (inclusive)", "samples", "%");
            jp.inclusive()
                .forEach((m, c) -> inc.row(m, c, f1(100.0 * c / Math.max(1, jp.samples()))));
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
    html.append("<h")
        .append(level)
        .append('>')
        .append(SvgChart.esc(text))
        .append("</h")
        .append(level)
        .append(">\n");
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

  /**
   * A list of links (label, report-relative path), or the reason when the path is not a file of the
   * report.
   */
  private void linkList(List<String[]> links) {
    html.append("<ul>");
    for (String[] l : links) {
      boolean file = l[1].startsWith("profiles/");
      md.append("- ")
          .append(file ? "[" + l[0] + "](" + l[1] + ")" : l[0] + ": " + l[1])
          .append('\n');
      html.append("<li>")
          .append(
              file
                  ? "<a href=\"" + SvgChart.esc(l[1]) + "\">" + SvgChart.esc(l[0]) + "</a>"
                  : SvgChart.esc(l[0] + ": " + l[1]))
          .append("</li>");
    }
    md.append('\n');
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
