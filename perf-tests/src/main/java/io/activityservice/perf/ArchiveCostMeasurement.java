package io.activityservice.perf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.jms.JmsChannelAdapter;
import io.activityservice.channel.jms.JmsChannelProperties;
import io.activityservice.perf.cli.CommandLines;
import io.activityservice.perf.cli.ServiceJar;
import io.activityservice.perf.relay.JmsBursts;
import io.activityservice.perf.service.ServiceApi;
import io.activityservice.testsupport.ServiceProcess;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What archives cost, measured by hand: {@code java -cp perf-tests/target/perf-runner.jar
 * io.activityservice.perf.ArchiveCostMeasurement [--service-jar JAR] [--events 20000] [--rounds 3]
 * [--replay-events 100000]}.
 *
 * <p>Starts the packaged service once (H2, its embedded ActiveMQ on a free port, security on) and
 * runs two things:
 *
 * <ol>
 *   <li><b>The cost of one archive matching every event on T2</b> (JMS topic → service → JMS):
 *       bursts of {@code events} sent as fast as the broker takes them, without an archive and with
 *       an archive whose pattern matches every event, alternating which goes first per round (so
 *       drifting machine load affects both alike). Per variant: throughput (first send to last
 *       receipt), latency p50/p99 and the service process's CPU time per relayed event; the cost is
 *       the ratio with/without.
 *   <li><b>Replay rate</b>: {@code replay-events} events are sent and archived, then replayed into
 *       a subscription created afterwards (a JMS queue); the rate is replayed events over the time
 *       from {@code POST /api/v1/replays} to the last one received, and every event must arrive
 *       once.
 * </ol>
 *
 * Prints a table and writes it to {@code perf-tests/target/archive-cost/report.md}.
 */
public final class ArchiveCostMeasurement {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http;
  private final ServiceApi api;
  private final JmsChannelAdapter jms;
  private final long servicePid;
  private final JmsBursts bursts;

  private ArchiveCostMeasurement(
      HttpClient http, ServiceApi api, JmsChannelAdapter jms, long servicePid) {
    this.http = http;
    this.api = api;
    this.jms = jms;
    this.servicePid = servicePid;
    this.bursts = new JmsBursts(jms, ChannelUri.parse("jms:topic:archcost.in"), this::cpuNanos);
  }

  /** The command line (picocli). */
  @Command(
      name = "ArchiveCostMeasurement",
      mixinStandardHelpOptions = true,
      sortOptions = false,
      description = "CPU per event of the archive, and replay throughput.")
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
        defaultValue = "3",
        description = "rounds (default: ${DEFAULT-VALUE})")
    int rounds;

    @Option(
        names = "--replay-events",
        paramLabel = "N",
        defaultValue = "100000",
        description = "events replayed (default: ${DEFAULT-VALUE})")
    int replayEvents;

    @Option(
        names = "--work-dir",
        paramLabel = "DIR",
        defaultValue = "perf-tests/target/archive-cost",
        description = "working directory (default: ${DEFAULT-VALUE})")
    Path work;
  }

  public static void main(String[] args) throws Exception {
    Args a = CommandLines.parse(new Args(), args);
    Path jar = a.serviceJar.path();
    int events = a.events;
    int rounds = a.rounds;
    int replayEvents = a.replayEvents;
    Path work = a.work;
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    String key = Testbed.generatedKey();
    int amqPort = ServiceProcess.freePort();
    List<String> serviceArgs =
        List.of(
            "--activity.channels.jms.embedded-broker.port=" + amqPort,
            "--activity.channels.sqs.embedded.enabled=false",
            "--activity.channels.sqs.enabled=false",
            "--activity.inbound[0].uri=jms:topic:archcost.in",
            "--activity.routing.dead-letter=",
            "--logging.level.root=WARN");
    StringBuilder report = new StringBuilder();
    try (ServiceProcess service =
            ServiceProcess.builder(jar, ServiceProcess.freePort())
                .workDir(work.resolve("service"))
                .jvmArgs(List.of("-Xms512m", "-Xmx2g"))
                .args(serviceArgs)
                .adminKey(key)
                .build()
                .start(ServiceProcess.PATIENT_START);
        JmsChannelAdapter jms =
            new JmsChannelAdapter(
                JmsChannelProperties.builder()
                    .brokerUrl("tcp://127.0.0.1:" + amqPort)
                    .subscriptionName("archcost")
                    .sendQueueCapacity(1_000_000)
                    .sendTimeout(Duration.ofSeconds(30))
                    .build())) {
      ArchiveCostMeasurement m =
          new ArchiveCostMeasurement(
              http, new ServiceApi(http, service.url(), key), jms, service.pid());
      m.relayCost(events, rounds, report);
      m.replayRate(replayEvents, report);
    }
    System.out.println(report);
    Files.createDirectories(work);
    Files.writeString(work.resolve("report.md"), report.toString());
  }

  private void relayCost(int events, int rounds, StringBuilder report) throws Exception {
    String type = "com.example.archcost.relay";
    String subscription = subscribe("archive cost relay", type, "jms:queue:archcost.out");
    List<JmsBursts.Result> without = new ArrayList<>();
    List<JmsBursts.Result> with = new ArrayList<>();
    bursts.burst(
        type,
        ChannelUri.parse("jms:queue:archcost.out"),
        events,
        "warm-up"); // JIT and connections, not counted
    for (int round = 0; round < rounds; round++) {
      for (boolean archived : round % 2 == 0 ? List.of(false, true) : List.of(true, false)) {
        if (archived) {
          send(
              "POST",
              "/api/v1/archives",
              "{\"name\": \"everything\", \"retention\": \"P1D\"}",
              201);
          with.add(
              bursts.burst(
                  type,
                  ChannelUri.parse("jms:queue:archcost.out"),
                  events,
                  "with archive r" + round));
          send("DELETE", "/api/v1/archives/everything", null, 204);
        } else {
          without.add(
              bursts.burst(
                  type,
                  ChannelUri.parse("jms:queue:archcost.out"),
                  events,
                  "no archive r" + round));
        }
      }
    }
    send("DELETE", "/api/v1/subscriptions/" + subscription, null, 204);
    double rateWithout =
        JmsBursts.median(without.stream().mapToDouble(JmsBursts.Result::eventsPerSecond).toArray());
    double rateWith =
        JmsBursts.median(with.stream().mapToDouble(JmsBursts.Result::eventsPerSecond).toArray());
    double cpuWithout =
        JmsBursts.median(
            without.stream().mapToDouble(JmsBursts.Result::cpuMicrosPerEvent).toArray());
    double cpuWith =
        JmsBursts.median(with.stream().mapToDouble(JmsBursts.Result::cpuMicrosPerEvent).toArray());
    Histogram latWithout = JmsBursts.merged(without);
    Histogram latWith = JmsBursts.merged(with);
    report
        .append("## One archive matching every event on T2 (JMS topic → service → JMS queue)\n\n")
        .append("Bursts of ")
        .append(events)
        .append(" events, ")
        .append(rounds)
        .append(" rounds per variant (median of rounds; latency over all rounds)\n\n")
        .append(
            "| variant | events/s | p50 ms | p99 ms | service CPU µs/event |\n|---|---|---|---|---|\n")
        .append(JmsBursts.row("no archive", rateWithout, latWithout, cpuWithout))
        .append(JmsBursts.row("archive matching every event", rateWith, latWith, cpuWith))
        .append(
            String.format(
                "%nThroughput with the archive: %.1f%% of without (cost %.1f%%); CPU per event %+.1f%%"
                    + " (goal: cost ≤ 10%%)%n%n",
                100 * rateWith / rateWithout,
                100 * (1 - rateWith / rateWithout),
                100 * (cpuWith / cpuWithout - 1)));
  }

  private void replayRate(int events, StringBuilder report) throws Exception {
    String type = "com.example.archcost.replay";
    send(
        "POST",
        "/api/v1/archives",
        "{\"name\": \"replayable\", \"pattern\": {\"type\": [\""
            + type
            + "\"]},"
            + " \"retention\": \"P1D\"}",
        201);
    Instant from = Instant.now().minusSeconds(1);
    // No subscription yet: the events are only archived.
    bursts.send(type, events, "archived", null);
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (api.getJson("/api/v1/archives/replayable").get("eventCount").asLong() < events) {
      if (System.nanoTime() > deadline) {
        throw new IOException(
            "the archive holds "
                + api.getJson("/api/v1/archives/replayable").get("eventCount")
                + " of "
                + events
                + " events after 5 minutes");
      }
      Thread.sleep(200);
    }
    Instant to = Instant.now().plusSeconds(1);
    String subscription = subscribe("archive cost replay", type, "jms:queue:archcost.replayed");
    Map<String, Integer> seen = new ConcurrentHashMap<>();
    AtomicLong last = new AtomicLong();
    ChannelUri out = ChannelUri.parse("jms:queue:archcost.replayed");
    InboundChannel consumer =
        jms.openInbound(
            out,
            InboundSettings.strict(),
            (event, ack) -> {
              seen.merge(event.getId(), 1, Integer::sum);
              last.set(System.nanoTime());
              ack.ack();
            });
    try {
      long start = System.nanoTime();
      long cpu0 = cpuNanos();
      send(
          "POST",
          "/api/v1/replays",
          "{\"name\": \"replay-rate\", \"archive\": \"replayable\", \"from\": \""
              + from
              + "\", \"to\": \""
              + to
              + "\", \"destinations\": {\"subscriptions\": [\""
              + subscription
              + "\"],"
              + " \"detectors\": [], \"rules\": []}}",
          201);
      deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
      while (seen.size() < events && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      double seconds = (last.get() - start) / 1e9;
      long cpu = cpuNanos() - cpu0;
      JsonNode state = api.getJson("/api/v1/replays/replay-rate");
      long duplicates = seen.values().stream().filter(n -> n > 1).count();
      report
          .append("## Replay rate\n\n")
          .append(
              String.format(
                  "%d archived events replayed into a subscription created afterwards (JMS queue): %d received once, %d"
                      + " duplicates, replay state %s; %.1f s from POST /api/v1/replays to the last one: **%.0f events/s**;"
                      + " service CPU %.1f µs per replayed event%n",
                  events,
                  seen.size(),
                  duplicates,
                  state.get("state").asText(),
                  seconds,
                  seen.size() / seconds,
                  cpu / 1000.0 / Math.max(1, seen.size())));
      if (seen.size() < events) {
        throw new IOException(
            "replay delivered " + seen.size() + " of " + events + " events within 10 minutes");
      }
    } finally {
      consumer.close();
      send("DELETE", "/api/v1/subscriptions/" + subscription, null, 204);
    }
  }

  private String subscribe(String name, String type, String target) throws Exception {
    JsonNode created =
        JSON.readTree(
            send(
                "POST",
                "/api/v1/subscriptions",
                "{\"name\": \""
                    + name
                    + "\", \"pattern\": {\"type\": [\""
                    + type
                    + "\"]}, \"target\": \""
                    + target
                    + "\"}",
                201));
    return created.get("id").asText();
  }

  private String send(String method, String path, String body, int expected) throws Exception {
    HttpRequest.Builder b = api.request(path).timeout(Duration.ofSeconds(30));
    b =
        body == null
            ? b.method(method, HttpRequest.BodyPublishers.noBody())
            : b.header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(body));
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != expected) {
      throw new IOException(method + " " + path + " answered " + r.statusCode() + ": " + r.body());
    }
    return r.body();
  }

  private long cpuNanos() {
    return ProcessHandle.of(servicePid)
        .flatMap(h -> h.info().totalCpuDuration())
        .map(Duration::toNanos)
        .orElse(0L);
  }
}
