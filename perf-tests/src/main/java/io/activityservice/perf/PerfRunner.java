package io.activityservice.perf;

import io.activityservice.perf.report.Analysis;
import io.activityservice.perf.report.EnvironmentInfo;
import io.activityservice.perf.report.RawData;
import io.activityservice.perf.report.Report;
import io.activityservice.perf.service.JfrProfile;
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
 * Entry point of the channel-to-channel performance suite (see perf-tests/README.md, run by
 * {@code perf-tests/run.sh}): sets up brokers and the service, runs the suite with a progress bar on
 * stderr, writes the report and exits non-zero if any burst lost or duplicated an event or the report is
 * incomplete.
 */
public final class PerfRunner {

  private PerfRunner() {
  }

  /** Runs the suite; see {@link Options#USAGE}. */
  public static void main(String[] args) {
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
      code = run(o);
    } catch (Exception e) {
      System.err.println("perf-tests failed: " + e);
      e.printStackTrace();
      code = 1;
    }
    System.exit(code);
  }

  static int run(Options o) throws Exception {
    Instant started = Instant.now();
    String runId = "r" + Long.toString(System.currentTimeMillis() / 1000 % 60_466_176L, 36);
    System.err.println("perf-tests: run " + runId + (o.quick() ? " (quick)" : " (full)") + ", report in " + o.reportDir());
    Suite suite;
    Map<String, String> env = new LinkedHashMap<>();
    Map<String, Object> profiles = new LinkedHashMap<>();
    Analysis analysis;
    try (Testbed bed = Testbed.start(o)) {
      System.err.println("perf-tests: service at " + bed.api().baseUrl() + " is up; " + bed.settings().get("activemq"));
      suite = new Suite(o, bed.legs(), bed.api(), runId);
      try {
        suite.run();
      } finally {
        bed.stopService();
      }
      bed.versions().forEach((k, v) -> env.put("version: " + k, v));
      bed.settings().forEach((k, v) -> env.put("setting: " + k, v));
      analysis = new Analysis(suite.results(), suite.sustainable(), suite.cepStatus());
      for (Analysis.Target t : analysis.targets()) {
        if (t.status().equals("missed")) {
          profiles.put(t.name(), profile(bed, analysis, t));
        }
      }
    }
    env.put("git commit", o.gitCommit());
    env.put("options", String.join(" ", o.args()).isEmpty() ? "(none)" : String.join(" ", o.args()));
    env.put("mode", (o.quick() ? "quick" : "full") + ": reps " + o.reps() + ", N " + o.smallN() + ", larger N " + o.largeN()
        + " × " + o.largeReps() + ", paced " + o.pacedSeconds() + " s per rate, p99 bounds JMS " + o.jmsP99Ms()
        + " ms / SQS " + o.sqsP99Ms() + " ms / Kafka " + o.kafkaP99Ms() + " ms, 1 KiB data, persistent JMS");
    env.put("run id", runId);
    env.put("duration", Duration.between(started, Instant.now()).toSeconds() + " s");
    env.put("load average at end", EnvironmentInfo.loadAverage());
    Map<String, String> environment = EnvironmentInfo.collect(env);
    RawData.write(o.reportDir(), suite.results());
    new Report(analysis, environment, suite.notes(), profiles).write(o.reportDir());
    return verdict(o, suite.results(), analysis);
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
      if (r.scenario().equals(t.scenario()) && r.mode().equals(t.mode())
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
        problems.add(String.format(Locale.ROOT, "%s %s N=%d rep %d: %d of %d received, %d duplicates, %d failed sends",
            r.scenario(), r.mode(), r.n(), r.rep(), r.received(), r.n(), r.duplicates(), r.sendFailures()));
      }
    }
    if (results.stream().noneMatch(r -> r.mode().equals("burst"))) {
      problems.add("no burst results");
    }
    for (String f : List.of("index.html", "report.md", "results.csv")) {
      if (!Files.exists(o.reportDir().resolve(f))) {
        problems.add("missing " + f);
      }
    }
    System.err.println("perf-tests: report written to " + o.reportDir().resolve("index.html"));
    a.targets().forEach(t -> System.err.println("  target: " + t.status() + " — " + t.name() + ": " + t.measured()));
    if (!problems.isEmpty()) {
      System.err.println("perf-tests: FAILED (loss, duplicates or incomplete report):");
      problems.forEach(p -> System.err.println("  " + p));
      return 1;
    }
    return 0;
  }
}
