package io.activityservice.perf;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.jms.JmsChannelAdapter;
import io.activityservice.channel.jms.JmsChannelProperties;
import io.activityservice.perf.broker.BrokerProcess;
import io.activityservice.perf.cli.CommandLines;
import io.activityservice.perf.cli.ServiceJar;
import io.activityservice.perf.cpu.CpuSource;
import io.activityservice.perf.cpu.ProcessThreads;
import io.activityservice.perf.relay.JmsBursts;
import io.activityservice.testsupport.ServiceProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What the JMS relay costs, measured by hand (first indications on a shared machine; the suite's
 * figures are the reference): {@code java -cp perf-tests/target/perf-runner.jar
 * io.activityservice.perf.JmsRelayCostMeasurement [--service-jar JAR] [--warmup 40000] [--events
 * 10000] [--rounds 3] [--idle-seconds 10] [--strace-events 5000]}.
 *
 * <p>Starts an ActiveMQ broker process ({@link BrokerProcess}, persistent) and the packaged service
 * pointed at it (H2, security on), subscribes a JMS topic to another JMS topic, warms up, then
 * measures:
 *
 * <ol>
 *   <li>the service's idle CPU (ms per second) over {@code idle-seconds}: the whole process and its
 *       threads by group (JIT, GC, the JMS adapter's threads {@code jms-*}, ActiveMQ's client
 *       threads, other);
 *   <li>{@code rounds} × two bursts of {@code events}, alternating: T1 (topic → same topic, no
 *       service) and T2 (topic → service → topic): burst time, the service's CPU per relayed event
 *       (whole process, and without JIT threads) and the broker process's CPU per event;
 *   <li>with {@code strace} on the path, one more T2 burst of {@code strace-events} under {@code
 *       strace -c -f} (slow: its CPU figure is not used): the service's system calls per relayed
 *       event (writes, reads, futex).
 * </ol>
 *
 * Prints a table and writes it to {@code perf-tests/target/jms-relay-cost/report.md} (or {@code
 * --work-dir}).
 */
public final class JmsRelayCostMeasurement {

  private JmsRelayCostMeasurement() {}

  /** The command line (picocli). */
  @Command(
      name = "JmsRelayCostMeasurement",
      mixinStandardHelpOptions = true,
      sortOptions = false,
      description = "CPU per relayed JMS event: the service vs a direct JMS hop.")
  static final class Args {
    @Mixin ServiceJar serviceJar;

    @Option(
        names = "--warmup",
        paramLabel = "N",
        defaultValue = "40000",
        description = "events relayed before measuring (default: ${DEFAULT-VALUE})")
    int warmup;

    @Option(
        names = "--events",
        paramLabel = "N",
        defaultValue = "10000",
        description = "events per measured burst (default: ${DEFAULT-VALUE})")
    int events;

    @Option(
        names = "--rounds",
        paramLabel = "N",
        defaultValue = "3",
        description = "measured rounds (default: ${DEFAULT-VALUE})")
    int rounds;

    @Option(
        names = "--idle-seconds",
        paramLabel = "S",
        defaultValue = "10",
        description = "length of the idle CPU measurement (default: ${DEFAULT-VALUE})")
    int idleSeconds;

    @Option(
        names = "--strace-events",
        paramLabel = "N",
        defaultValue = "5000",
        description = "events of the strace burst (default: ${DEFAULT-VALUE})")
    int straceEvents;

    @Option(
        names = "--tracing-ratio",
        paramLabel = "R",
        description =
            "turn the service's tracing on (issue 23): OTLP export to a receiver in this process"
                + " that discards it, sampler parentbased_traceidratio with ratio R (0, 0.1, 1);"
                + " default: tracing off")
    String tracingRatio;

    @Option(
        names = "--work-dir",
        paramLabel = "DIR",
        defaultValue = "perf-tests/target/jms-relay-cost",
        description = "working directory (default: ${DEFAULT-VALUE})")
    Path work;
  }

  public static void main(String[] args) throws Exception {
    Args a = CommandLines.parse(new Args(), args);
    Path jar = a.serviceJar.path();
    int warmup = a.warmup;
    int events = a.events;
    int rounds = a.rounds;
    int idleSeconds = a.idleSeconds;
    int straceEvents = a.straceEvents;
    Path work = a.work;
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    String key = Testbed.generatedKey();
    String type = "com.example.relaycost";
    ChannelUri in = ChannelUri.parse("jms:topic:relaycost.in");
    ChannelUri out = ChannelUri.parse("jms:topic:relaycost.out");
    ChannelUri direct = ChannelUri.parse("jms:topic:relaycost.direct");
    StringBuilder report =
        new StringBuilder("# JMS relay cost (by hand)\n\nService jar: `" + jar + "`\n\n");
    report.append(
        a.tracingRatio == null
            ? "Tracing: off\n\n"
            : "Tracing: on, OTLP to a discarding receiver, parentbased_traceidratio "
                + a.tracingRatio
                + "\n\n");
    try (BrokerProcess broker = BrokerProcess.start(work.resolve("broker"));
        OtlpReceiver otlp = new OtlpReceiver()) {
      List<String> serviceArgs =
          new ArrayList<>(
              List.of(
                  "--activity.channels.jms.broker-url=" + broker.url(),
                  "--activity.channels.sqs.embedded.enabled=false",
                  "--activity.channels.sqs.enabled=false",
                  "--activity.inbound[0].uri=" + in,
                  "--activity.routing.dead-letter=",
                  "--logging.level.root=WARN"));
      if (a.tracingRatio != null) {
        serviceArgs.add("--otel.exporter.otlp.endpoint=" + otlp.endpoint());
        serviceArgs.add("--otel.traces.sampler=parentbased_traceidratio");
        serviceArgs.add("--otel.traces.sampler.arg=" + a.tracingRatio);
      }
      try (ServiceProcess service =
              ServiceProcess.builder(jar, ServiceProcess.freePort())
                  .workDir(work.resolve("service"))
                  .jvmArgs(List.of("-Xms512m", "-Xmx2g", "-XX:-UseDynamicNumberOfCompilerThreads"))
                  .args(serviceArgs)
                  .adminKey(key)
                  .build()
                  .start(ServiceProcess.PATIENT_START);
          JmsChannelAdapter jms =
              new JmsChannelAdapter(
                  JmsChannelProperties.builder()
                      .brokerUrl(broker.url())
                      .subscriptionName("relaycost")
                      .sendQueueCapacity(1_000_000)
                      .sendTimeout(Duration.ofSeconds(30))
                      .build())) {
        HttpRequest subscribe =
            HttpRequest.newBuilder(URI.create(service.url() + "/api/v1/subscriptions"))
                .header("Authorization", "Bearer " + key)
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"name\": \"relay cost\", \"pattern\": {\"type\": [\""
                            + type
                            + "\"]}, \"target\": \""
                            + out
                            + "\"}"))
                .build();
        HttpResponse<String> created = http.send(subscribe, HttpResponse.BodyHandlers.ofString());
        if (created.statusCode() != 201) {
          throw new IOException(
              "subscribing failed: " + created.statusCode() + " " + created.body());
        }
        CpuSource serviceCpu = CpuSource.process("service", service.pid(), "the service process");
        ProcessThreads serviceThreads =
            new ProcessThreads(service.pid(), ProcessThreads::hotspotGroup);
        CpuSource brokerCpu = CpuSource.process("broker", broker.pid(), "the broker process");
        JmsBursts viaService = new JmsBursts(jms, in, () -> serviceCpu.cpuNanos().orElse(0));
        JmsBursts directPath = new JmsBursts(jms, direct, () -> 0);

        // In bursts of 5,000: a cold service on a loaded machine parks first attempts slower than
        // park-after, and
        // a 40,000-event burst then overflows the store's retry.maxPending (old jars dead-lettered
        // events so).
        for (int done = 0; done < warmup; done += 5_000) {
          viaService.burst(type, out, Math.min(5_000, warmup - done), "warm-up T2");
        }
        directPath.burst(type, direct, Math.min(warmup, 5_000), "warm-up T1");

        // Idle: the whole process, and its threads by group (thread names as in
        // /proc/<pid>/task/*/comm).
        ProcessThreads idleGroups =
            new ProcessThreads(service.pid(), JmsRelayCostMeasurement::idleGroup);
        List<String> groups =
            List.of(
                ProcessThreads.JIT, ProcessThreads.GC, "jms adapter", "activemq client", "other");
        Thread.sleep(5000);
        long idle0 = serviceCpu.cpuNanos().orElse(0);
        Map<String, Long> groups0 = new LinkedHashMap<>();
        groups.forEach(g -> groups0.put(g, idleGroups.nanos(g).orElse(0)));
        Thread.sleep(idleSeconds * 1000L);
        double idleMsPerS = (serviceCpu.cpuNanos().orElse(0) - idle0) / 1e6 / idleSeconds;
        List<String> idleParts = new ArrayList<>();
        groups.forEach(
            g ->
                idleParts.add(
                    String.format(
                        "%s %.2f",
                        g, (idleGroups.nanos(g).orElse(0) - groups0.get(g)) / 1e6 / idleSeconds)));

        List<double[]> rows =
            new ArrayList<>(); // t1 s, t2 s, service µs/event, service own µs/event, broker T1,
        // broker T2
        for (int round = 0; round < rounds; round++) {
          double[] row = new double[6];
          for (boolean t1 : round % 2 == 0 ? List.of(true, false) : List.of(false, true)) {
            long b0 = brokerCpu.cpuNanos().orElse(0);
            long jit0 = serviceThreads.nanos(ProcessThreads.JIT).orElse(0);
            long s0 = serviceCpu.cpuNanos().orElse(0);
            JmsBursts.Result r =
                t1
                    ? directPath.burst(type, direct, events, "T1 r" + round)
                    : viaService.burst(type, out, events, "T2 r" + round);
            long s = serviceCpu.cpuNanos().orElse(0) - s0;
            long jit = serviceThreads.nanos(ProcessThreads.JIT).orElse(0) - jit0;
            double brokerPerEvent = (brokerCpu.cpuNanos().orElse(0) - b0) / 1000.0 / events;
            if (t1) {
              row[0] = events / r.eventsPerSecond();
              row[4] = brokerPerEvent;
            } else {
              row[1] = events / r.eventsPerSecond();
              row[2] = s / 1000.0 / events;
              row[3] = (s - jit) / 1000.0 / events;
              row[5] = brokerPerEvent;
            }
          }
          rows.add(row);
        }
        report
            .append("Warm-up ")
            .append(warmup)
            .append(" events; ")
            .append(rounds)
            .append(" rounds of a T1 and a T2 burst of ")
            .append(events)
            .append(" events (small JSON data, persistent, virtual topics), alternating.\n\n")
            .append(
                "| round | T1 burst s | T2 burst s | T2/T1 | service CPU µs/event | without JIT | broker µs/event T1 | T2 |\n")
            .append("|---|---|---|---|---|---|---|---|\n");
        for (int i = 0; i < rows.size(); i++) {
          double[] r = rows.get(i);
          report.append(
              String.format(
                  "| %d | %.2f | %.2f | %.2f | %.1f | %.1f | %.1f | %.1f |%n",
                  i, r[0], r[1], r[1] / r[0], r[2], r[3], r[4], r[5]));
        }
        report.append(
            String.format(
                "%nMedians: T2/T1 burst time %.2f, service CPU %.1f µs/event (%.1f without JIT),"
                    + " broker %.1f µs/event on T1.%n",
                median(rows, 1) / median(rows, 0),
                median(rows, 2),
                median(rows, 3),
                median(rows, 4)));
        report.append(
            String.format(
                "%nIdle service (5 s after the last burst, over %d s): %.2f ms CPU per second; by"
                    + " threads: %s%n",
                idleSeconds, idleMsPerS, String.join(", ", idleParts)));

        if (straceEvents > 0 && Files.isExecutable(Path.of("/usr/bin/strace"))) {
          Path straceOut = work.resolve("strace.txt").toAbsolutePath();
          Process strace =
              new ProcessBuilder(
                      "/usr/bin/strace",
                      "-c",
                      "-f",
                      "-p",
                      Long.toString(service.pid()),
                      "-o",
                      straceOut.toString())
                  .redirectErrorStream(true)
                  .redirectOutput(work.resolve("strace.log").toFile())
                  .start();
          Thread.sleep(1500); // attaching to every thread takes a moment
          viaService.burst(type, out, straceEvents, "T2 under strace");
          strace.destroy(); // SIGTERM: strace detaches and writes its summary
          strace.waitFor();
          Map<String, Long> calls = syscalls(Files.readString(straceOut));
          report.append(
              String.format(
                  "%nSystem calls of the service per relayed event (strace -c -f over a T2 burst of"
                      + " %d events): ",
                  straceEvents));
          List<String> parts = new ArrayList<>();
          for (String name :
              List.of(
                  "write",
                  "writev",
                  "sendto",
                  "sendmsg",
                  "read",
                  "recvfrom",
                  "futex",
                  "epoll_wait",
                  "poll",
                  "fsync",
                  "fdatasync")) {
            if (calls.containsKey(name)) {
              parts.add(String.format("%s %.2f", name, calls.get(name) / (double) straceEvents));
            }
          }
          report
              .append(String.join(", ", parts))
              .append(
                  String.format(
                      "; all %.1f%n",
                      calls.values().stream().mapToLong(Long::longValue).sum()
                          / (double) straceEvents));
        }
      }
      if (a.tracingRatio != null) {
        report.append(
            String.format(
                "%nOTLP export requests received: %d (%d bytes)%n", otlp.requests(), otlp.bytes()));
      }
    }
    System.out.println(report);
    Files.createDirectories(work);
    Files.writeString(work.resolve("report.md"), report.toString());
  }

  /**
   * Thread groups for the idle figure: JIT, GC, the JMS adapter's own threads, ActiveMQ's client
   * threads, other.
   */
  static String idleGroup(String comm) {
    String hotspot = ProcessThreads.hotspotGroup(comm);
    if (hotspot != null) {
      return hotspot;
    }
    if (comm.startsWith("jms-")) {
      return "jms adapter";
    }
    if (comm.startsWith("ActiveMQ")) {
      return "activemq client";
    }
    return "other";
  }

  private static double median(List<double[]> rows, int column) {
    return JmsBursts.median(rows.stream().mapToDouble(r -> r[column]).toArray());
  }

  /** Calls per system call name from an {@code strace -c} summary. */
  static Map<String, Long> syscalls(String summary) {
    Map<String, Long> calls = new LinkedHashMap<>();
    Pattern line =
        Pattern.compile("^\\s*[\\d.]+\\s+[\\d.]+\\s+\\d+\\s+(\\d+)(?:\\s+\\d+)?\\s+(\\w+)\\s*$");
    for (String l : summary.split("\n")) {
      Matcher m = line.matcher(l);
      if (m.matches() && !m.group(2).equals("total")) {
        calls.put(m.group(2), Long.parseLong(m.group(1)));
      }
    }
    return calls;
  }
}
