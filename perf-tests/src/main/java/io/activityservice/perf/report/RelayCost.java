package io.activityservice.perf.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.activityservice.perf.cpu.CpuCost;
import io.activityservice.perf.cpu.CpuUse;
import io.activityservice.perf.cpu.ProcessCounters;
import io.activityservice.perf.cpu.SteadyState;
import io.activityservice.perf.profile.SyscallCount;
import io.activityservice.perf.stats.Stats;
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
import java.util.OptionalDouble;

/**
 * The relay's cost in steady state (issue 20): CPU per relayed event of the relaying process over
 * the steady bursts ({@link SteadyState}), the Camel peer beside the service on its four paths,
 * idle CPU, counts per event (context switches, write calls, system calls by peer), CPU per event
 * in paced runs, and the target table.
 */
public final class RelayCost {

  /** Target on the service's idle CPU, ms of CPU per second. */
  static final double IDLE_TARGET_MS = 3;

  /**
   * What the suite knows besides runs and CPU uses.
   *
   * @param n size of the bursts that make the figures
   * @param needed steady bursts needed per figure
   * @param maxJitShare the steady-state bound on the JIT share
   * @param subjects scenario → the process whose JIT share decides (null: none)
   * @param flameGraphs scenario → kind ({@code cpu}, {@code alloc}, {@code event}) →
   *     report-relative path or why not
   * @param syscalls scenario → the relaying process, events and system calls by kind (from strace),
   *     or an error
   * @param peerStatus the Camel peer's status
   * @param jmhResult the in-process pipeline benchmark's JMH JSON result, if any
   */
  public record Facts(
      int n,
      int needed,
      double maxJitShare,
      Map<String, String> subjects,
      Map<String, Map<String, String>> flameGraphs,
      Map<String, SyscallCount> syscalls,
      String peerStatus,
      Path jmhResult) {

    /** No steady-state facts (older callers, tests of other parts). */
    public static Facts none() {
      return new Facts(0, 3, 0.02, Map.of(), Map.of(), Map.of(), "not run", null);
    }
  }

  /**
   * One row of the target table.
   *
   * @param key stable name (matches a baseline run's row)
   * @param target what is required
   * @param figure the figure measured (text)
   * @param status {@code met}, {@code missed}, {@code n/a} or {@code not measured: …}
   * @param scenario the path whose flame graph explains a miss, or null
   */
  public record Row(String key, String target, String figure, String status, String scenario) {}

  /** The four paths Camel relays: its scenario and the service's. */
  static final List<String[]> PEER_PATHS =
      List.of(
          new String[] {"JMS→JMS", "T2", "CT2"},
          new String[] {"SQS→SQS", "T4", "CT4"},
          new String[] {"Kafka→Kafka", "K2", "CK2"},
          new String[] {"JMS→SQS", "T5", "CT5"});

  private final Analysis a;
  private final Facts f;

  /** The relay's cost from an analysis and the suite's facts. */
  public RelayCost(Analysis a, Facts f) {
    this.a = a;
    this.f = f;
  }

  /** The facts. */
  public Facts facts() {
    return f;
  }

  /** The steady-state selection of a scenario's bursts of the figures' size. */
  public SteadyState.Selection selection(String scenario) {
    return SteadyState.select(
        a.cpu().uses(), scenario, f.n(), f.subjects().get(scenario), f.needed(), f.maxJitShare());
  }

  /**
   * The process that relays a scenario's events ({@code service}, {@code camel}), or null for
   * direct paths.
   */
  static String relayProcess(String scenario) {
    return Scenario.all().stream()
        .filter(s -> s.id().equals(scenario))
        .findFirst()
        .map(s -> s.viaService() ? "service" : s.peer())
        .orElse(scenario.startsWith("I") || scenario.startsWith("C1") ? "service" : null);
  }

  /**
   * CPU µs per relayed event of {@code process}'s own threads (without JIT and JFR) over the steady
   * bursts of a scenario, net of its idle rate.
   */
  public OptionalDouble cpuPerEvent(String scenario, String process) {
    List<CpuUse> used = selection(scenario).used();
    if (used.isEmpty()) {
      return OptionalDouble.empty();
    }
    String source = process + "-own";
    Optional<CpuCost.Cost> c =
        CpuCost.find(CpuCost.of(used, a.cpu().idleRates()), scenario, "burst", source);
    if (c.isEmpty()) {
      c = CpuCost.find(CpuCost.of(used, a.cpu().idleRates()), scenario, "burst", process);
    }
    return c.map(
            x ->
                OptionalDouble.of(Double.isFinite(x.netMicros()) ? x.netMicros() : x.grossMicros()))
        .orElse(OptionalDouble.empty());
  }

  /** Mean time of a scenario's bursts of the figures' size (ms). */
  public OptionalDouble burstMillis(String scenario) {
    double[] ms =
        a.runs(scenario, "burst", f.n()).stream().mapToDouble(RunResult::millis).toArray();
    return ms.length == 0 ? OptionalDouble.empty() : OptionalDouble.of(Stats.mean(ms));
  }

  /** Idle CPU of a process's own threads, ms per s (NaN if not measured). */
  public double idle(String process) {
    return a.cpu()
        .idleRates()
        .getOrDefault(process + "-own", a.cpu().idleRates().getOrDefault(process, Double.NaN));
  }

  /**
   * Counters per relayed event over a scenario's steady bursts: for the relaying process and the
   * broker process, {@code <process>.<counter>} → per event.
   */
  public Map<String, Double> countsPerEvent(String scenario) {
    List<CpuUse> used = selection(scenario).used();
    long events = used.stream().mapToLong(CpuUse::events).sum();
    Map<String, Double> out = new LinkedHashMap<>();
    if (events == 0) {
      return out;
    }
    for (CpuUse u : used) {
      u.counts().forEach((k, v) -> out.merge(k, (double) v, Double::sum));
    }
    out.replaceAll((k, v) -> v / events);
    return out;
  }

  /**
   * CPU per relayed event in the paced runs: scenario → rate → µs per event of the relaying process
   * (net of idle), over the runs at that rate.
   */
  public Map<String, Map<Double, Double>> pacedCpu() {
    Map<String, Map<Double, Double>> out = new LinkedHashMap<>();
    List<CpuUse> paced = a.cpu().uses().stream().filter(u -> u.mode().equals("rate")).toList();
    for (CpuUse u : paced) {
      String process = relayProcess(u.scenario());
      if (process == null) {
        process = f.subjects().get(u.scenario());
      }
      if (process == null) {
        continue;
      }
      String p = process;
      List<CpuUse> same =
          paced.stream()
              .filter(x -> x.scenario().equals(u.scenario()) && Math.abs(x.rate() - u.rate()) < 0.5)
              .map(
                  x ->
                      new CpuUse(
                          x.scenario(),
                          "rate@" + Math.round(x.rate()),
                          x.n(),
                          x.rep(),
                          x.events(),
                          x.seconds(),
                          x.cpuMs(),
                          x.idle()))
              .toList();
      CpuCost.of(same, a.cpu().idleRates()).stream()
          .filter(c -> c.source().equals(p + "-own"))
          .findFirst()
          .ifPresent(
              c ->
                  out.computeIfAbsent(u.scenario(), k -> new LinkedHashMap<>())
                      .put(
                          u.rate(),
                          Double.isFinite(c.netMicros()) ? c.netMicros() : c.grossMicros()));
    }
    return out;
  }

  /** The target table of issue 20. */
  public List<Row> targets() {
    List<Row> rows = new ArrayList<>();
    OptionalDouble t2 = cpuPerEvent("T2", "service");
    OptionalDouble broker = cpuPerEvent("T1", "activemq");
    String brokerNote =
        a.cpu().brokerInService()
            ? "the embedded broker runs in the service (use --activemq-process)"
            : "no broker process of the suite's (use --activemq-process)";
    if (t2.isPresent()
        && broker.isPresent()
        && broker.getAsDouble() > 0
        && !a.cpu().brokerInService()) {
      double ratio = t2.getAsDouble() / broker.getAsDouble();
      rows.add(
          new Row(
              "cpu-t2-vs-broker",
              "Service CPU per relayed event JMS→JMS (T2) ≤ 0.3× the broker's own CPU per"
                  + " event on the direct path (T1)",
              String.format(
                  Locale.ROOT,
                  "%.2f× (%.1f vs %.1f µs/event; %s)",
                  ratio,
                  t2.getAsDouble(),
                  broker.getAsDouble(),
                  steadyNote("T2")),
              ratio <= 0.3 ? "met" : "missed",
              "T2"));
    } else {
      rows.add(
          new Row(
              "cpu-t2-vs-broker",
              "Service CPU per relayed event JMS→JMS (T2) ≤ 0.3× the broker's own CPU per"
                  + " event on the direct path (T1)",
              "-",
              "not measured: " + (t2.isEmpty() ? "no T2 bursts of " + f.n() : brokerNote),
              "T2"));
    }
    rows.add(cpuRow("cpu-t2", "JMS→JMS (T2)", "T2", 50, a.cpu().brokerInService()));
    rows.add(cpuRow("cpu-t4", "SQS→SQS (T4)", "T4", 100, false));
    rows.add(cpuRow("cpu-k2", "Kafka→Kafka (K2)", "K2", 20, false));
    rows.add(
        cpuRow(
            "cpu-r2",
            "REST batch publish, per event (R2, " + Scenario.REST_BATCH + " per request)",
            "R2",
            100,
            a.cpu().brokerInService()));
    rows.add(
        cpuRow("cpu-r1", "REST single-event publish (R1)", "R1", 300, a.cpu().brokerInService()));
    rows.add(jmhRow());
    rows.add(tracingRow());
    rows.add(transformRow());
    for (String[] p : PEER_PATHS) {
      rows.addAll(peerRows(p[0], p[1], p[2]));
    }
    double idle = idle("service");
    double camelIdle = idle("camel");
    rows.add(
        new Row(
            "idle",
            "Service idle CPU ≤ 3 ms per second",
            Double.isFinite(idle)
                ? String.format(
                    Locale.ROOT,
                    "%.2f ms/s (own threads%s)",
                    idle,
                    Double.isFinite(camelIdle)
                        ? String.format(Locale.ROOT, "; Camel peer %.2f ms/s", camelIdle)
                        : "")
                : "-",
            Double.isFinite(idle)
                ? (idle <= IDLE_TARGET_MS ? "met" : "missed")
                : "not measured: no idle readings",
            "T2"));
    rows.add(pacedP99Row());
    rows.add(addedLatencyRow());
    return rows;
  }

  private String steadyNote(String scenario) {
    SteadyState.Selection s = selection(scenario);
    return s.verdict();
  }

  private Row cpuRow(String key, String path, String scenario, double bound, boolean brokerInside) {
    String target =
        String.format(Locale.ROOT, "Service CPU per relayed event %s ≤ %.0f µs", path, bound);
    OptionalDouble v = cpuPerEvent(scenario, "service");
    if (v.isEmpty()) {
      return new Row(
          key,
          target,
          "-",
          "not measured: no " + scenario + " bursts of " + f.n() + " with CPU readings",
          scenario);
    }
    String figure =
        String.format(Locale.ROOT, "%.1f µs/event (%s)", v.getAsDouble(), steadyNote(scenario));
    if (brokerInside && !scenario.equals("T4") && !scenario.equals("K2")) {
      return new Row(
          key,
          target,
          figure + ", includes the embedded broker",
          "not measured: the embedded ActiveMQ broker runs in the service's process (use --activemq-process)",
          scenario);
    }
    return new Row(key, target, figure, status(v.getAsDouble() <= bound, scenario), scenario);
  }

  private String status(boolean met, String scenario) {
    return (met ? "met" : "missed") + (selection(scenario).steady() ? "" : " (not steady)");
  }

  private List<Row> peerRows(String path, String service, String camel) {
    List<Row> rows = new ArrayList<>();
    String why =
        f.peerStatus().startsWith("started")
            ? "no " + camel + " bursts in this run"
            : f.peerStatus();
    OptionalDouble sc = cpuPerEvent(service, "service");
    OptionalDouble cc = cpuPerEvent(camel, "camel");
    String t1 = "vs Camel " + path + ": service CPU per event ≤ Camel's";
    if (sc.isPresent() && cc.isPresent()) {
      rows.add(
          new Row(
              "camel-cpu-" + service,
              t1,
              String.format(
                  Locale.ROOT,
                  "%.1f vs %.1f µs/event (%.2f×)",
                  sc.getAsDouble(),
                  cc.getAsDouble(),
                  sc.getAsDouble() / cc.getAsDouble()),
              status(sc.getAsDouble() <= cc.getAsDouble(), service),
              service));
    } else {
      rows.add(
          new Row(
              "camel-cpu-" + service,
              t1,
              "-",
              "not measured: " + (sc.isEmpty() ? "no " + service + " bursts" : why),
              service));
    }
    OptionalDouble sb = burstMillis(service);
    OptionalDouble cb = burstMillis(camel);
    String t2 =
        String.format(Locale.ROOT, "vs Camel %s: %,d-event burst time ≤ 1.0× Camel's", path, f.n());
    if (sb.isPresent() && cb.isPresent()) {
      double r = sb.getAsDouble() / cb.getAsDouble();
      rows.add(
          new Row(
              "camel-burst-" + service,
              t2,
              String.format(
                  Locale.ROOT, "%.0f vs %.0f ms (%.2f×)", sb.getAsDouble(), cb.getAsDouble(), r),
              r <= 1.0 ? "met" : "missed",
              service));
    } else {
      rows.add(
          new Row(
              "camel-burst-" + service,
              t2,
              "-",
              "not measured: " + (sb.isEmpty() ? "no " + service + " bursts" : why),
              service));
    }
    Double sr = a.sustainable().get(service);
    Double cr = a.sustainable().get(camel);
    String t3 = "vs Camel " + path + ": highest sustained rate ≥ Camel's";
    if (sr != null && cr != null && sr == 0 && cr == 0) {
      rows.add(
          new Row(
              "camel-rate-" + service,
              t3,
              "0 vs 0 ev/s",
              "not measured: neither sustained the ladder's lowest" + " rate",
              service));
    } else if (sr != null && cr != null) {
      rows.add(
          new Row(
              "camel-rate-" + service,
              t3,
              String.format(Locale.ROOT, "%.0f vs %.0f ev/s", sr, cr),
              sr >= cr ? "met" : "missed",
              service));
    } else {
      rows.add(
          new Row(
              "camel-rate-" + service,
              t3,
              "-",
              "not measured: " + (sr == null ? "no latency ladder of " + service : why),
              service));
    }
    return rows;
  }

  private Row pacedP99Row() {
    String target = "SQS→SQS (T4) paced at 200 ev/s: p99 ≤ 60 ms";
    if (a.pacedRuns("T4", 200).isEmpty()) {
      return new Row("t4-200-p99", target, "-", "not measured: no T4 runs at 200 ev/s", "T4");
    }
    double p99 = a.pacedMedian("T4", 200, 99);
    return new Row(
        "t4-200-p99",
        target,
        String.format(
            Locale.ROOT, "p99 %.2f ms (median of %d runs)", p99, a.pacedRuns("T4", 200).size()),
        p99 <= 60 ? "met" : "missed",
        "T4");
  }

  private Row addedLatencyRow() {
    String target =
        "JMS relay (T2) at 1,000 ev/s: added p50 ≤ 0.5 ms and added p99 ≤ 2 ms over direct JMS (T1)";
    if (a.pacedRuns("T2", 1000).isEmpty() || a.pacedRuns("T1", 1000).isEmpty()) {
      return new Row(
          "t2-1000-added", target, "-", "not measured: paced runs at 1,000 ev/s missing", "T2");
    }
    double p50 = a.pacedMedian("T2", 1000, 50) - a.pacedMedian("T1", 1000, 50);
    double p99 = a.pacedMedian("T2", 1000, 99) - a.pacedMedian("T1", 1000, 99);
    return new Row(
        "t2-1000-added",
        target,
        String.format(Locale.ROOT, "added p50 %.2f ms, added p99 %.2f ms", p50, p99),
        p50 <= 0.5 && p99 <= 2 ? "met" : "missed",
        "T2");
  }

  private Row jmhRow() {
    String target = "In-process pipeline (JMH): ≤ 10 µs and ≤ 2 KiB allocated per event";
    if (f.jmhResult() == null || !Files.isRegularFile(f.jmhResult())) {
      return new Row(
          "jmh-pipeline", target, "n/a", "n/a (no JMH result at " + f.jmhResult() + ")", null);
    }
    try {
      Optional<double[]> r = jmh(Files.readString(f.jmhResult()));
      if (r.isEmpty()) {
        return new Row(
            "jmh-pipeline",
            target,
            "n/a",
            "n/a (no pipeline benchmark in " + f.jmhResult() + ")",
            null);
      }
      double micros = r.get()[0];
      double bytes = r.get()[1];
      return new Row(
          "jmh-pipeline",
          target,
          String.format(
              Locale.ROOT,
              "%.2f µs and %s per event (%s)",
              micros,
              Double.isFinite(bytes)
                  ? String.format(Locale.ROOT, "%.0f B", bytes)
                  : "? B (run JMH with -prof gc)",
              f.jmhResult().getFileName()),
          micros <= 10 && bytes <= 2048 ? "met" : "missed",
          null);
    } catch (IOException | RuntimeException e) {
      return new Row(
          "jmh-pipeline",
          target,
          "n/a",
          "n/a (unreadable " + f.jmhResult() + ": " + e.getMessage() + ")",
          null);
    }
  }

  /**
   * What a JSONata transformation costs per event (issue 25): X2's service CPU per event less T2's,
   * the same path without it, from the same run. Informational (the issue sets no bound); a
   * difference within the bursts' spread reads as "no measurable cost".
   */
  private Row transformRow() {
    String target = "Transformation cost per event (X2 − T2, service CPU, same run)";
    OptionalDouble x2 = cpuPerEvent("X2", "service");
    OptionalDouble t2 = cpuPerEvent("T2", "service");
    if (x2.isEmpty() || t2.isEmpty()) {
      return new Row(
          "cpu-transform",
          target,
          "-",
          "not measured: no X2 and T2 bursts of " + f.n() + " with CPU readings",
          "X2");
    }
    double added = x2.getAsDouble() - t2.getAsDouble();
    return new Row(
        "cpu-transform",
        target,
        String.format(
            Locale.ROOT,
            "%+.1f µs/event (X2 %.1f, %s; T2 %.1f, %s)",
            added,
            x2.getAsDouble(),
            steadyNote("X2"),
            t2.getAsDouble(),
            steadyNote("T2")),
        "measured",
        "X2");
  }

  /**
   * What tracing costs per event (issue 23), from the pipeline benchmark run with {@code -p
   * tracing=off,0,0.1,1}: the process's CPU per event ({@code cpu.process.norm}) at each sampling
   * ratio, against the same pipeline without a tracer.
   */
  private Row tracingRow() {
    String target =
        "Tracing cost per event (JMH pipeline, CPU): sampling 0 %, 10 %, 100 % vs no tracer";
    if (f.jmhResult() == null || !Files.isRegularFile(f.jmhResult())) {
      return new Row("jmh-tracing", target, "-", "not measured: no JMH result", null);
    }
    try {
      Map<String, Double> cpu = tracingCpu(Files.readString(f.jmhResult()));
      Double off = cpu.get("off");
      if (off == null || cpu.size() < 2) {
        return new Row(
            "jmh-tracing",
            target,
            "-",
            "not measured: run perf-tests/jmh-pipeline.sh -p tracing=off,0,0.1,1",
            null);
      }
      StringBuilder figure =
          new StringBuilder(String.format(Locale.ROOT, "no tracer %.2f µs", off / 1000));
      for (var e : cpu.entrySet()) {
        if (!e.getKey().equals("off")) {
          double added = (e.getValue() - off) / 1000;
          figure.append(
              String.format(
                  Locale.ROOT,
                  "; %s %% sampled %+.2f µs (%+.0f %%)",
                  new java.math.BigDecimal(e.getKey())
                      .multiply(java.math.BigDecimal.valueOf(100))
                      .stripTrailingZeros()
                      .toPlainString(),
                  added,
                  100 * (e.getValue() - off) / off));
        }
      }
      return new Row("jmh-tracing", target, figure.toString(), "measured", null);
    } catch (IOException | RuntimeException e) {
      return new Row(
          "jmh-tracing", target, "-", "n/a (unreadable JMH result: " + e.getMessage() + ")", null);
    }
  }

  /**
   * The process CPU per event ({@code cpu.process.norm}, ns) of each {@code tracing} parameter of
   * the pipeline benchmark in a JMH JSON result, for its first {@code pattern} parameter seen; in
   * the order found.
   */
  static Map<String, Double> tracingCpu(String json) throws IOException {
    JsonNode root = new ObjectMapper().readTree(json);
    Map<String, Double> cpu = new LinkedHashMap<>();
    String pattern = null;
    for (JsonNode b : root) {
      if (!b.path("benchmark").asText().toLowerCase(Locale.ROOT).contains("pipeline")) {
        continue;
      }
      JsonNode params = b.path("params");
      String tracing = params.path("tracing").asText(null);
      String p = params.path("pattern").asText("");
      if (tracing == null) {
        continue;
      }
      if (pattern == null) {
        pattern = p;
      }
      var metrics = b.path("secondaryMetrics").properties().iterator();
      while (metrics.hasNext()) {
        var m = metrics.next();
        JsonNode score = m.getValue().path("score");
        if (m.getKey().endsWith("cpu.process.norm") && p.equals(pattern) && score.isNumber()) {
          cpu.put(tracing, score.asDouble());
        }
      }
    }
    return cpu;
  }

  /**
   * µs per operation and bytes allocated per operation ({@code gc.alloc.rate.norm}, NaN without
   * {@code -prof gc}) of the first benchmark in a JMH JSON result whose name mentions "Pipeline"
   * (else the first one).
   */
  static Optional<double[]> jmh(String json) throws IOException {
    JsonNode root = new ObjectMapper().readTree(json);
    if (!root.isArray() || root.isEmpty()) {
      return Optional.empty();
    }
    JsonNode pick = root.get(0);
    for (JsonNode b : root) {
      if (b.path("benchmark").asText().toLowerCase(Locale.ROOT).contains("pipeline")) {
        pick = b;
        break;
      }
    }
    JsonNode m = pick.path("primaryMetric");
    double score = m.path("score").asDouble(Double.NaN);
    String unit = m.path("scoreUnit").asText("");
    double micros =
        switch (unit) {
          case "ns/op" -> score / 1000;
          case "us/op" -> score;
          case "ms/op" -> score * 1000;
          case "ops/s" -> 1e6 / score;
          case "ops/ms" -> 1e3 / score;
          case "ops/us" -> 1 / score;
          default -> Double.NaN;
        };
    double bytes = Double.NaN;
    var it = pick.path("secondaryMetrics").properties().iterator();
    while (it.hasNext()) {
      var e = it.next();
      if (e.getKey().endsWith("gc.alloc.rate.norm")) {
        bytes = e.getValue().path("score").asDouble(Double.NaN);
      }
    }
    return Optional.of(new double[] {micros, bytes});
  }

  /** Names of the counters, in table order, with what they mean. */
  static final Map<String, String> COUNTERS =
      Map.of(
          ProcessCounters.VOLUNTARY,
          "voluntary context switches",
          ProcessCounters.INVOLUNTARY,
          "involuntary context switches",
          ProcessCounters.WRITES,
          "write-family calls (syscw)",
          ProcessCounters.READS,
          "read-family calls (syscr)");
}
