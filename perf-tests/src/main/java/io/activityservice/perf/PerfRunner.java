package io.activityservice.perf;

import io.activityservice.perf.batching.BatchingSweep;
import io.activityservice.perf.cpu.CpuSource;
import io.activityservice.perf.report.Analysis;
import io.activityservice.perf.report.Baseline;
import io.activityservice.perf.report.CpuFacts;
import io.activityservice.perf.report.EnvironmentInfo;
import io.activityservice.perf.report.RawData;
import io.activityservice.perf.report.RelayCost;
import io.activityservice.perf.report.RelayTargets;
import io.activityservice.perf.report.Report;
import io.activityservice.perf.service.JfrProfile;
import io.activityservice.perf.suite.Options;
import io.activityservice.perf.suite.RunResult;
import io.activityservice.perf.suite.Suite;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Entry point of the channel-to-channel performance suite (see perf-tests/README.md, run by {@code
 * perf-tests/run.sh}): sets up brokers and the service, runs the suite with a progress bar on
 * stderr, writes the report and exits non-zero if any burst lost or duplicated an event or the
 * report is incomplete. With {@code --compare-jar OLD.jar} it runs the suite twice, first with the
 * old jar (report in {@code <report dir>/baseline}), then with the current one compared against it.
 */
public final class PerfRunner {

  private PerfRunner() {}

  /** Runs the suite; see {@link Options#usage()}. */
  public static void main(String[] args) {
    if (SpecjmsCommand.wanted(args)) {
      int code;
      try {
        code = SpecjmsCommand.run(args);
      } catch (Exception e) {
        System.err.println("perf-tests --specjms failed: " + e);
        e.printStackTrace();
        code = 1;
      }
      System.exit(code);
      return;
    }
    Options o;
    try {
      o = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    int code;
    try {
      if (o.compareJar() != null) {
        System.err.println("perf-tests: --compare-jar: first run with " + o.compareJar());
        Options before = o.forBaselineRun();
        int first = run(before, false); // the sweep measures this runner's adapter, not the old jar
        System.err.println("perf-tests: --compare-jar: second run with " + o.serviceJar());
        code =
            Math.max(
                first, run(o.againstBaseline(before.reportDir().resolve("results.csv")), true));
      } else {
        code = run(o, true);
      }
    } catch (Exception e) {
      System.err.println("perf-tests failed: " + e);
      e.printStackTrace();
      code = 1;
    }
    System.exit(code);
  }

  /**
   * One run of the suite and its report.
   *
   * @param withSweep in a full run, also run the batching sweep (not for the old jar of
   *     --compare-jar)
   */
  static int run(Options o, boolean withSweep) throws Exception {
    Instant started = Instant.now();
    String runId = "r" + Long.toString(System.currentTimeMillis() / 1000 % 60_466_176L, 36);
    System.err.println(
        "perf-tests: run "
            + runId
            + (o.quick() ? " (quick)" : " (full)")
            + ", report in "
            + o.reportDir());
    Suite suite;
    Map<String, String> env = new LinkedHashMap<>();
    Map<String, Object> profiles = new LinkedHashMap<>();
    Analysis analysis;
    RelayCost relay;
    List<Baseline.Row> baseline = null;
    Map<String, RelayCost.Row> before = Map.of();
    if (o.baseline() != null) {
      // Read it first: a bad file should fail before a long run, not after.
      baseline = Baseline.read(o.baseline());
      before = RelayTargets.read(o.baseline().resolveSibling(RelayTargets.FILE));
    }
    try (Testbed bed = Testbed.start(o)) {
      System.err.println(
          "perf-tests: service at "
              + bed.api().baseUrl()
              + " is up; "
              + bed.settings().get("activemq"));
      suite = new Suite(o, bed.legs(), bed.api(), runId, bed.cpuMeter(), bed);
      try {
        suite.run();
      } finally {
        bed.stopService();
      }
      bed.versions().forEach((k, v) -> env.put("version: " + k, v));
      bed.settings().forEach((k, v) -> env.put("setting: " + k, v));
      Map<String, String> sources = new LinkedHashMap<>();
      for (CpuSource s : bed.cpuMeter().sources()) {
        sources.put(s.name(), s.description());
      }
      CpuFacts cpu =
          new CpuFacts(
              suite.cpuUses(),
              suite.idleRates(),
              suite.idleMeasurements(),
              sources,
              bed.brokerInService(),
              bed.sharedCpuSources());
      analysis =
          new Analysis(
              suite.results(),
              suite.sustainable(),
              suite.cepStatus(),
              suite.steps(),
              cpu,
              suite.isolationStatus(),
              suite.parked());
      relay =
          new RelayCost(
              analysis,
              new RelayCost.Facts(
                  o.steady().n(),
                  o.steady().bursts(),
                  o.steady().maxJitShare(),
                  suite.subjects(),
                  suite.flameGraphs(),
                  suite.syscalls(),
                  suite.peerStatus(),
                  o.jmhResult()));
      for (Analysis.Target t : analysis.targets()) {
        if (t.status().equals("missed")) {
          profiles.put(t.name(), profile(bed, analysis, t));
        }
      }
    }
    if (withSweep && !o.quick() && o.only().isEmpty()) {
      batchingSweep(o, analysis);
    }
    env.put("git commit", o.gitCommit());
    env.put(
        "options", String.join(" ", o.args()).isEmpty() ? "(none)" : String.join(" ", o.args()));
    env.put(
        "mode",
        (o.quick() ? "quick" : "full")
            + ": reps "
            + o.reps()
            + ", N "
            + o.smallN()
            + ", larger N "
            + o.largeN()
            + " × "
            + o.largeReps()
            + ", paced "
            + o.pacedSeconds()
            + " s per run, 3 runs per rate (2 of 3 must meet the bound"
            + (o.quick() ? "; third run skipped once two agree" : "")
            + "), p99 bounds JMS "
            + o.jmsP99Ms()
            + " ms / SQS "
            + o.sqsP99Ms()
            + " ms / Kafka "
            + o.kafkaP99Ms()
            + " ms, 1 KiB data, persistent JMS");
    env.put(
        "steady state",
        String.format(
            java.util.Locale.ROOT,
            "warm-up %,d events per path; figures from bursts of"
                + " %,d with JIT < %.0f %% of the process's own CPU, %d per figure, at most %d bursts; idle over %.0f s; peer: %s;"
                + " profiles: %s",
            o.steady().warmup(),
            o.steady().n(),
            o.steady().maxJitShare() * 100,
            o.steady().bursts(),
            o.steady().maxBursts(),
            o.steady().idleSeconds(),
            o.peer(),
            o.profile() ? "on" : "off"));
    env.put("run id", runId);
    env.put("duration", Duration.between(started, Instant.now()).toSeconds() + " s");
    env.put("load average at end", EnvironmentInfo.loadAverage());
    Map<String, String> environment = EnvironmentInfo.collect(env);
    RawData.write(o.reportDir(), suite.results());
    RawData.writeCpu(o.reportDir(), suite.cpuUses());
    List<Baseline.Comparison> comparison =
        baseline == null ? List.of() : Baseline.compare(baseline, Baseline.rows(suite.results()));
    List<RelayCost.Row> rows = relay.targets();
    RelayTargets.write(o.reportDir().resolve(RelayTargets.FILE), rows);
    new Report(
            analysis,
            environment,
            suite.notes(),
            profiles,
            comparison,
            o.baseline() == null ? null : o.baseline().toString())
        .withRelayCost(relay, before)
        .withHops(suite.hops().meansMillis())
        .withStages(suite.stageShares())
        .withSpecjms(io.activityservice.perf.report.CapacityModelTable.specjmsRows(o.reportDir()))
        .write(o.reportDir());
    rows.forEach(
        r ->
            System.err.println(
                "  relay target: " + r.status() + " — " + r.target() + ": " + r.figure()));
    return verdict(o, suite.results(), analysis);
  }

  /**
   * A full run also runs the batching sweep (SQS send batching, fixed sizes vs adaptive; it needs
   * no service) so that the report's target table carries the adaptive controller's targets; its
   * own report goes to {@code <report dir>/batching}.
   */
  private static void batchingSweep(Options o, Analysis analysis) {
    if (o.sqsEndpoint() == null) {
      analysis.addTargetsMeasuredElsewhere(
          List.of(
              new Analysis.Target(
                  "Adaptive batching (SQS send)",
                  "-",
                  "not measured: the sweep runs against LocalStack or --sqs-endpoint, not --sqs=aws",
                  "batching",
                  "sweep",
                  0)));
      return;
    }
    try {
      System.err.println("perf-tests: batching sweep (SQS send batching, fixed sizes vs adaptive)");
      analysis.addTargetsMeasuredElsewhere(
          BatchingSweep.forFullRun(
              java.net.URI.create(o.sqsEndpoint()), o.reportDir().resolve("batching")));
    } catch (Exception e) {
      analysis.addTargetsMeasuredElsewhere(
          List.of(
              new Analysis.Target(
                  "Adaptive batching (SQS send)",
                  "-",
                  "not measured: the sweep failed: " + e,
                  "batching",
                  "sweep",
                  0)));
    }
  }

  private static Object profile(Testbed bed, Analysis a, Analysis.Target t) {
    if (bed.service() == null || bed.service().jfrFile() == null) {
      return "no profile: the service was not started by the suite or JFR is off (--no-jfr)";
    }
    Path jfr = bed.service().jfrFile();
    if (!Files.exists(jfr)) {
      return "no profile: " + jfr + " was not written";
    }
    List<JfrProfile.Window> windows = new ArrayList<>();
    for (RunResult r : a.results()) {
      if (r.scenario().equals(t.scenario())
          && r.mode().equals(t.mode())
          && (t.rate() == 0 || Math.abs(r.offeredRate() - t.rate()) < 0.5)) {
        windows.add(new JfrProfile.Window(r.start(), r.end()));
      }
    }
    try {
      return JfrProfile.of(jfr, windows, 15);
    } catch (Exception e) {
      return "no profile: " + e;
    }
  }

  private static int verdict(Options o, List<RunResult> results, Analysis a) {
    List<String> problems = new ArrayList<>();
    for (RunResult r : results) {
      if (!r.mode().equals("rate") && !r.exactlyOnce()) {
        problems.add(
            String.format(
                Locale.ROOT,
                "%s %s N=%d rep %d: %d of %d received, %d duplicates, %d failed sends",
                r.scenario(),
                r.mode(),
                r.n(),
                r.rep(),
                r.received(),
                r.n(),
                r.duplicates(),
                r.sendFailures()));
      }
    }
    if (results.stream().noneMatch(r -> r.mode().equals("burst"))) {
      problems.add("no burst results");
    }
    for (String f : List.of("index.html", "report.md", "results.csv", "cpu.csv")) {
      if (!Files.exists(o.reportDir().resolve(f))) {
        problems.add("missing " + f);
      }
    }
    System.err.println("perf-tests: report written to " + o.reportDir().resolve("index.html"));
    a.targets()
        .forEach(
            t ->
                System.err.println(
                    "  target: " + t.status() + " — " + t.name() + ": " + t.measured()));
    if (!problems.isEmpty()) {
      System.err.println("perf-tests: FAILED (loss, duplicates or incomplete report):");
      problems.forEach(p -> System.err.println("  " + p));
      return 1;
    }
    return 0;
  }
}
