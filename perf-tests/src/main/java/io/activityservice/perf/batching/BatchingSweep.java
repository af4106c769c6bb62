package io.activityservice.perf.batching;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.OutboundEvent;
import io.activityservice.channel.sqs.SqsChannelAdapter;
import io.activityservice.channel.sqs.SqsChannelProperties;
import io.activityservice.channel.sqs.SqsClients;
import io.activityservice.perf.cli.CommandLines;
import io.activityservice.perf.report.Analysis;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;

/**
 * The batching sweep ({@code perf-tests/run.sh --batching-sweep}): SQS send batching with fixed
 * batch sizes 1, 2, 5 and 10 (linger 5 ms) against the adaptive controller ({@code
 * batching=adaptive}, at most 10 entries and 5 ms), at a low, a medium and an overload rate, on the
 * project's own SQS adapter used as a client (the same outbound channel the service sends through).
 *
 * <p>Each run opens a fresh queue and channel, offers events open-loop at the rate (each stamped
 * with its intended send time) for the run's window, and measures per event the latency from the
 * intended send time to SQS's acceptance (the send future), the accepted throughput within the
 * window, and the SendMessageBatch requests made. Runs are interleaved per repetition (every
 * configuration at one rate, then the next rate; the order of the configurations rotates) so that
 * load drifting on a shared machine hits all configurations alike. Writes {@code index.html} (SVG
 * charts and tables), {@code report.md} and {@code results.csv} to the report directory (default
 * {@code perf-tests/target/report/batching}).
 *
 * <p>Options: {@code --sqs-endpoint URL} (default {@code http://127.0.0.1:4566}, LocalStack),
 * {@code --rates low,medium,overload} (default {@code 20,400,4000} events/s), {@code --seconds S}
 * (window per run, default 5), {@code --reps N} (default 2), {@code --report-dir DIR}, {@code
 * --max-batch-bytes N} (default 262144, LocalStack 4.3's limit).
 */
public final class BatchingSweep {

  /** The configurations compared, in report order. */
  static final List<String> CONFIGS =
      List.of("fixed-1", "fixed-2", "fixed-5", "fixed-10", "adaptive");

  /** Names of the three rates. */
  static final List<String> LOADS = List.of("low", "medium", "overload");

  private static final Duration LINGER = Duration.ofMillis(5);

  /**
   * Events buffered per channel: small, so an overloaded size-1 channel drains in seconds after its
   * window.
   */
  private static final int SEND_BUFFER = 2_000;

  private final URI endpoint;
  private final double[] rates;
  private final double seconds;
  private final int reps;
  private final int maxBatchBytes;
  private final String runId = Long.toString(System.currentTimeMillis() % 1_000_000_000L, 36);
  private final byte[] payload;

  BatchingSweep(URI endpoint, double[] rates, double seconds, int reps, int maxBatchBytes) {
    this.endpoint = endpoint;
    this.rates = rates;
    this.seconds = seconds;
    this.reps = reps;
    this.maxBatchBytes = maxBatchBytes;
    this.payload =
        ("{\"value\":1,\"payload\":\"" + "x".repeat(1000) + "\"}").getBytes(StandardCharsets.UTF_8);
  }

  /** Counts SendMessageBatch requests and their entries. */
  static final class RequestCounter implements ExecutionInterceptor {
    final AtomicLong requests = new AtomicLong();
    final AtomicLong entries = new AtomicLong();

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
      if (context.request() instanceof SendMessageBatchRequest r) {
        requests.incrementAndGet();
        entries.addAndGet(r.entries().size());
      }
    }
  }

  /**
   * The command line (picocli). run.sh passes the suite's whole command line: options that are not
   * the sweep's (e.g. {@code --batching-sweep}, {@code --no-build}) are ignored.
   */
  @Command(
      name = "perf-tests/run.sh --batching-sweep",
      mixinStandardHelpOptions = true,
      sortOptions = false,
      description = "SQS send batching, fixed sizes vs adaptive.")
  static final class Args {
    @Option(
        names = "--sqs-endpoint",
        paramLabel = "URL",
        description = "SQS endpoint (default: ${DEFAULT-VALUE})")
    URI endpoint = URI.create("http://127.0.0.1:4566");

    @Option(
        names = "--rates",
        paramLabel = "LOW,MEDIUM,OVERLOAD",
        split = ",",
        defaultValue = "20,400,4000",
        description = "the three rates, events/s (default: ${DEFAULT-VALUE})")
    double[] rates;

    @Option(
        names = "--seconds",
        paramLabel = "S",
        description = "window per run (default: ${DEFAULT-VALUE})")
    double seconds = 5;

    @Option(
        names = "--reps",
        paramLabel = "N",
        description = "repetitions (default: ${DEFAULT-VALUE})")
    int reps = 2;

    @Option(
        names = "--report-dir",
        paramLabel = "DIR",
        description = "where the report goes (default: ${DEFAULT-VALUE})")
    Path reportDir = Path.of("perf-tests/target/report/batching");

    @Option(
        names = "--max-batch-bytes",
        paramLabel = "N",
        description =
            "bytes per SendMessageBatch (default: ${DEFAULT-VALUE}, LocalStack 4.3's limit)")
    int maxBatchBytes = 262_144;

    @Unmatched List<String> notTheSweeps = new ArrayList<>();
  }

  public static void main(String[] args) throws Exception {
    Args a = CommandLines.parse(new Args(), args);
    if (a.rates.length != 3) {
      usage("--rates takes three rates: low,medium,overload");
    }
    URI endpoint = a.endpoint;
    double[] rates = a.rates;
    double seconds = a.seconds;
    int reps = a.reps;
    int maxBatchBytes = a.maxBatchBytes;
    Path reportDir = a.reportDir;
    new BatchingSweep(endpoint, rates, seconds, reps, maxBatchBytes).runAndReport(reportDir);
  }

  /**
   * The sweep with its default rates, window and repetitions, as part of the suite's full run:
   * writes its report into {@code reportDir} and returns the controller's targets, judged.
   */
  public static List<Analysis.Target> forFullRun(URI endpoint, Path reportDir) throws Exception {
    return new BatchingSweep(endpoint, new double[] {20, 400, 4000}, 5, 2, 262_144)
        .runAndReport(reportDir)
        .verdicts();
  }

  private SweepReport runAndReport(Path reportDir) throws Exception {
    double load0 = loadAverage();
    Instant started = Instant.now();
    List<SweepResult> results = run();
    SweepReport report =
        new SweepReport(results, rates, seconds, reps, endpoint, started, load0, loadAverage());
    report.write(reportDir);
    System.err.println("batching sweep: report in " + reportDir.toAbsolutePath());
    return report;
  }

  private static void usage(String error) {
    System.err.println(error);
    System.err.println(CommandLines.usage(new Args()));
    System.exit(2);
  }

  List<SweepResult> run() throws Exception {
    List<SweepResult> results = new ArrayList<>();
    int total = reps * LOADS.size() * CONFIGS.size();
    int done = 0;
    for (int rep = 1; rep <= reps; rep++) {
      for (int l = 0; l < LOADS.size(); l++) {
        // Rotated per repetition and rate, so no configuration always runs first or last.
        List<String> order = new ArrayList<>(CONFIGS);
        java.util.Collections.rotate(order, (rep - 1) + l);
        for (String config : order) {
          System.err.printf(
              Locale.ROOT,
              "[batching sweep %d/%d] rep %d, %s load (%.0f ev/s), %s%n",
              ++done,
              total,
              rep,
              LOADS.get(l),
              rates[l],
              config);
          results.add(runOne(config, LOADS.get(l), rates[l], rep));
        }
      }
    }
    return results;
  }

  private SqsChannelProperties properties(String config) {
    SqsChannelProperties base =
        SqsChannelProperties.builder()
            .endpoint(endpoint.toString())
            .region("us-east-1")
            .accessKey("test")
            .secretKey("test")
            .createQueues(true)
            .batchLinger(LINGER)
            .maxBatchRequestsInFlight(8)
            .maxBatchBytes(maxBatchBytes)
            .sendBufferSize(SEND_BUFFER)
            .embedded(new SqsChannelProperties.Embedded(false))
            .build();
    return config.equals("adaptive")
        ? base.toBuilder().batching(SqsChannelProperties.ADAPTIVE).batchSize(10).build()
        : base.toBuilder()
            .batching(SqsChannelProperties.FIXED)
            .batchSize(Integer.parseInt(config.substring("fixed-".length())))
            .build();
  }

  private SweepResult runOne(String config, String load, double rate, int rep) throws Exception {
    SqsChannelProperties props = properties(config);
    RequestCounter counter = new RequestCounter();
    try (SqsAsyncClient client =
            SqsClients.builder(props)
                .overrideConfiguration(c -> c.addExecutionInterceptor(counter))
                .build();
        SqsChannelAdapter adapter = new SqsChannelAdapter(client, props)) {
      ChannelUri uri =
          ChannelUri.parse("sqs:perf-batching-" + runId + "-" + config + "-" + load + "-" + rep);
      String url = adapter.queueUrl(uri).get(30, TimeUnit.SECONDS);
      try {
        OutboundChannel out = adapter.openOutbound(uri);
        // Warm-up: connections and the queue URL; a quiet spell lets the adaptive estimate forget
        // it.
        for (int i = 0; i < 5; i++) {
          out.send(event("warm-" + i)).get(30, TimeUnit.SECONDS);
        }
        Thread.sleep(300);
        long warmRequests = counter.requests.get();
        long warmEntries = counter.entries.get();
        return measure(out, config, load, rate, rep, counter, warmRequests, warmEntries);
      } finally {
        try {
          client.deleteQueue(r -> r.queueUrl(url)).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
          System.err.println("batching sweep: could not delete " + url + ": " + e);
        }
      }
    }
  }

  private SweepResult measure(
      OutboundChannel out,
      String config,
      String load,
      double rate,
      int rep,
      RequestCounter counter,
      long warmRequests,
      long warmEntries)
      throws Exception {
    long n = Math.max(1, Math.round(rate * seconds));
    long gap = (long) (1e9 / rate);
    long window = (long) (seconds * 1e9);
    Histogram latencies = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
    AtomicLong accepted = new AtomicLong();
    AtomicLong rejected = new AtomicLong();
    List<CompletableFuture<Void>> sends = new ArrayList<>((int) Math.min(n, 1_000_000));
    long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
    for (long i = 0; i < n; i++) {
      long intended = start + i * gap;
      long wait = intended - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
      CompletableFuture<Void> send = out.send(OutboundEvent.of(event(runId + "-" + i)));
      sends.add(send);
      send.whenComplete(
          (ok, error) -> {
            long now = System.nanoTime();
            if (error != null) {
              rejected.incrementAndGet();
            } else if (now - start <= window) {
              accepted.incrementAndGet();
              synchronized (latencies) {
                latencies.recordValue(Math.max(0, (now - intended) / 1_000));
              }
            } else {
              synchronized (
                  latencies) { // late: counts for latency, not for the window's throughput
                latencies.recordValue(Math.max(0, (now - intended) / 1_000));
              }
            }
          });
    }
    CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new))
        .handle((ok, e) -> null)
        .get(5, TimeUnit.MINUTES);
    long requests = counter.requests.get() - warmRequests;
    long entries = counter.entries.get() - warmEntries;
    double p50;
    double p99;
    synchronized (latencies) {
      p50 =
          latencies.getTotalCount() == 0 ? Double.NaN : latencies.getValueAtPercentile(50) / 1000.0;
      p99 =
          latencies.getTotalCount() == 0 ? Double.NaN : latencies.getValueAtPercentile(99) / 1000.0;
    }
    return new SweepResult(
        config,
        load,
        rate,
        rep,
        n,
        accepted.get(),
        rejected.get(),
        accepted.get() / (window / 1e9),
        p50,
        p99,
        requests,
        requests == 0 ? 0 : (double) entries / requests);
  }

  private CloudEvent event(String id) {
    return CloudEventBuilder.v1()
        .withId(id)
        .withSource(URI.create("/perf/batching"))
        .withType("perf.batching")
        .withDataContentType("application/json")
        .withData(payload)
        .build();
  }

  static double loadAverage() {
    try {
      return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }
}
