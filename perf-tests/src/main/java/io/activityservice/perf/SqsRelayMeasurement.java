package io.activityservice.perf;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.sqs.SqsChannelAdapter;
import io.activityservice.channel.sqs.SqsChannelProperties;
import io.activityservice.channel.sqs.SqsClients;
import io.activityservice.perf.cli.CommandLines;
import io.activityservice.perf.cpu.Processes;
import io.activityservice.perf.transport.PerfEvents;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;

/**
 * By hand: the SQS adapter as a relay on its own, without the service around it — what T4 measures
 * of the adapter. One {@link SqsChannelAdapter} relays queue {@code in} to queue {@code out} the
 * way the service's router does (the handler sends to the outbound channel on the receiving thread
 * and acks when SQS accepted the send); a producer and a consumer adapter (this JVM, same defaults)
 * drive it. Prints, for paced runs at each rate and for one burst: latency from the intended send
 * time to receipt (p50/p90/p99/max), the relay's SQS requests per event by operation (an SDK
 * interceptor on its client), the relay's CPU per event (its threads, ThreadMXBean) and
 * LocalStack's CPU per event (its process; shared, so others' requests count too). Asserts nothing.
 *
 * <pre>java -cp perf-tests/target/perf-runner.jar io.activityservice.perf.SqsRelayMeasurement \
 *   [--sqs-endpoint http://127.0.0.1:4566] [--rates 50,200] [--seconds 10] [--burst 2000] [--rounds 2]
 * </pre>
 */
public final class SqsRelayMeasurement {

  private SqsRelayMeasurement() {}

  /**
   * Counts requests by operation name; times SendMessageBatch round trips (LocalStack's
   * responsiveness).
   */
  static final class RequestCounter implements ExecutionInterceptor {
    private static final software.amazon.awssdk.core.interceptor.ExecutionAttribute<Long> STARTED =
        new software.amazon.awssdk.core.interceptor.ExecutionAttribute<>("started");
    final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
    final Histogram sendRoundTrips = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
      String op = context.request().getClass().getSimpleName().replace("Request", "");
      counts.computeIfAbsent(op, k -> new AtomicLong()).incrementAndGet();
    }

    @Override
    public void beforeTransmission(
        Context.BeforeTransmission context, ExecutionAttributes attributes) {
      attributes.putAttribute(STARTED, System.nanoTime());
    }

    @Override
    public void afterTransmission(
        Context.AfterTransmission context, ExecutionAttributes attributes) {
      Long started = attributes.getAttribute(STARTED);
      if (started != null
          && context.request().getClass().getSimpleName().startsWith("SendMessageBatch")) {
        synchronized (sendRoundTrips) {
          sendRoundTrips.recordValue((System.nanoTime() - started) / 1000);
        }
      }
    }

    Map<String, Long> snapshot() {
      Map<String, Long> m = new TreeMap<>();
      counts.forEach((k, v) -> m.put(k, v.get()));
      return m;
    }
  }

  /** The command line (picocli). */
  @Command(
      name = "SqsRelayMeasurement",
      mixinStandardHelpOptions = true,
      sortOptions = false,
      description = "SQS relay latency and throughput through the SQS adapter.")
  static final class Args {
    @Option(
        names = "--sqs-endpoint",
        paramLabel = "URL",
        defaultValue = "http://127.0.0.1:4566",
        description = "SQS endpoint (default: ${DEFAULT-VALUE})")
    URI endpoint;

    @Option(
        names = "--rates",
        paramLabel = "R1,R2",
        defaultValue = "50,200",
        split = ",",
        description = "paced rates (events/s) (default: ${DEFAULT-VALUE})")
    int[] rates;

    @Option(
        names = "--seconds",
        paramLabel = "S",
        defaultValue = "10",
        description = "length of each paced run (default: ${DEFAULT-VALUE})")
    int seconds;

    @Option(
        names = "--burst",
        paramLabel = "N",
        defaultValue = "2000",
        description = "events of the burst (default: ${DEFAULT-VALUE})")
    int burst;

    @Option(
        names = "--rounds",
        paramLabel = "N",
        defaultValue = "2",
        description = "rounds (default: ${DEFAULT-VALUE})")
    int rounds;

    @Option(
        names = "--receive-linger",
        paramLabel = "DURATION",
        defaultValue = "0s",
        description = "receive linger, e.g. 0s, 0.05s (default: ${DEFAULT-VALUE})")
    String receiveLinger;

    @Option(
        names = "--delete-linger",
        paramLabel = "DURATION",
        defaultValue = "0.1s",
        description = "delete linger, e.g. 0.1s (default: ${DEFAULT-VALUE})")
    String deleteLinger;
  }

  public static void main(String[] args) throws Exception {
    Args a = CommandLines.parse(new Args(), args);
    URI endpoint = a.endpoint;
    int[] rates = a.rates;
    int seconds = a.seconds;
    int burst = a.burst;
    int rounds = a.rounds;
    SqsChannelProperties props =
        SqsChannelProperties.builder()
            .endpoint(endpoint.toString())
            .region("us-east-1")
            .accessKey("test")
            .secretKey("test")
            .createQueues(true)
            .maxBatchBytes(262_144)
            .sendBufferSize(200_000)
            .embedded(new SqsChannelProperties.Embedded(false))
            .receiveLinger(Duration.parse("PT" + a.receiveLinger.toUpperCase(Locale.ROOT)))
            .deleteLinger(Duration.parse("PT" + a.deleteLinger.toUpperCase(Locale.ROOT)))
            .build();
    System.out.println("settings: " + props);
    String run = UUID.randomUUID().toString().substring(0, 8);
    ChannelUri in = ChannelUri.parse("sqs:relay-" + run + "-in");
    ChannelUri out = ChannelUri.parse("sqs:relay-" + run + "-out");
    RequestCounter counter = new RequestCounter();
    SqsAsyncClient relayClient =
        SqsClients.builder(props)
            .overrideConfiguration(c -> c.addExecutionInterceptor(counter))
            .build();
    Optional<Long> localstack =
        Processes.find(Path.of("infra/localstack/data/localstack.pid"), endpoint.getPort());
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    PerfEvents events = new PerfEvents(1024);
    PerfEvents.Clock clock = new PerfEvents.Clock();
    Map<String, Long> intended = new ConcurrentHashMap<>();
    Histogram latency = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
    AtomicLong received = new AtomicLong();
    try (SqsChannelAdapter relay = new SqsChannelAdapter(relayClient, props);
        SqsChannelAdapter clients = SqsChannelAdapter.connect(props)) {
      relay.queueUrl(in).join();
      relay.queueUrl(out).join();
      OutboundChannel relayOut = relay.openOutbound(out);
      InboundChannel relayIn =
          relay.openInbound(
              in,
              InboundSettings.strict(),
              (event, ack) ->
                  relayOut
                      .send(event)
                      .whenComplete(
                          (ok, error) -> {
                            if (error == null) {
                              ack.ack();
                            } else {
                              ack.nack(error);
                            }
                          }));
      OutboundChannel producer = clients.openOutbound(in);
      OutboundChannel direct = clients.openOutbound(out);
      InboundChannel consumer =
          clients.openInbound(
              out,
              InboundSettings.strict(),
              (event, ack) -> {
                Long t = intended.remove(event.getId());
                if (t != null) {
                  synchronized (latency) {
                    latency.recordValue(Math.max(0, (System.nanoTime() - t) / 1000));
                  }
                  received.incrementAndGet();
                }
                ack.ack();
              });
      System.out.printf(
          Locale.ROOT,
          "%-12s %8s %8s %8s %8s %8s %9s %9s %9s  %s%n",
          "run",
          "events",
          "p50 ms",
          "p90 ms",
          "p99 ms",
          "max ms",
          "req/ev",
          "relay µs",
          "LS µs",
          "relay requests by operation");
      // Warm-up
      measure(
          "warm-up",
          producer,
          events,
          clock,
          intended,
          latency,
          received,
          counter,
          threads,
          localstack,
          0,
          burst);
      for (int round = 1; round <= rounds; round++) {
        for (int rate : rates) {
          measure(
              "direct " + rate,
              direct,
              events,
              clock,
              intended,
              latency,
              received,
              counter,
              threads,
              localstack,
              rate,
              rate * seconds);
          measure(
              "paced " + rate,
              producer,
              events,
              clock,
              intended,
              latency,
              received,
              counter,
              threads,
              localstack,
              rate,
              rate * seconds);
        }
        measure(
            "burst " + burst,
            producer,
            events,
            clock,
            intended,
            latency,
            received,
            counter,
            threads,
            localstack,
            0,
            burst);
      }
      relayIn.close();
      consumer.close();
      for (ChannelUri q : List.of(in, out)) {
        String url = relay.queueUrl(q).join();
        relay.client().deleteQueue(r -> r.queueUrl(url)).join();
      }
    }
  }

  private static void measure(
      String name,
      OutboundChannel producer,
      PerfEvents events,
      PerfEvents.Clock clock,
      Map<String, Long> intended,
      Histogram latency,
      AtomicLong received,
      RequestCounter counter,
      ThreadMXBean threads,
      Optional<Long> localstack,
      int rate,
      int n)
      throws Exception {
    synchronized (latency) {
      latency.reset();
    }
    synchronized (counter.sendRoundTrips) {
      counter.sendRoundTrips.reset();
    }
    received.set(0);
    Map<String, Long> before = counter.snapshot();
    long relayCpu0 = relayCpu(threads);
    long lsCpu0 = lsCpu(localstack);
    long start = System.nanoTime();
    List<CompletableFuture<Void>> sends = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      long due = rate == 0 ? System.nanoTime() : start + (long) (i * 1e9 / rate);
      if (rate > 0) {
        long wait;
        while ((wait = due - System.nanoTime()) > 0) {
          LockSupport.parkNanos(wait);
        }
      }
      String id = name.replace(' ', '-') + "-" + i + "-" + start;
      intended.put(id, due);
      sends.add(producer.send(events.event(id, "com.example.relay", due, clock)));
    }
    CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (received.get() < n && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    long wall = System.nanoTime() - start;
    Thread.sleep(300); // let the last deletes go (delete linger)
    Map<String, Long> after = counter.snapshot();
    long relayCpu = relayCpu(threads) - relayCpu0;
    long lsCpu = lsCpu(localstack) - lsCpu0;
    StringBuilder ops = new StringBuilder();
    long requests = 0;
    for (Map.Entry<String, Long> e : after.entrySet()) {
      long d = e.getValue() - before.getOrDefault(e.getKey(), 0L);
      if (d > 0) {
        requests += d;
        ops.append(String.format(Locale.ROOT, "%s %.3f  ", e.getKey(), (double) d / n));
      }
    }
    synchronized (latency) {
      System.out.printf(
          Locale.ROOT,
          "%-12s %8d %8.1f %8.1f %8.1f %8.1f %9.3f %9.1f %9.1f  %s%s%n",
          name,
          received.get(),
          latency.getValueAtPercentile(50) / 1000.0,
          latency.getValueAtPercentile(90) / 1000.0,
          latency.getValueAtPercentile(99) / 1000.0,
          latency.getMaxValue() / 1000.0,
          (double) requests / n,
          relayCpu / 1000.0 / n,
          lsCpu / 1000.0 / n,
          ops + sendRtt(counter),
          rate == 0
              ? String.format(Locale.ROOT, " (%.0f ms, %.0f ev/s)", wall / 1e6, n * 1e9 / wall)
              : "");
    }
  }

  private static String sendRtt(RequestCounter counter) {
    synchronized (counter.sendRoundTrips) {
      Histogram h = counter.sendRoundTrips;
      return h.getTotalCount() == 0
          ? ""
          : String.format(
              Locale.ROOT,
              "| send RTT p50 %.1f p99 %.1f ms ",
              h.getValueAtPercentile(50) / 1000.0,
              h.getValueAtPercentile(99) / 1000.0);
    }
  }

  /**
   * CPU time (ns) of the relay's threads: the SDK's I/O threads and the adapter's (shared with the
   * clients).
   */
  private static long relayCpu(ThreadMXBean threads) {
    long sum = 0;
    for (long id : threads.getAllThreadIds()) {
      var info = threads.getThreadInfo(id);
      if (info != null
          && (info.getThreadName().startsWith("sqs-channel")
              || info.getThreadName().startsWith("aws-java-sdk")
              || info.getThreadName().startsWith("sdk-async"))) {
        long t = threads.getThreadCpuTime(id);
        if (t > 0) {
          sum += t;
        }
      }
    }
    return sum;
  }

  private static long lsCpu(Optional<Long> pid) {
    return pid.flatMap(p -> ProcessHandle.of(p))
        .flatMap(h -> h.info().totalCpuDuration())
        .map(Duration::toNanos)
        .orElse(0L);
  }
}
