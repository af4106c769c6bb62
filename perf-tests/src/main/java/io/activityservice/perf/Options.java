package io.activityservice.perf;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Command-line options of {@link PerfRunner} (also accepted by {@code perf-tests/run.sh}).
 *
 * @param quick        CI mode: N = 100 and 500, 2 repetitions, short paced runs, no large N
 * @param serviceUrl   use a running service instead of starting one (null: start the jar)
 * @param serviceJar   the service jar to start
 * @param activemqUrl  external ActiveMQ broker (null: the service's embedded broker)
 * @param sqsEndpoint  SQS endpoint (default LocalStack on 127.0.0.1:4566); null with {@code sqsAws}
 * @param sqsAws       use real AWS SQS (default credential and region chains)
 * @param kafka        external Kafka brokers (null: an embedded broker in this JVM)
 * @param noKafka      skip the Kafka scenarios
 * @param reportDir    where the report goes
 * @param workDir      working directory of the started service
 * @param reps         repetitions for N = 100, 500, 1000
 * @param largeN       larger N for throughput (empty in quick mode)
 * @param largeReps    repetitions of each larger N (same order as {@code largeN})
 * @param jmsP99Ms     p99 bound of a sustainable JMS rate (ms)
 * @param sqsP99Ms     p99 bound of a sustainable SQS rate (ms)
 * @param kafkaP99Ms   p99 bound of a sustainable Kafka rate (ms)
 * @param pacedSeconds duration of each paced run
 * @param jfr          record JFR in the started service
 * @param gitCommit    commit (from run.sh) for the environment record
 * @param apiKey       bearer token for the service's API: with {@code --service-url}, an admin key of that service
 *                     ({@code --api-key}, else the environment variable {@code ACTIVITY_KEY}); for a started service
 *                     its bootstrap admin key (generated per run unless given)
 * @param args         the arguments as given, the API key's value redacted
 * @param activemqProcess start an ActiveMQ broker in a JVM of its own and use it as an external broker
 * @param baseline     an earlier run's results.csv to compare with ("before/after" table), or null
 * @param compareJar   an older service jar: run the suite with it first, then with {@code serviceJar} against
 *                     that run's results as the baseline; or null
 * @param steady       the steady-state rule: warm-up, burst size and count of the CPU figures, JIT share, idle window
 * @param peer         {@code camel} to start the Camel peer (perf-peer-camel) beside the service, {@code none} not to
 * @param peerJar      the peer's jar
 * @param profile      attach async-profiler to the service (and the peer) per path: CPU and allocation flame graphs
 * @param strace       count system calls per relayed event with strace on one burst per path (when strace exists)
 * @param only         run only these scenarios (empty: all that can run)
 * @param jmhResult    the in-process pipeline benchmark's JMH result file (JSON), read for its target row if present
 */
public record Options(boolean quick, String serviceUrl, Path serviceJar, String activemqUrl, String sqsEndpoint,
    boolean sqsAws, String kafka, boolean noKafka, Path reportDir, Path workDir, int reps, List<Integer> largeN,
    List<Integer> largeReps, double jmsP99Ms, double sqsP99Ms, double kafkaP99Ms, double pacedSeconds, boolean jfr,
    String gitCommit, String apiKey, List<String> args, boolean activemqProcess, Path baseline, Path compareJar,
    Steady steady, String peer, Path peerJar, boolean profile, boolean strace, List<String> only, Path jmhResult) {

  /**
   * When CPU figures count (perf-tests/README.md, "Steady state").
   *
   * @param warmup       events sent through each path before anything is measured
   * @param n            size of the bursts whose CPU makes the figures (and the Camel comparison's burst times)
   * @param bursts       bursts needed per figure
   * @param maxBursts    at most this many bursts of size {@code n} per path; fewer steady ones: "not steady"
   * @param maxJitShare  a burst counts only if the JIT compiler threads used less than this share of the measured
   *                     process's own CPU in its window
   * @param idleSeconds  length of the idle CPU measurement
   */
  public record Steady(int warmup, int n, int bursts, int maxBursts, double maxJitShare, double idleSeconds) {
  }

  static final String USAGE = """
      usage: perf-tests/run.sh [--quick] [--no-build] [--service-url URL] [--activemq-url URL]
                               [--sqs-endpoint URL | --sqs=aws] [--kafka BROKERS | --no-kafka]
                               [--reps N] [--large-n 10000,100000] [--large-reps 3,1] [--paced-seconds S]
                               [--jms-p99-ms 50] [--sqs-p99-ms 1000] [--kafka-p99-ms 100] [--no-jfr]
                               [--report-dir DIR] [--service-jar JAR] [--api-key KEY] [--activemq-process]
                               [--baseline RESULTS.csv] [--compare-jar OLD-SERVICE.jar]
                               [--peer camel|none] [--peer-jar JAR] [--warmup 50000] [--steady-n 10000]
                               [--steady-bursts 3] [--steady-max-bursts 8] [--max-jit-share 0.02]
                               [--idle-seconds 30] [--profile | --no-profile] [--no-strace]
                               [--scenarios T1,T2,CT2] [--jmh-result FILE]
      """;

  /** Parses {@code args}; throws IllegalArgumentException with the usage on bad input. */
  public static Options parse(String[] args) {
    boolean quick = false;
    String serviceUrl = null;
    Path jar = Path.of("activity-service/target/activity-service-0.1.0-SNAPSHOT.jar");
    String amq = null;
    String sqs = "http://127.0.0.1:4566";
    boolean aws = false;
    String kafka = null;
    boolean noKafka = false;
    Path report = Path.of("perf-tests/target/report");
    Path work = Path.of("perf-tests/target/perf-service");
    Integer reps = null;
    List<Integer> largeN = null;
    List<Integer> largeReps = null;
    double jmsP99 = 50;
    double sqsP99 = 1000;
    double kafkaP99 = 100;
    Double paced = null;
    boolean jfr = true;
    boolean amqProcess = false;
    Path baseline = null;
    Path compareJar = null;
    String commit = System.getenv().getOrDefault("PERF_GIT_COMMIT", "unknown");
    String apiKey = System.getenv("ACTIVITY_KEY");
    String peer = null;
    Path peerJar = Path.of("perf-peer-camel/target/perf-peer-camel.jar");
    Integer warmup = null;
    Integer steadyN = null;
    int steadyBursts = 3;
    Integer steadyMax = null;
    double jitShare = 0.02;
    Double idleSeconds = null;
    Boolean profile = null;
    boolean strace = true;
    List<String> only = List.of();
    Path jmh = Path.of("perf-tests/target/jmh/pipeline.json");
    List<String> rest = new ArrayList<>(List.of(args));
    List<String> shown = new ArrayList<>(List.of(args));
    for (int i = 0; i < rest.size(); i++) {
      String a = rest.get(i);
      String value = null;
      int eq = a.indexOf('=');
      if (a.startsWith("--") && eq > 0) {
        value = a.substring(eq + 1);
        a = a.substring(0, eq);
      }
      switch (a) {
        case "--quick" -> quick = true;
        case "--no-build" -> { }
        case "--no-kafka" -> noKafka = true;
        case "--no-jfr" -> jfr = false;
        case "--activemq-process" -> amqProcess = true;
        case "--baseline" -> baseline = Path.of(value != null ? value : next(rest, ++i, a));
        case "--compare-jar" -> compareJar = Path.of(value != null ? value : next(rest, ++i, a));
        case "--service-url" -> serviceUrl = value != null ? value : next(rest, ++i, a);
        case "--service-jar" -> jar = Path.of(value != null ? value : next(rest, ++i, a));
        case "--activemq-url" -> amq = value != null ? value : next(rest, ++i, a);
        case "--sqs-endpoint" -> sqs = value != null ? value : next(rest, ++i, a);
        case "--sqs" -> {
          String v = value != null ? value : next(rest, ++i, a);
          if (!v.equals("aws")) {
            throw new IllegalArgumentException("--sqs takes only 'aws'; use --sqs-endpoint URL otherwise\n" + USAGE);
          }
          aws = true;
          sqs = null;
        }
        case "--kafka" -> kafka = value != null ? value : next(rest, ++i, a);
        case "--api-key" -> {
          if (value != null) {
            apiKey = value;
            shown.set(i, "--api-key=(redacted)");
          } else {
            apiKey = next(rest, ++i, a);
            shown.set(i, "(redacted)");
          }
        }
        case "--report-dir" -> report = Path.of(value != null ? value : next(rest, ++i, a));
        case "--reps" -> reps = Integer.parseInt(value != null ? value : next(rest, ++i, a));
        case "--large-n" -> largeN = ints(value != null ? value : next(rest, ++i, a));
        case "--large-reps" -> largeReps = ints(value != null ? value : next(rest, ++i, a));
        case "--jms-p99-ms" -> jmsP99 = Double.parseDouble(value != null ? value : next(rest, ++i, a));
        case "--sqs-p99-ms" -> sqsP99 = Double.parseDouble(value != null ? value : next(rest, ++i, a));
        case "--kafka-p99-ms" -> kafkaP99 = Double.parseDouble(value != null ? value : next(rest, ++i, a));
        case "--paced-seconds" -> paced = Double.parseDouble(value != null ? value : next(rest, ++i, a));
        case "--peer" -> {
          peer = value != null ? value : next(rest, ++i, a);
          if (!peer.equals("camel") && !peer.equals("none")) {
            throw new IllegalArgumentException("--peer takes camel or none\n" + USAGE);
          }
        }
        case "--peer-jar" -> peerJar = Path.of(value != null ? value : next(rest, ++i, a));
        case "--warmup" -> warmup = positive(a, value != null ? value : next(rest, ++i, a));
        case "--steady-n" -> steadyN = positive(a, value != null ? value : next(rest, ++i, a));
        case "--steady-bursts" -> steadyBursts = positive(a, value != null ? value : next(rest, ++i, a));
        case "--steady-max-bursts" -> steadyMax = positive(a, value != null ? value : next(rest, ++i, a));
        case "--max-jit-share" -> jitShare = Double.parseDouble(value != null ? value : next(rest, ++i, a));
        case "--idle-seconds" -> idleSeconds = Double.parseDouble(value != null ? value : next(rest, ++i, a));
        case "--profile" -> profile = true;
        case "--no-profile" -> profile = false;
        case "--no-strace" -> strace = false;
        case "--scenarios" -> only = List.of((value != null ? value : next(rest, ++i, a)).toUpperCase(java.util.Locale.ROOT)
            .split("\\s*,\\s*"));
        case "--jmh-result" -> jmh = Path.of(value != null ? value : next(rest, ++i, a));
        case "-h", "--help" -> throw new IllegalArgumentException(USAGE);
        default -> throw new IllegalArgumentException("unknown option " + a + "\n" + USAGE);
      }
    }
    if (largeN == null) {
      largeN = quick ? List.of() : List.of(10_000, 100_000);
    }
    if (largeReps == null) {
      largeReps = quick ? List.of() : List.of(3, 1);
    }
    if (largeReps.size() != largeN.size()) {
      throw new IllegalArgumentException("--large-reps needs one count per --large-n value\n" + USAGE);
    }
    if (amqProcess && (amq != null || serviceUrl != null)) {
      throw new IllegalArgumentException("--activemq-process starts a broker for a service the suite starts; it does"
          + " not go with --activemq-url or --service-url\n" + USAGE);
    }
    if (compareJar != null && serviceUrl != null) {
      throw new IllegalArgumentException("--compare-jar starts both jars; it does not go with --service-url\n" + USAGE);
    }
    if (compareJar != null && baseline != null) {
      throw new IllegalArgumentException("--compare-jar makes its own baseline; leave out --baseline\n" + USAGE);
    }
    int n = steadyN != null ? steadyN : quick ? 500 : 10_000;
    int max = steadyMax != null ? steadyMax : quick ? 2 : 8;
    if (jitShare <= 0 || jitShare >= 1) {
      throw new IllegalArgumentException("--max-jit-share must lie between 0 and 1\n" + USAGE);
    }
    Steady steady = new Steady(warmup != null ? warmup : quick ? 100 : 50_000, n, steadyBursts, Math.max(1, max),
        jitShare, idleSeconds != null ? idleSeconds : quick ? 2 : 30);
    if (peer == null) {
      peer = quick || serviceUrl != null ? "none" : "camel";
    }
    return new Options(quick, serviceUrl, jar, amq, sqs, aws, kafka, noKafka, report, work,
        reps != null ? reps : quick ? 2 : 10, largeN, largeReps, jmsP99, sqsP99, kafkaP99,
        paced != null ? paced : quick ? 1 : 5, jfr, commit,
        apiKey == null || apiKey.isBlank() ? null : apiKey.trim(), List.copyOf(shown), amqProcess, baseline,
        compareJar, steady, peer, peerJar, profile != null ? profile : !quick && serviceUrl == null, strace,
        only, jmh);
  }

  private static int positive(String option, String v) {
    int x = Integer.parseInt(v.trim().replace("_", "").replace(",", ""));
    if (x < 1) {
      throw new IllegalArgumentException(option + " must be at least 1\n" + USAGE);
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
   * The options of the baseline run of {@code --compare-jar}: the old jar, its report in {@code <report
   * dir>/baseline}, no comparison of its own.
   */
  public Options forBaselineRun() {
    return new Options(quick, serviceUrl, compareJar, activemqUrl, sqsEndpoint, sqsAws, kafka, noKafka,
        reportDir.resolve("baseline"), workDir, reps, largeN, largeReps, jmsP99Ms, sqsP99Ms, kafkaP99Ms, pacedSeconds,
        jfr, "(baseline run of --compare-jar; commit of the old jar unknown)", apiKey, args, activemqProcess, null, null,
        steady, peer, peerJar, profile, strace, only, jmhResult);
  }

  /** The options of the second run of {@code --compare-jar}: this jar, compared with {@code baselineCsv}. */
  public Options againstBaseline(Path baselineCsv) {
    return new Options(quick, serviceUrl, serviceJar, activemqUrl, sqsEndpoint, sqsAws, kafka, noKafka, reportDir,
        workDir, reps, largeN, largeReps, jmsP99Ms, sqsP99Ms, kafkaP99Ms, pacedSeconds, jfr, gitCommit, apiKey, args,
        activemqProcess, baselineCsv, null, steady, peer, peerJar, profile, strace, only, jmhResult);
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

  private static String next(List<String> args, int i, String option) {
    if (i >= args.size()) {
      throw new IllegalArgumentException(option + " needs a value\n" + USAGE);
    }
    return args.get(i);
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
