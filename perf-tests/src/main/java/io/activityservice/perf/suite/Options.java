package io.activityservice.perf.suite;

import io.activityservice.perf.cli.CommandLines;
import io.activityservice.perf.cli.ServiceJar;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Command-line options of the suite ({@code io.activityservice.perf.PerfRunner}, also accepted by
 * {@code perf-tests/run.sh}), read by picocli.
 *
 * @param quick CI mode: N = 100 and 500, 2 repetitions, short paced runs, no large N
 * @param serviceUrl use a running service instead of starting one (null: start the jar)
 * @param serviceJar the service jar to start
 * @param activemqUrl external ActiveMQ broker (null: the service's embedded broker)
 * @param sqsEndpoint SQS endpoint (default LocalStack on 127.0.0.1:4566); null with {@code sqsAws}
 * @param sqsAws use real AWS SQS (default credential and region chains)
 * @param kafka external Kafka brokers (null: an embedded broker in this JVM)
 * @param noKafka skip the Kafka scenarios
 * @param reportDir where the report goes
 * @param workDir working directory of the started service
 * @param reps repetitions for N = 100, 500, 1000
 * @param largeN larger N for throughput (empty in quick mode)
 * @param largeReps repetitions of each larger N (same order as {@code largeN})
 * @param jmsP99Ms p99 bound of a sustainable JMS rate (ms)
 * @param sqsP99Ms p99 bound of a sustainable SQS rate (ms)
 * @param kafkaP99Ms p99 bound of a sustainable Kafka rate (ms)
 * @param pacedSeconds duration of each paced run
 * @param jfr record JFR in the started service
 * @param gitCommit commit (from run.sh) for the environment record
 * @param apiKey bearer token for the service's API: with {@code --service-url}, an admin key of
 *     that service ({@code --api-key}, else the environment variable {@code ACTIVITY_KEY}); for a
 *     started service its bootstrap admin key (generated per run unless given)
 * @param args the arguments as given, the API key's value redacted
 * @param activemqProcess start an ActiveMQ broker in a JVM of its own and use it as an external
 *     broker
 * @param baseline an earlier run's results.csv to compare with ("before/after" table), or null
 * @param compareJar an older service jar: run the suite with it first, then with {@code serviceJar}
 *     against that run's results as the baseline; or null
 * @param steady the steady-state rule: warm-up, burst size and count of the CPU figures, JIT share,
 *     idle window
 * @param peer {@code camel} to start the Camel peer (perf-peer-camel) beside the service, {@code
 *     none} not to
 * @param peerJar the peer's jar
 * @param profile attach async-profiler to the service (and the peer) per path: CPU and allocation
 *     flame graphs
 * @param strace count system calls per relayed event with strace on one burst per path (when strace
 *     exists)
 * @param only run only these scenarios (empty: all that can run)
 * @param jmhResult the in-process pipeline benchmark's JMH result file (JSON), read for its target
 *     row if present
 */
public record Options(
    boolean quick,
    String serviceUrl,
    Path serviceJar,
    String activemqUrl,
    String sqsEndpoint,
    boolean sqsAws,
    String kafka,
    boolean noKafka,
    Path reportDir,
    Path workDir,
    int reps,
    List<Integer> largeN,
    List<Integer> largeReps,
    double jmsP99Ms,
    double sqsP99Ms,
    double kafkaP99Ms,
    double pacedSeconds,
    boolean jfr,
    String gitCommit,
    String apiKey,
    List<String> args,
    boolean activemqProcess,
    Path baseline,
    Path compareJar,
    Steady steady,
    String peer,
    Path peerJar,
    boolean profile,
    boolean strace,
    List<String> only,
    Path jmhResult) {

  /**
   * When CPU figures count (perf-tests/README.md, "Steady state").
   *
   * @param warmup events sent through each path before anything is measured
   * @param n size of the bursts whose CPU makes the figures (and the Camel comparison's burst
   *     times)
   * @param bursts bursts needed per figure
   * @param maxBursts at most this many bursts of size {@code n} per path; fewer steady ones: "not
   *     steady"
   * @param maxJitShare a burst counts only if the JIT compiler threads used less than this share of
   *     the measured process's own CPU in its window
   * @param idleSeconds length of the idle CPU measurement
   */
  public record Steady(
      int warmup, int n, int bursts, int maxBursts, double maxJitShare, double idleSeconds) {}

  /** The usage, generated from the options below. */
  public static String usage() {
    return CommandLines.usage(new Cli());
  }

  /** The command line as picocli reads it; null where the default depends on {@code --quick}. */
  @Command(
      name = "perf-tests/run.sh",
      mixinStandardHelpOptions = true,
      sortOptions = false,
      description =
          "Channel-to-channel performance suite of the Activity Service (perf-tests/README.md).")
  static final class Cli {
    @Option(
        names = "--quick",
        description = "CI mode: N = 100 and 500, 2 repetitions, short paced runs, no large N")
    boolean quick;

    @Option(names = "--no-build", description = "read by run.sh: use the jars as built")
    boolean noBuild;

    @Option(
        names = "--service-url",
        paramLabel = "URL",
        description = "use a running service instead of starting one")
    String serviceUrl;

    @Mixin ServiceJar serviceJar;

    @Option(
        names = "--activemq-url",
        paramLabel = "URL",
        description = "an external ActiveMQ broker")
    String amq;

    @Option(
        names = "--activemq-process",
        description = "start an ActiveMQ broker in a JVM of its own and use it")
    boolean amqProcess;

    @Option(
        names = "--sqs-endpoint",
        paramLabel = "URL",
        description = "SQS endpoint (default: ${DEFAULT-VALUE})")
    String sqs = "http://127.0.0.1:4566";

    @Option(
        names = "--sqs",
        paramLabel = "aws",
        description = "aws: real AWS SQS (default credential and region chains)")
    String sqsAws;

    @Option(
        names = "--kafka",
        paramLabel = "BROKERS",
        description = "external Kafka brokers (default: an embedded one)")
    String kafka;

    @Option(names = "--no-kafka", description = "skip the Kafka scenarios")
    boolean noKafka;

    @Option(
        names = "--reps",
        paramLabel = "N",
        description = "repetitions for N = 100, 500, 1000 (default 10, quick 2)")
    Integer reps;

    @Option(
        names = "--large-n",
        paramLabel = "10000,100000",
        description = "larger N for throughput (quick: none)")
    String largeN;

    @Option(
        names = "--large-reps",
        paramLabel = "3,1",
        description = "repetitions of each larger N")
    String largeReps;

    @Option(
        names = "--paced-seconds",
        paramLabel = "S",
        description = "duration of each paced run (default 5, quick 1)")
    Double paced;

    @Option(
        names = "--jms-p99-ms",
        paramLabel = "MS",
        description = "p99 bound of a sustainable JMS rate (default: ${DEFAULT-VALUE})")
    double jmsP99 = 50;

    @Option(
        names = "--sqs-p99-ms",
        paramLabel = "MS",
        description = "p99 bound of a sustainable SQS rate (default: ${DEFAULT-VALUE})")
    double sqsP99 = 1000;

    @Option(
        names = "--kafka-p99-ms",
        paramLabel = "MS",
        description = "p99 bound of a sustainable Kafka rate (default: ${DEFAULT-VALUE})")
    double kafkaP99 = 100;

    @Option(names = "--no-jfr", description = "no JFR recording in the started service")
    boolean noJfr;

    @Option(
        names = "--report-dir",
        paramLabel = "DIR",
        description = "where the report goes (default: ${DEFAULT-VALUE})")
    Path report = Path.of("perf-tests/target/report");

    @Option(
        names = "--api-key",
        paramLabel = "KEY",
        description = "an admin key of the service (default: $ACTIVITY_KEY)")
    String apiKey = System.getenv("ACTIVITY_KEY");

    @Option(
        names = "--baseline",
        paramLabel = "RESULTS.csv",
        description = "an earlier run's results to compare with")
    Path baseline;

    @Option(
        names = "--compare-jar",
        paramLabel = "OLD-SERVICE.jar",
        description = "run the old jar first, then compare")
    Path compareJar;

    @Option(
        names = "--peer",
        paramLabel = "camel|none",
        description = "the Camel peer (default: camel in full runs)")
    String peer;

    @Option(
        names = "--peer-jar",
        paramLabel = "JAR",
        description = "the peer's jar (default: ${DEFAULT-VALUE})")
    Path peerJar = Path.of("perf-peer-camel/target/perf-peer-camel.jar");

    @Option(
        names = "--warmup",
        paramLabel = "N",
        description = "events through each path before measuring (default 50000, quick 100)")
    String warmup;

    @Option(
        names = "--steady-n",
        paramLabel = "N",
        description = "burst size of the CPU figures (default 10000, quick 500)")
    String steadyN;

    @Option(
        names = "--steady-bursts",
        paramLabel = "N",
        description = "steady bursts per figure (default: ${DEFAULT-VALUE})")
    String steadyBursts = "3";

    @Option(
        names = "--steady-max-bursts",
        paramLabel = "N",
        description = "at most this many bursts per path (default 8, quick 2)")
    String steadyMax;

    @Option(
        names = "--max-jit-share",
        paramLabel = "SHARE",
        description = "JIT share of a steady burst (default: ${DEFAULT-VALUE})")
    double jitShare = 0.02;

    @Option(
        names = "--idle-seconds",
        paramLabel = "S",
        description = "idle CPU measurement (default 30, quick 2)")
    Double idleSeconds;

    Boolean profile;

    @Option(names = "--no-strace", description = "no strace counts of system calls")
    boolean noStrace;

    @Option(
        names = "--scenarios",
        paramLabel = "T1,T2,CT2",
        description = "run only these scenarios")
    String only;

    @Option(
        names = "--jmh-result",
        paramLabel = "FILE",
        description = "the pipeline benchmark's JMH result (default: ${DEFAULT-VALUE})")
    Path jmh = Path.of("perf-tests/target/jmh/pipeline.json");

    @Option(
        names = "--profile",
        description = "async-profiler flame graphs per path (default in full runs)")
    void profile(boolean on) {
      profile = true;
    }

    @Option(names = "--no-profile", description = "no flame graphs")
    void noProfile(boolean on) {
      profile = false;
    }
  }

  /**
   * Parses {@code args}; throws IllegalArgumentException with the usage on bad input or {@code
   * --help}.
   */
  public static Options parse(String[] args) {
    Cli c = CommandLines.parseOrThrow(new Cli(), args);
    boolean quick = c.quick;
    String sqs = c.sqs;
    boolean aws = false;
    if (c.sqsAws != null) {
      if (!c.sqsAws.equals("aws")) {
        throw new IllegalArgumentException(
            "--sqs takes only 'aws'; use --sqs-endpoint URL otherwise\n" + usage());
      }
      aws = true;
      sqs = null;
    }
    if (c.peer != null && !c.peer.equals("camel") && !c.peer.equals("none")) {
      throw new IllegalArgumentException("--peer takes camel or none\n" + usage());
    }
    List<Integer> largeN =
        c.largeN != null ? ints(c.largeN) : quick ? List.of() : List.of(10_000, 100_000);
    List<Integer> largeReps =
        c.largeReps != null ? ints(c.largeReps) : quick ? List.of() : List.of(3, 1);
    if (largeReps.size() != largeN.size()) {
      throw new IllegalArgumentException(
          "--large-reps needs one count per --large-n value\n" + usage());
    }
    if (c.amqProcess && (c.amq != null || c.serviceUrl != null)) {
      throw new IllegalArgumentException(
          "--activemq-process starts a broker for a service the suite starts; it does"
              + " not go with --activemq-url or --service-url\n"
              + usage());
    }
    if (c.compareJar != null && c.serviceUrl != null) {
      throw new IllegalArgumentException(
          "--compare-jar starts both jars; it does not go with --service-url\n" + usage());
    }
    if (c.compareJar != null && c.baseline != null) {
      throw new IllegalArgumentException(
          "--compare-jar makes its own baseline; leave out --baseline\n" + usage());
    }
    int n = c.steadyN != null ? positive("--steady-n", c.steadyN) : quick ? 500 : 10_000;
    int max = c.steadyMax != null ? positive("--steady-max-bursts", c.steadyMax) : quick ? 2 : 8;
    if (c.jitShare <= 0 || c.jitShare >= 1) {
      throw new IllegalArgumentException("--max-jit-share must lie between 0 and 1\n" + usage());
    }
    Steady steady =
        new Steady(
            c.warmup != null ? positive("--warmup", c.warmup) : quick ? 100 : 50_000,
            n,
            positive("--steady-bursts", c.steadyBursts),
            Math.max(1, max),
            c.jitShare,
            c.idleSeconds != null ? c.idleSeconds : quick ? 2 : 30);
    String peer = c.peer != null ? c.peer : quick || c.serviceUrl != null ? "none" : "camel";
    List<String> only =
        c.only == null
            ? List.of()
            : List.of(c.only.toUpperCase(java.util.Locale.ROOT).split("\\s*,\\s*"));
    String apiKey = c.apiKey;
    return new Options(
        quick,
        c.serviceUrl,
        c.serviceJar.path(),
        c.amq,
        sqs,
        aws,
        c.kafka,
        c.noKafka,
        c.report,
        Path.of("perf-tests/target/perf-service"),
        c.reps != null ? c.reps : quick ? 2 : 10,
        largeN,
        largeReps,
        c.jmsP99,
        c.sqsP99,
        c.kafkaP99,
        c.paced != null ? c.paced : quick ? 1 : 5,
        !c.noJfr,
        System.getenv().getOrDefault("PERF_GIT_COMMIT", "unknown"),
        apiKey == null || apiKey.isBlank() ? null : apiKey.trim(),
        redacted(args),
        c.amqProcess,
        c.baseline,
        c.compareJar,
        steady,
        peer,
        c.peerJar,
        c.profile != null ? c.profile : !quick && c.serviceUrl == null,
        !c.noStrace,
        only,
        c.jmh);
  }

  /**
   * The arguments as given, the API key's value replaced (both {@code --api-key KEY} and {@code
   * --api-key=KEY}).
   */
  private static List<String> redacted(String[] args) {
    List<String> shown = new ArrayList<>(List.of(args));
    for (int i = 0; i < shown.size(); i++) {
      if (shown.get(i).equals("--api-key") && i + 1 < shown.size()) {
        shown.set(++i, "(redacted)");
      } else if (shown.get(i).startsWith("--api-key=")) {
        shown.set(i, "--api-key=(redacted)");
      }
    }
    return List.copyOf(shown);
  }

  private static int positive(String option, String v) {
    int x = Integer.parseInt(v.trim().replace("_", "").replace(",", ""));
    if (x < 1) {
      throw new IllegalArgumentException(option + " must be at least 1\n" + usage());
    }
    return x;
  }

  /** Whether the Camel peer runs beside the service. */
  public boolean camelPeer() {
    return peer.equals("camel");
  }

  /** Whether a scenario is to run ({@code --scenarios}; all by default). */
  public boolean runs(String scenario) {
    return only.isEmpty() || only.contains(scenario);
  }

  /**
   * The options of the baseline run of {@code --compare-jar}: the old jar, its report in {@code
   * <report dir>/baseline}, no comparison of its own.
   */
  public Options forBaselineRun() {
    return new Options(
        quick,
        serviceUrl,
        compareJar,
        activemqUrl,
        sqsEndpoint,
        sqsAws,
        kafka,
        noKafka,
        reportDir.resolve("baseline"),
        workDir,
        reps,
        largeN,
        largeReps,
        jmsP99Ms,
        sqsP99Ms,
        kafkaP99Ms,
        pacedSeconds,
        jfr,
        "(baseline run of --compare-jar; commit of the old jar unknown)",
        apiKey,
        args,
        activemqProcess,
        null,
        null,
        steady,
        peer,
        peerJar,
        profile,
        strace,
        only,
        jmhResult);
  }

  /**
   * The options of the second run of {@code --compare-jar}: this jar, compared with {@code
   * baselineCsv}.
   */
  public Options againstBaseline(Path baselineCsv) {
    return new Options(
        quick,
        serviceUrl,
        serviceJar,
        activemqUrl,
        sqsEndpoint,
        sqsAws,
        kafka,
        noKafka,
        reportDir,
        workDir,
        reps,
        largeN,
        largeReps,
        jmsP99Ms,
        sqsP99Ms,
        kafkaP99Ms,
        pacedSeconds,
        jfr,
        gitCommit,
        apiKey,
        args,
        activemqProcess,
        baselineCsv,
        null,
        steady,
        peer,
        peerJar,
        profile,
        strace,
        only,
        jmhResult);
  }

  @Override
  public String toString() {
    return "Options" + args;
  }

  /** Sizes of the paper's bursts. */
  public List<Integer> smallN() {
    return quick ? List.of(100, 500) : List.of(100, 500, 1000);
  }

  /** p99 bound (ms) of a sustainable rate on a transport. */
  public double p99BoundMs(String transport) {
    return switch (transport) {
      case "sqs" -> sqsP99Ms;
      case "kafka" -> kafkaP99Ms;
      default -> jmsP99Ms;
    };
  }

  private static List<Integer> ints(String csv) {
    List<Integer> out = new ArrayList<>();
    for (String s : csv.split(",")) {
      if (!s.isBlank()) {
        out.add(Integer.parseInt(s.trim().replace("_", "")));
      }
    }
    return out;
  }
}
