package io.activityservice.perf.report;

import io.activityservice.perf.cpu.CpuCost;
import io.activityservice.perf.stats.Bootstrap;
import io.activityservice.perf.stats.Stats;
import io.activityservice.perf.suite.RateStep;
import io.activityservice.perf.suite.RunResult;
import io.activityservice.perf.suite.Scenario;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Turns raw runs into the report's tables: burst summaries, the via-service versus direct overhead,
 * the isolation scenario I1, CPU per relayed event, the targets and the paper's hypotheses H1–H8
 * (bootstrap 95 % confidence intervals of ratios of means).
 */
public final class Analysis {

  /**
   * Summary of the repetitions of one burst size.
   *
   * @param scenario scenario id
   * @param n events per burst
   * @param millis first send to last receive, one value per repetition
   */
  public record BurstSummary(String scenario, int n, double[] millis) {
    /** Mean milliseconds. */
    public double mean() {
      return Stats.mean(millis);
    }

    /** Mean events/s (N over the mean time). */
    public double throughput() {
      return n / (mean() / 1000);
    }
  }

  /**
   * A via-service scenario next to its direct counterpart at one N.
   *
   * @param via via-service scenario id
   * @param direct the counterpart (the slower direct leg)
   * @param n events per burst
   * @param ratio mean(via) / mean(direct) with its 95 % CI
   * @param addedP50Ms added median per-event latency in the bursts (ms)
   * @param addedP99Ms added p99 per-event latency in the bursts (ms)
   */
  public record Overhead(
      String via,
      String direct,
      int n,
      Bootstrap.Interval ratio,
      double addedP50Ms,
      double addedP99Ms) {}

  /**
   * One target.
   *
   * @param name what is required
   * @param measured the figure measured
   * @param status {@code met}, {@code missed} or {@code not measured: …}
   * @param scenario scenario to profile if missed
   * @param mode run mode to profile
   * @param rate offered rate to profile (0 = all)
   */
  public record Target(
      String name, String measured, String status, String scenario, String mode, double rate) {}

  /**
   * One hypothesis.
   *
   * @param id H1…H8
   * @param statement the paper's wording
   * @param test the comparison and test
   * @param ours our figures
   * @param paper the paper's figures
   * @param verdict {@code holds} / {@code does not hold} / {@code not tested}
   */
  public record Hypothesis(
      String id, String statement, String test, String ours, String paper, String verdict) {}

  /**
   * I1 at one N: the healthy subscription's burst time alone and beside the failing one.
   *
   * @param n events per burst
   * @param alone burst times alone (ms), one per repetition
   * @param beside burst times beside the failing subscription (ms)
   * @param ratio mean(beside) / mean(alone) with its 95 % CI
   */
  public record Isolation(int n, double[] alone, double[] beside, Bootstrap.Interval ratio) {}

  /**
   * Service CPU targets: scenario, path, bound in µs per relayed event, whether the path uses JMS.
   */
  static final List<Object[]> CPU_TARGETS =
      List.of(
          new Object[] {"T2", "JMS→JMS", 50.0, true},
          new Object[] {"K2", "Kafka→Kafka", 50.0, false},
          new Object[] {"T4", "SQS→SQS", 100.0, false});

  private final List<RunResult> results;
  private final List<Target> measuredElsewhere = new ArrayList<>();
  private final Map<String, Double> sustainable;
  private final String cepStatus;
  private final List<RateStep> steps;
  private final CpuFacts cpu;
  private final String isolationStatus;
  private final Map<String, Long> parked;
  private final Bootstrap bootstrap = Bootstrap.standard();

  /** An analysis of {@code results} without ladder steps, CPU readings or I1. */
  public Analysis(List<RunResult> results, Map<String, Double> sustainable, String cepStatus) {
    this(results, sustainable, cepStatus, List.of(), CpuFacts.none(), "not run", Map.of());
  }

  /**
   * An analysis of everything a suite measured.
   *
   * @param steps the latency ladders' steps (2 of 3 rule)
   * @param cpu CPU per relayed event
   * @param isolationStatus I1's status ("measured …" or why not)
   * @param parked I1: failing deliveries found in the retry store after each "beside" burst, by
   *     "N/rep"
   */
  public Analysis(
      List<RunResult> results,
      Map<String, Double> sustainable,
      String cepStatus,
      List<RateStep> steps,
      CpuFacts cpu,
      String isolationStatus,
      Map<String, Long> parked) {
    this.results = results;
    this.sustainable = sustainable;
    this.cepStatus = cepStatus;
    this.steps = steps;
    this.cpu = cpu;
    this.isolationStatus = isolationStatus;
    this.parked = parked;
  }

  /** The ladders' steps. */
  public List<RateStep> steps() {
    return steps;
  }

  /** CPU per relayed event. */
  public CpuFacts cpu() {
    return cpu;
  }

  /** CPU per relayed event per scenario, mode and source, over all bursts. */
  public List<CpuCost.Cost> cpuCosts() {
    return CpuCost.of(cpu.uses(), cpu.idleRates());
  }

  /**
   * CPU per relayed event over the bursts of each scenario's largest N only: the warmest runs
   * (least JIT, since they come last) and the most events per 10 ms clock tick.
   */
  public List<CpuCost.Cost> cpuCostsLargestN() {
    Map<String, Integer> largest = new java.util.HashMap<>();
    cpu.uses().forEach(u -> largest.merge(u.scenario() + "|" + u.mode(), u.n(), Math::max));
    return CpuCost.of(
        cpu.uses().stream()
            .filter(u -> u.n() == largest.get(u.scenario() + "|" + u.mode()))
            .toList(),
        cpu.idleRates());
  }

  /**
   * The source that stands for the service's own CPU: {@code service-own} if read, else the whole
   * process.
   */
  public String serviceSource() {
    return cpu.uses().stream().anyMatch(u -> u.cpuMs().containsKey("service-own"))
        ? "service-own"
        : "service";
  }

  /** I1's status. */
  public String isolationStatus() {
    return isolationStatus;
  }

  /**
   * I1: failing deliveries in the retry store after each "beside" burst, by "N/rep" (-1: API
   * absent).
   */
  public Map<String, Long> parked() {
    return parked;
  }

  /** I1 per N measured: alone versus beside the failing subscription. */
  public List<Isolation> isolation() {
    List<Isolation> out = new ArrayList<>();
    for (int n : new TreeSet<>(runs("I1", "alone", -1).stream().map(RunResult::n).toList())) {
      double[] alone = runs("I1", "alone", n).stream().mapToDouble(RunResult::millis).toArray();
      double[] beside = runs("I1", "beside", n).stream().mapToDouble(RunResult::millis).toArray();
      if (alone.length > 0 && beside.length > 0) {
        out.add(new Isolation(n, alone, beside, bootstrap.ratioOfMeans(beside, alone)));
      }
    }
    return out;
  }

  /** The raw runs. */
  public List<RunResult> results() {
    return results;
  }

  /** Highest sustained rates. */
  public Map<String, Double> sustainable() {
    return sustainable;
  }

  /** The detectors + rules comparison status. */
  public String cepStatus() {
    return cepStatus;
  }

  /** Burst sizes measured, ascending. */
  public List<Integer> burstSizes() {
    return new ArrayList<>(
        new TreeSet<>(
            results.stream().filter(r -> r.mode().equals("burst")).map(RunResult::n).toList()));
  }

  /** Runs of one scenario, mode and N (or offered rate for paced runs: pass n = -1). */
  public List<RunResult> runs(String scenario, String mode, int n) {
    return results.stream()
        .filter(
            r -> r.scenario().equals(scenario) && r.mode().equals(mode) && (n < 0 || r.n() == n))
        .toList();
  }

  /** Summary of a burst size, if measured. */
  public Optional<BurstSummary> burst(String scenario, int n) {
    double[] ms = runs(scenario, "burst", n).stream().mapToDouble(RunResult::millis).toArray();
    return ms.length == 0 ? Optional.empty() : Optional.of(new BurstSummary(scenario, n, ms));
  }

  /** Paced runs of a scenario at an offered rate (up to 3 per ladder step), in order. */
  public List<RunResult> pacedRuns(String scenario, double rate) {
    return results.stream()
        .filter(
            r ->
                r.scenario().equals(scenario)
                    && r.mode().equals("rate")
                    && Math.abs(r.offeredRate() - rate) < 0.5)
        .toList();
  }

  /**
   * The median run by p99 of a scenario at an offered rate (the run that represents the step), if
   * measured.
   */
  public Optional<RunResult> paced(String scenario, double rate) {
    List<RunResult> runs = new ArrayList<>(pacedRuns(scenario, rate));
    runs.sort((a, b) -> Double.compare(a.percentileMillis(99), b.percentileMillis(99)));
    return runs.isEmpty() ? Optional.empty() : Optional.of(runs.get((runs.size() - 1) / 2));
  }

  /** Median over a step's runs of their latency percentile {@code p} (ms); NaN if not measured. */
  public double pacedMedian(String scenario, double rate, double p) {
    return Stats.quantile(
        pacedRuns(scenario, rate).stream()
            .mapToDouble(r -> r.percentileMillis(p))
            .filter(Double::isFinite)
            .toArray(),
        0.5);
  }

  /** Offered rates measured for a scenario, ascending. */
  public List<Double> pacedRates(String scenario) {
    return new ArrayList<>(
        new TreeSet<>(pacedRuns(scenario).stream().map(RunResult::offeredRate).toList()));
  }

  /** Paced runs of a scenario, by ascending rate. */
  public List<RunResult> pacedRuns(String scenario) {
    return results.stream()
        .filter(r -> r.scenario().equals(scenario) && r.mode().equals("rate"))
        .sorted((a, b) -> Double.compare(a.offeredRate(), b.offeredRate()))
        .toList();
  }

  /**
   * The direct counterpart of a via scenario at N: the slower of its direct legs that was measured.
   */
  public Optional<String> counterpart(Scenario via, int n) {
    return via.directLegs().stream()
        .filter(id -> burst(id, n).isPresent())
        .max((a, b) -> Double.compare(burst(a, n).get().mean(), burst(b, n).get().mean()));
  }

  /** Via versus direct for every via scenario and burst size measured. */
  public List<Overhead> overheads() {
    List<Overhead> out = new ArrayList<>();
    for (Scenario s : Scenario.all()) {
      if (!s.relayed()) {
        continue;
      }
      for (int n : burstSizes()) {
        Optional<BurstSummary> via = burst(s.id(), n);
        Optional<String> direct = counterpart(s, n);
        if (via.isEmpty() || direct.isEmpty()) {
          continue;
        }
        BurstSummary d = burst(direct.get(), n).orElseThrow();
        out.add(
            new Overhead(
                s.id(),
                direct.get(),
                n,
                bootstrap.ratioOfMeans(via.get().millis(), d.millis()),
                medianOf(s.id(), n, 50) - medianOf(direct.get(), n, 50),
                medianOf(s.id(), n, 99) - medianOf(direct.get(), n, 99)));
      }
    }
    return out;
  }

  private double medianOf(String scenario, int n, double percentile) {
    double[] xs =
        runs(scenario, "burst", n).stream()
            .mapToDouble(r -> r.percentileMillis(percentile))
            .toArray();
    return Stats.quantile(xs, 0.5);
  }

  /** The targets of issue 6, evaluated. */
  public List<Target> targets() {
    List<Target> t = new ArrayList<>();
    t.add(
        burstTarget(
            "T2 500-event burst ≤ 1.25× T1 (same run) and ≤ 200 ms", "T2", "T1", 500, 1.25, 200));
    t.add(
        burstTarget(
            "T2 10,000-event burst ≤ 1.25× T1 (same run)",
            "T2",
            "T1",
            10_000,
            1.25,
            Double.MAX_VALUE));
    t.add(burstTarget("T4 500-event burst ≤ 1.3× T3 and ≤ 3 s", "T4", "T3", 500, 1.3, 3000));
    t.add(
        burstTarget(
            "T4 10,000-event burst ≤ 1.3× T3 (same run)",
            "T4",
            "T3",
            10_000,
            1.3,
            Double.MAX_VALUE));
    t.add(
        burstTarget(
            "K2 1,000-event burst ≤ 1.3× K1 (same run)", "K2", "K1", 1_000, 1.3, Double.MAX_VALUE));
    t.add(
        burstTarget(
            "K2 10,000-event burst ≤ 1.3× K1 (same run)",
            "K2",
            "K1",
            10_000,
            1.3,
            Double.MAX_VALUE));
    t.add(
        legTarget(
            "T5 (JMS→service→SQS) 500-event burst within 1.2× of the slower leg's direct scenario",
            "T5"));
    t.add(
        legTarget(
            "T6 (SQS→service→JMS) 500-event burst within 1.2× of the slower leg's direct scenario",
            "T6"));
    t.add(
        addedLatencyTarget(
            "JMS→service→JMS at 1,000 ev/s (1 KiB): added p50 ≤ 0.5 ms and added p99 ≤ 2 ms over direct JMS",
            "T2",
            "T1",
            0.5,
            2));
    t.add(
        addedLatencyTarget(
            "Kafka→service→Kafka at 1,000 ev/s (1 KiB): added p50 ≤ 1 ms over direct Kafka",
            "K2",
            "K1",
            1,
            Double.MAX_VALUE));
    t.add(
        rateTarget(
            "Highest sustainable JMS→service→JMS rate ≥ 0.45× direct JMS", "T2", "T1", 0.45));
    t.add(rateTarget("SQS→service→SQS sustainable rate ≥ 0.8× direct SQS→SQS", "T4", "T3", 0.8));
    t.add(rateTarget("Kafka→service→Kafka sustainable rate ≥ 0.5× direct Kafka", "K2", "K1", 0.5));
    t.add(cepTarget());
    t.add(isolationTarget());
    for (Object[] c : CPU_TARGETS) {
      t.add(cpuTarget((String) c[0], (String) c[1], (Double) c[2], (Boolean) c[3]));
    }
    t.addAll(measuredElsewhere);
    return t;
  }

  /**
   * Adds targets judged by a measurement outside the suite's runs (the batching sweep of a full
   * run); they follow the suite's own in {@link #targets()}.
   */
  public void addTargetsMeasuredElsewhere(List<Target> targets) {
    measuredElsewhere.addAll(targets);
  }

  private Target isolationTarget() {
    String name =
        "Healthy subscriber beside a failing one (webhook 503 after 5 s) ≤ 1.2× alone (I1, 500-event burst)";
    Optional<Isolation> i =
        isolation().stream()
            .filter(x -> x.n() == 500)
            .findFirst()
            .or(() -> isolation().stream().reduce((a, b) -> b));
    if (i.isEmpty()) {
      return new Target(
          name,
          "-",
          isolationStatus.startsWith("measured") ? "not measured: no runs" : isolationStatus,
          "I1",
          "beside",
          0);
    }
    Isolation x = i.get();
    return new Target(
        name,
        String.format(
            Locale.ROOT,
            "N=%d: beside %.0f ms vs alone %.0f ms: %.2f× (95%% CI %.2f–%.2f)",
            x.n(),
            Stats.mean(x.beside()),
            Stats.mean(x.alone()),
            x.ratio().estimate(),
            x.ratio().low(),
            x.ratio().high()),
        x.ratio().estimate() <= 1.2 ? "met" : "missed",
        "I1",
        "beside",
        0);
  }

  private Target cpuTarget(String scenario, String path, double boundMicros, boolean jms) {
    String name =
        String.format(
            Locale.ROOT,
            "Service CPU per relayed event ≤ %.0f µs for %s (%s, largest-N bursts,"
                + " net of idle)",
            boundMicros,
            path,
            scenario);
    String source = serviceSource();
    Optional<CpuCost.Cost> c = CpuCost.find(cpuCostsLargestN(), scenario, "burst", source);
    if (c.isEmpty()) {
      return new Target(
          name,
          "-",
          "not measured: no CPU readings of the service (only when the suite starts it)",
          scenario,
          "burst",
          0);
    }
    double micros =
        Double.isFinite(c.get().netMicros()) ? c.get().netMicros() : c.get().grossMicros();
    String figure =
        String.format(
            Locale.ROOT,
            "%.1f µs/event (%s; gross %.1f; %,d events in %d bursts)",
            micros,
            source.equals("service-own") ? "without JIT and JFR threads" : "whole process",
            c.get().grossMicros(),
            c.get().events(),
            c.get().runs());
    if (jms && cpu.brokerInService()) {
      return new Target(
          name,
          figure + ", includes the embedded broker",
          "not measured: the embedded ActiveMQ broker runs in the service's process (use --activemq-process)",
          scenario,
          "burst",
          0);
    }
    return new Target(name, figure, micros <= boundMicros ? "met" : "missed", scenario, "burst", 0);
  }

  private Target burstTarget(
      String name, String via, String direct, int n, double maxRatio, double maxMs) {
    Optional<BurstSummary> v = burst(via, n);
    Optional<BurstSummary> d = burst(direct, n);
    if (v.isEmpty() || d.isEmpty()) {
      return new Target(
          name,
          "-",
          "not measured: no "
              + n
              + "-event bursts of "
              + via
              + " and "
              + direct
              + " in this run"
              + (n > 1_000 ? " (a full run has them; --large-n)" : ""),
          via,
          "burst",
          0);
    }
    Bootstrap.Interval ratio = bootstrap.ratioOfMeans(v.get().millis(), d.get().millis());
    boolean met = ratio.estimate() <= maxRatio && v.get().mean() <= maxMs;
    return new Target(
        name,
        String.format(
            Locale.ROOT,
            "%s %.0f ms vs %s %.0f ms: %.2f× (95%% CI %.2f–%.2f)",
            via,
            v.get().mean(),
            direct,
            d.get().mean(),
            ratio.estimate(),
            ratio.low(),
            ratio.high()),
        met ? "met" : "missed",
        via,
        "burst",
        0);
  }

  private Target legTarget(String name, String via) {
    Scenario s = Scenario.all().stream().filter(x -> x.id().equals(via)).findFirst().orElseThrow();
    Optional<BurstSummary> v = burst(via, 500);
    Optional<String> slower = counterpart(s, 500);
    if (v.isEmpty() || slower.isEmpty()) {
      return new Target(name, "-", "not measured: scenario not run", via, "burst", 0);
    }
    BurstSummary d = burst(slower.get(), 500).orElseThrow();
    Bootstrap.Interval ratio = bootstrap.ratioOfMeans(v.get().millis(), d.millis());
    return new Target(
        name,
        String.format(
            Locale.ROOT,
            "%s %.0f ms vs slower leg %s %.0f ms: %.2f× (95%% CI %.2f–%.2f)",
            via,
            v.get().mean(),
            slower.get(),
            d.mean(),
            ratio.estimate(),
            ratio.low(),
            ratio.high()),
        ratio.estimate() <= 1.2 ? "met" : "missed",
        via,
        "burst",
        0);
  }

  private Target addedLatencyTarget(
      String name, String via, String direct, double maxP50Ms, double maxP99Ms) {
    if (pacedRuns(via, 1000).isEmpty() || pacedRuns(direct, 1000).isEmpty()) {
      return new Target(
          name, "-", "not measured: paced runs at 1,000 ev/s missing", via, "rate", 1000);
    }
    // Medians over the step's runs, so one spike in one run does not decide it.
    double v50 = pacedMedian(via, 1000, 50);
    double d50 = pacedMedian(direct, 1000, 50);
    double v99 = pacedMedian(via, 1000, 99);
    double d99 = pacedMedian(direct, 1000, 99);
    double p50 = v50 - d50;
    double p99 = v99 - d99;
    return new Target(
        name,
        String.format(
            Locale.ROOT,
            "added p50 %.2f ms (%.2f vs %.2f), added p99 %.2f ms (%.2f vs %.2f); medians of %d/%d runs",
            p50,
            v50,
            d50,
            p99,
            v99,
            d99,
            pacedRuns(via, 1000).size(),
            pacedRuns(direct, 1000).size()),
        p50 <= maxP50Ms && p99 <= maxP99Ms ? "met" : "missed",
        via,
        "rate",
        1000);
  }

  private Target rateTarget(String name, String via, String direct, double minRatio) {
    Double v = sustainable.get(via);
    Double d = sustainable.get(direct);
    if (v == null || d == null) {
      return new Target(name, "-", "not measured: latency ladder not run", via, "rate", 0);
    }
    double ratio = d == 0 ? 0 : v / d;
    return new Target(
        name,
        String.format(Locale.ROOT, "%s %.0f ev/s vs %s %.0f ev/s: %.2f×", via, v, direct, d, ratio),
        d > 0 && ratio >= minRatio ? "met" : "missed",
        via,
        "rate",
        0);
  }

  private Target cepTarget() {
    String name = "With 10 detectors and 10 rules on the path: throughput ≥ 0.7× relay-only";
    double[] relay = runs("C1", "relay", -1).stream().mapToDouble(RunResult::throughput).toArray();
    double[] cep = runs("C1", "cep", -1).stream().mapToDouble(RunResult::throughput).toArray();
    if (!"measured".equals(cepStatus) || relay.length == 0 || cep.length == 0) {
      String figure =
          relay.length == 0
              ? "-"
              : String.format(Locale.ROOT, "relay-only %.0f ev/s", Stats.mean(relay));
      return new Target(name, figure, cepStatus, "C1", "cep", 0);
    }
    Bootstrap.Interval ratio = bootstrap.ratioOfMeans(cep, relay);
    return new Target(
        name,
        String.format(
            Locale.ROOT,
            "%.0f vs %.0f ev/s: %.2f× (95%% CI %.2f–%.2f)",
            Stats.mean(cep),
            Stats.mean(relay),
            ratio.estimate(),
            ratio.low(),
            ratio.high()),
        ratio.estimate() >= 0.7 ? "met" : "missed",
        "C1",
        "cep",
        0);
  }

  /** H1–H8 on our data. */
  public List<Hypothesis> hypotheses() {
    List<Hypothesis> h = new ArrayList<>();
    h.add(
        slower(
            "H1",
            "JMS alone can achieve better performance than JMS interconnected with the Activity Service.",
            "T2",
            "T1",
            "N=500: T1 2,439 ms vs T2 4,285 ms (1.76×); held"));
    h.add(
        slower(
            "H2",
            "SQS alone can achieve better performance than SQS interconnected with the Activity Service.",
            "T4",
            "T3",
            "N=500: T3 65,374 ms vs T4 266,455 ms (4.08×); held"));
    h.add(
        differs(
            "H3",
            "There can be a difference in the performance of JMS alone and SQS alone.",
            "T3",
            "T1",
            "N=500: T3/T1 = 65,374/2,439 = 26.8× (\"up to 36×\"); held"));
    h.add(
        differs(
            "H4",
            "There can be a difference between JMS and SQS interconnected with the Activity Service.",
            "T4",
            "T2",
            "N=500: T4/T2 = 266,455/4,285 = 62× (\"up to 120×\"); \"disproved to some degree\""));
    h.add(
        grows(
            "H5",
            "The number of events can affect the performance of JMS alone.",
            "T1",
            "Fig. 4 (values not in the text); held"));
    h.add(
        grows(
            "H6",
            "The number of events can affect the performance of SQS alone.",
            "T3",
            "N=100 13,412 ms → N=500 65,374 ms (4.9×); held"));
    h.add(
        grows(
            "H7",
            "The number of events can affect the performance of JMS interconnected with the Activity Service.",
            "T2",
            "N=100 1,286 ms → N=500 ≈4,470 ms (+3,184) → N=1000 ≈4,775 ms (+305); held"));
    h.add(
        grows(
            "H8",
            "The number of events can affect the performance of SQS interconnected with the Activity Service.",
            "T4",
            "N=100 373,678 ms (as printed) vs N=500 266,455 ms; held"));
    return h;
  }

  private List<Integer> paperSizes() {
    return burstSizes().stream().filter(n -> n <= 1000).toList();
  }

  private Hypothesis slower(String id, String statement, String via, String direct, String paper) {
    String test =
        "mean(" + via + ")/mean(" + direct + ") per N ∈ {100,500,1000}; holds if every 95 % CI > 1";
    return compare(id, statement, test, via, direct, paper, iv -> iv.above(1));
  }

  private Hypothesis differs(String id, String statement, String a, String b, String paper) {
    String test = "mean(" + a + ")/mean(" + b + ") per N; holds if every 95 % CI excludes 1";
    return compare(id, statement, test, a, b, paper, iv -> iv.excludes(1));
  }

  private Hypothesis compare(
      String id,
      String statement,
      String test,
      String a,
      String b,
      String paper,
      java.util.function.Predicate<Bootstrap.Interval> holds) {
    StringBuilder ours = new StringBuilder();
    boolean all = true;
    int tested = 0;
    for (int n : paperSizes()) {
      Optional<BurstSummary> x = burst(a, n);
      Optional<BurstSummary> y = burst(b, n);
      if (x.isEmpty() || y.isEmpty()) {
        continue;
      }
      Bootstrap.Interval iv = bootstrap.ratioOfMeans(x.get().millis(), y.get().millis());
      tested++;
      all &= holds.test(iv);
      ours.append(
          String.format(
              Locale.ROOT,
              "N=%d: %.0f vs %.0f ms, %.2f× [%.2f, %.2f]; ",
              n,
              x.get().mean(),
              y.get().mean(),
              iv.estimate(),
              iv.low(),
              iv.high()));
    }
    return new Hypothesis(
        id,
        statement,
        test,
        ours.toString().trim(),
        paper,
        tested == 0 ? "not tested" : all ? "holds" : "does not hold");
  }

  private Hypothesis grows(String id, String statement, String scenario, String paper) {
    List<Integer> sizes = paperSizes();
    if (sizes.size() < 2) {
      return new Hypothesis(id, statement, "-", "-", paper, "not tested");
    }
    int lo = sizes.get(0);
    int hi = sizes.get(sizes.size() - 1);
    Optional<BurstSummary> a = burst(scenario, hi);
    Optional<BurstSummary> b = burst(scenario, lo);
    String test =
        "t(" + hi + ")/t(" + lo + ") of " + scenario + "; holds if the 95 % CI excludes 1";
    if (a.isEmpty() || b.isEmpty()) {
      return new Hypothesis(id, statement, test, "-", paper, "not tested");
    }
    Bootstrap.Interval iv = bootstrap.ratioOfMeans(a.get().millis(), b.get().millis());
    String ours =
        String.format(
            Locale.ROOT,
            "%.0f → %.0f ms, %.2f× [%.2f, %.2f]",
            b.get().mean(),
            a.get().mean(),
            iv.estimate(),
            iv.low(),
            iv.high());
    return new Hypothesis(
        id, statement, test, ours, paper, iv.excludes(1) ? "holds" : "does not hold");
  }
}
