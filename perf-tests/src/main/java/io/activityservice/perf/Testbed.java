package io.activityservice.perf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.activityservice.channel.jms.JmsChannelAdapter;
import io.activityservice.channel.jms.JmsChannelProperties;
import io.activityservice.channel.sqs.SqsChannelAdapter;
import io.activityservice.channel.sqs.SqsChannelProperties;
import io.activityservice.perf.broker.BrokerProcess;
import io.activityservice.perf.cpu.CpuMeter;
import io.activityservice.perf.cpu.CpuSource;
import io.activityservice.perf.cpu.ProcessCounters;
import io.activityservice.perf.cpu.ProcessThreads;
import io.activityservice.perf.cpu.Processes;
import io.activityservice.perf.peer.PeerProcess;
import io.activityservice.perf.peer.PeerRoute;
import io.activityservice.perf.service.ServiceApi;
import io.activityservice.perf.suite.Legs;
import io.activityservice.perf.suite.Options;
import io.activityservice.perf.suite.Suite;
import io.activityservice.perf.transport.AdapterTransport;
import io.activityservice.perf.transport.KafkaTransport;
import io.activityservice.testsupport.ServiceProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarFile;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * Everything a run needs, started in order and stopped in reverse: an embedded Kafka broker (unless
 * external brokers are given), an ActiveMQ broker in its own JVM ({@code --activemq-process}), the
 * service (started from its jar unless a URL is given) with its embedded ActiveMQ on a free port
 * unless a broker is given, and the client adapters. Records the settings and versions for the
 * report, and the processes (and Kafka broker threads) whose CPU time the suite reads.
 */
public final class Testbed implements AutoCloseable, Suite.Hooks {

  /**
   * JVM options of every process whose CPU the suite measures (service, broker process, peer): a
   * fixed number of JIT compiler threads, so a compiler thread's time cannot leave the "jit" group
   * when it exits and stay in "own".
   */
  static final List<String> MEASURED_JVM = List.of("-XX:-UseDynamicNumberOfCompilerThreads");

  /**
   * Lets the started service post to webhooks on loopback (I1's {@code FailingWebhook}); the
   * service's outbound guard refuses loopback, private and metadata addresses unless allowed.
   */
  static final String ALLOW_LOOPBACK_WEBHOOKS = "--activity.outbound.allowed-networks=127.0.0.0/8";

  private final Map<String, String> settings = new LinkedHashMap<>();
  private final Map<String, String> versions = new LinkedHashMap<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final List<CpuSource> cpuSources = new ArrayList<>();
  private final List<String> cpuWatched = new ArrayList<>();
  private final List<String> cpuShared = new ArrayList<>();
  private final List<ProcessCounters> counters = new ArrayList<>();
  private boolean brokerInService;
  private HttpClient http;
  private ServiceProcess service;
  private ServiceApi api;
  private String apiKey;
  private Legs legs;
  private CpuMeter meter;
  private Options options;
  private String amqUrlUsed;
  private String kafkaBrokersUsed;
  private PeerProcess peer;
  private final Map<Integer, String> ports = new LinkedHashMap<>();

  /** Starts what {@code o} asks for; on failure everything started so far is stopped. */
  public static Testbed start(Options o) throws Exception {
    Testbed t = new Testbed();
    try {
      t.doStart(o);
      return t;
    } catch (Exception e) {
      t.close();
      throw e;
    }
  }

  private void doStart(Options o) throws Exception {
    options = o;
    http =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1)
            .build();
    // Kafka
    String kafkaBrokers = o.kafka();
    Set<Long> kafkaThreads = Set.of();
    if (!o.noKafka() && kafkaBrokers == null && o.serviceUrl() == null) {
      Set<Long> before = CpuSource.liveThreadIds();
      EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, 1);
      // One broker: the transaction log must fit on it (SPECjms2007's transactional groups b/d).
      broker.brokerProperty("transaction.state.log.replication.factor", "1");
      broker.brokerProperty("transaction.state.log.min.isr", "1");
      broker.afterPropertiesSet();
      closeables.add(broker::destroy);
      kafkaThreads = new java.util.HashSet<>(CpuSource.liveThreadIds());
      kafkaThreads.removeAll(before);
      kafkaBrokers = broker.getBrokersAsString();
      settings.put(
          "kafka", "embedded KRaft broker in the runner JVM (spring-kafka-test), " + kafkaBrokers);
    } else if (kafkaBrokers != null) {
      settings.put("kafka", "external " + kafkaBrokers);
    } else {
      settings.put("kafka", "not used");
    }
    // ActiveMQ + service
    String amqUrl = o.activemqUrl();
    String serviceUrl = o.serviceUrl();
    BrokerProcess amqProcess = null;
    if (o.activemqProcess() && amqUrl == null) {
      amqProcess = BrokerProcess.start(o.workDir().resolveSibling("perf-activemq"));
      closeables.add(amqProcess);
      amqUrl = amqProcess.url();
      cpuSources.addAll(
          jvmSources(
              "activemq", amqProcess.pid(), "the ActiveMQ broker process started by the suite"));
      counters.add(new ProcessCounters("activemq", amqProcess.pid()));
      cpuWatched.add("activemq");
    }
    if (serviceUrl == null) {
      int port = ServiceProcess.freePort();
      List<String> args = new ArrayList<>();
      if (amqUrl == null) {
        int amqPort = ServiceProcess.freePort();
        amqUrl = "tcp://127.0.0.1:" + amqPort;
        args.add("--activity.channels.jms.embedded-broker.port=" + amqPort);
        settings.put("activemq", "the service's embedded broker (persistent, KahaDB) at " + amqUrl);
        brokerInService = true;
      } else if (amqProcess != null) {
        args.add("--activity.channels.jms.broker-url=" + amqUrl);
        settings.put(
            "activemq",
            "a broker process of its own started by the suite (EmbeddedActiveMqBroker, persistent,"
                + " KahaDB in "
                + o.workDir().resolveSibling("perf-activemq")
                + ") at "
                + amqUrl
                + ", pid "
                + amqProcess.pid());
      } else {
        args.add("--activity.channels.jms.broker-url=" + amqUrl);
        settings.put("activemq", "external " + amqUrl);
      }
      if (o.sqsAws()) {
        args.add("--activity.channels.sqs.embedded.enabled=false");
        args.add("--activity.channels.sqs.create-queues=true");
      } else {
        args.add("--activity.channels.sqs.endpoint=" + o.sqsEndpoint());
        args.add("--activity.channels.sqs.access-key=test");
        args.add("--activity.channels.sqs.secret-key=test");
        args.add("--activity.channels.sqs.max-batch-bytes=262144");
      }
      if (kafkaBrokers != null) {
        args.add("--spring.cloud.stream.kafka.binder.brokers=" + kafkaBrokers);
      }
      // Listen only on what the suite adds (the defaults would compete on a shared LocalStack).
      args.add("--activity.inbound[0].uri=jms:topic:perf.boot.in");
      args.add("--activity.inbound[0].default-type=com.example.plain");
      args.add("--activity.inbound[0].default-source=/perf");
      // I1's failing webhook listens on loopback, which the outbound guard refuses by default.
      args.add(ALLOW_LOOPBACK_WEBHOOKS);
      List<String> jvm = new ArrayList<>(List.of("-Xms512m", "-Xmx2g"));
      jvm.addAll(MEASURED_JVM);
      apiKey = o.apiKey() != null ? o.apiKey() : generatedKey();
      String key = apiKey;
      service =
          ServiceProcess.builder(o.serviceJar(), port)
              .workDir(o.workDir())
              .jfr(o.jfr())
              .jvmArgs(jvm)
              .args(args)
              .adminKey(key)
              .build()
              .start(ServiceProcess.PATIENT_START);
      closeables.add(service);
      serviceUrl = service.url();
      ports.put(port, "http");
      counters.add(new ProcessCounters("service", service.pid()));
      cpuSources.addAll(
          0,
          jvmSources(
              "service",
              service.pid(),
              "the service process"
                  + (brokerInService ? " (includes its embedded ActiveMQ broker)" : "")));
      cpuWatched.add(0, "service");
      settings.put(
          "service",
          "started: java "
              + String.join(" ", jvm)
              + " -jar "
              + o.serviceJar()
              + " "
              + String.join(" ", args)
              + " (pid "
              + service.pid()
              + ", work dir "
              + o.workDir()
              + ")");
      versions.put("service", jarVersion(o.serviceJar()));
    } else {
      settings.put(
          "service",
          "external "
              + serviceUrl
              + " (must use the same brokers as given here, and allow"
              + " webhooks on loopback for I1: "
              + ALLOW_LOOPBACK_WEBHOOKS.substring(2)
              + ")");
      settings.put("activemq", amqUrl == null ? "tcp://127.0.0.1:61616 (assumed)" : amqUrl);
      if (amqUrl == null) {
        amqUrl = "tcp://127.0.0.1:61616";
      }
      versions.put("service", "external");
      apiKey = o.apiKey();
      if (apiKey == null) {
        throw new IOException(
            "--service-url needs an admin key of that service: --api-key KEY or the environment"
                + " variable ACTIVITY_KEY (e.g. ACTIVITY_KEY=$(cat data/admin.key))");
      }
    }
    api = new ServiceApi(http, serviceUrl, apiKey);
    if (service == null) {
      closeables.add(api::cleanUp);
    }
    if (!api.healthy()) {
      throw new IOException("the service at " + serviceUrl + " is not healthy (/actuator/health)");
    }
    if (!api.authorized()) {
      throw new IOException(
          "the service at "
              + serviceUrl
              + " refuses the API key (GET /api/v1/channels, admin only, is not 200):"
              + " pass an admin key with --api-key or ACTIVITY_KEY");
    }
    // Clients
    JmsChannelProperties jmsProps =
        JmsChannelProperties.builder()
            .brokerUrl(amqUrl)
            .subscriptionName("perf")
            .sendQueueCapacity(1_000_000)
            .sendTimeout(Duration.ofSeconds(30))
            .build();
    JmsChannelAdapter jms = new JmsChannelAdapter(jmsProps);
    closeables.add(jms);
    SqsChannelAdapter sqs = null;
    if (o.sqsAws() || o.sqsEndpoint() != null) {
      SqsChannelProperties sqsProps =
          o.sqsAws()
              ? SqsChannelProperties.builder()
                  .createQueues(true)
                  .sendBufferSize(200_000)
                  .embedded(new SqsChannelProperties.Embedded(false))
                  .build()
              : SqsChannelProperties.builder()
                  .endpoint(o.sqsEndpoint())
                  .region("us-east-1")
                  .accessKey("test")
                  .secretKey("test")
                  .createQueues(true)
                  .maxBatchBytes(262_144)
                  .sendBufferSize(200_000)
                  .embedded(new SqsChannelProperties.Embedded(false))
                  .build();
      sqs = SqsChannelAdapter.connect(sqsProps);
      closeables.add(sqs);
      settings.put(
          "sqs",
          o.sqsAws() ? "AWS (default region/credential chains)" : "endpoint " + o.sqsEndpoint());
      versions.put("localstack", o.sqsAws() ? "n/a (AWS)" : localStackVersion(o.sqsEndpoint()));
      if (!o.sqsAws()) {
        URI endpoint = URI.create(o.sqsEndpoint());
        boolean local =
            "127.0.0.1".equals(endpoint.getHost()) || "localhost".equals(endpoint.getHost());
        java.util.Optional<Long> pid =
            local
                ? Processes.find(
                    Path.of("infra/localstack/data/localstack.pid"), endpoint.getPort())
                : java.util.Optional.empty();
        // Not watched for idleness: a shared LocalStack also serves other users.
        pid.ifPresent(
            p -> {
              cpuSources.add(
                  CpuSource.process(
                      "localstack",
                      p,
                      "LocalStack process on "
                          + endpoint.getHost()
                          + ":"
                          + endpoint.getPort()
                          + " (shared: other users' requests count too)"));
              cpuShared.add("localstack");
            });
      }
    }
    CpuSource kafkaCpu = null;
    if (!kafkaThreads.isEmpty()) {
      kafkaCpu =
          CpuSource.threads(
              "kafka",
              "embedded Kafka broker's threads in the runner JVM (ThreadMXBean:"
                  + " threads started with the broker or named like its threads; its share of GC and JIT not included)",
              kafkaThreads,
              Testbed::kafkaBrokerThread);
      cpuSources.add(kafkaCpu);
    }
    // The load driver shares the host's cores: the capacity model counts its demand per event too.
    CpuSource runnerAll =
        CpuSource.process("runner-all", ProcessHandle.current().pid(), "this runner JVM");
    cpuSources.add(
        kafkaCpu == null
            ? CpuSource.minus(
                "runner", "the runner JVM (producers, consumers, the suite)", runnerAll, List.of())
            : CpuSource.minus(
                "runner",
                "the runner JVM (producers, consumers, the suite) without its embedded Kafka broker's threads",
                runnerAll,
                List.of(kafkaCpu)));
    counters.add(new ProcessCounters("runner", ProcessHandle.current().pid()));
    cpuSources.add(CpuSource.host("host"));
    cpuShared.add("host");
    cpuSources.add(CpuSource.disk("disk"));
    cpuShared.add("disk");
    KafkaTransport kafka = null;
    if (kafkaBrokers != null) {
      kafka = new KafkaTransport(kafkaBrokers);
      closeables.add(kafka);
    }
    legs =
        new Legs(
            new AdapterTransport(jms, Map.of(JmsChannelAdapter.SUBSCRIPTION_NAME, "perf")),
            sqs == null ? null : new AdapterTransport(sqs, Map.of()),
            kafka,
            api,
            amqUrl);
    amqUrlUsed = amqUrl;
    kafkaBrokersUsed = kafkaBrokers;
    portOf(amqUrl).ifPresent(p -> ports.put(p, "activemq"));
    if (o.sqsEndpoint() != null) {
      ports.put(URI.create(o.sqsEndpoint()).getPort(), "sqs");
    }
    if (kafkaBrokers != null) {
      for (String b : kafkaBrokers.split(",")) {
        ports.put(Integer.parseInt(b.substring(b.lastIndexOf(':') + 1).trim()), "kafka");
      }
    }
    closeables.add(legs);
    versions.put(
        "activemq-client", org.apache.activemq.ActiveMQConnectionMetaData.PROVIDER_VERSION);
    versions.put("kafka-clients", org.apache.kafka.common.utils.AppInfoParser.getVersion());
  }

  /** A random bootstrap admin key for a service this run starts (256 bits, hex). */
  static String generatedKey() {
    byte[] bytes = new byte[32];
    new java.security.SecureRandom().nextBytes(bytes);
    return "perf-" + java.util.HexFormat.of().formatHex(bytes);
  }

  /**
   * Whether a thread of this JVM started after the Kafka broker belongs to it: named like the
   * broker's threads and not like the client threads (producer, consumer heartbeat, admin client,
   * the suite's consumers).
   */
  static boolean kafkaBrokerThread(String name) {
    if (name.startsWith("kafka-producer-network-thread")
        || name.startsWith("kafka-coordinator-heartbeat-thread")
        || name.startsWith("kafka-admin-client-thread")
        || name.startsWith("perf-")) {
      return false;
    }
    return name.startsWith("data-plane-kafka")
        || name.startsWith("kafka-")
        || name.startsWith("broker-")
        || name.startsWith("controller-")
        || name.startsWith("quorum-controller")
        || name.startsWith("ExpirationReaper")
        || name.startsWith("group-coordinator")
        || name.startsWith("share-")
        || name.startsWith("executor-")
        || name.startsWith("TxnMarkerSenderThread")
        || name.startsWith("transaction-log-manager")
        || name.startsWith("raft-")
        || name.startsWith("LogDirFailureHandler")
        || name.startsWith("ReplicaFetcherThread");
  }

  /**
   * A JVM process's CPU sources: {@code <name>-own} (without its JIT compiler and JFR threads: what
   * remains in a warmed-up process without the suite's recording), {@code <name>} (the whole
   * process), {@code <name>-jit}, {@code <name>-jfr}, {@code <name>-gc} (part of {@code -own},
   * shown for information).
   */
  private static List<CpuSource> jvmSources(String name, long pid, String what) {
    ProcessThreads threads = new ProcessThreads(pid, ProcessThreads::hotspotGroup);
    CpuSource total = CpuSource.process(name, pid, what);
    CpuSource jit =
        threads.source(name + "-jit", ProcessThreads.JIT, "JIT compiler threads of " + what);
    CpuSource jfr = threads.source(name + "-jfr", ProcessThreads.JFR, "JFR threads of " + what);
    CpuSource gc = threads.source(name + "-gc", ProcessThreads.GC, "GC and VM threads of " + what);
    CpuSource own =
        CpuSource.minus(
            name + "-own",
            what + " without its JIT compiler and JFR threads",
            total,
            List.of(jit, jfr));
    return List.of(own, total, jit, jfr, gc);
  }

  /**
   * Reads the CPU time of the service, a broker process, LocalStack, the Kafka broker threads and
   * the peer (those known); one meter per test bed, so the peer's sources join it when the peer
   * starts.
   */
  public synchronized CpuMeter cpuMeter() {
    if (meter == null) {
      meter = new CpuMeter(cpuSources, cpuWatched);
      counters.forEach(meter::addCounters);
    }
    return meter;
  }

  private static java.util.Optional<Integer> portOf(String url) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile(":(\\d+)(?:[/?)]|$)").matcher(url == null ? "" : url);
    return m.find()
        ? java.util.Optional.of(Integer.parseInt(m.group(1)))
        : java.util.Optional.empty();
  }

  /**
   * Starts the Camel peer (perf-peer-camel) with the suite's routes, against the same brokers: the
   * ActiveMQ broker the service uses, LocalStack, the Kafka brokers. Its CPU sources and counters
   * join the meter.
   */
  @Override
  public void startPeer(List<PeerRoute> routes) throws Exception {
    List<String> jvm = new ArrayList<>(List.of("-Xms256m", "-Xmx1g"));
    jvm.addAll(MEASURED_JVM);
    List<String> args = new ArrayList<>();
    if (amqUrlUsed != null) {
      args.add("--peer.jms-broker-url=" + amqUrlUsed);
    }
    if (options.sqsEndpoint() != null) {
      args.add("--peer.sqs-endpoint=" + options.sqsEndpoint());
    }
    peer =
        PeerProcess.start(
            options.peerJar(), options.workDir().resolveSibling("perf-peer"), jvm, args, routes);
    closeables.add(peer);
    List<CpuSource> sources =
        jvmSources("camel", peer.pid(), "the Camel peer process (perf-peer-camel)");
    cpuMeter().add(sources, "camel", true);
    cpuMeter().addCounters(new ProcessCounters("camel", peer.pid()));
    settings.put(
        "peer",
        "Camel peer started: "
            + peer.command().replaceAll("--peer\\.routes\\[\\d+\\]\\.", "")
            + " (pid "
            + peer.pid()
            + ", log "
            + options.workDir().resolveSibling("perf-peer").resolve("peer.log")
            + ")");
  }

  @Override
  public long pid(String process) {
    return switch (process) {
      case "service" -> service == null ? -1 : service.pid();
      case "camel" -> peer == null ? -1 : peer.pid();
      default -> -1;
    };
  }

  @Override
  public Map<Integer, String> ports() {
    return ports;
  }

  /** CPU sources that also serve others (a shared LocalStack), whose idle rate is no baseline. */
  public List<String> sharedCpuSources() {
    return cpuShared;
  }

  /** Whether the service's CPU time includes an ActiveMQ broker (its embedded one). */
  public boolean brokerInService() {
    return brokerInService;
  }

  /** Client drivers for every transport. */
  public Legs legs() {
    return legs;
  }

  /** The service's API. */
  public ServiceApi api() {
    return api;
  }

  /** The started service, or null when an external one is used. */
  public ServiceProcess service() {
    return service;
  }

  /** Settings of the run, for the environment record. */
  public Map<String, String> settings() {
    return settings;
  }

  /** Versions of the parts, for the environment record. */
  public Map<String, String> versions() {
    return versions;
  }

  /**
   * Stops the service so its JFR recording is written; the rest stays up. Its channels and
   * subscriptions are not deleted one by one: its work dir is wiped at the next start anyway.
   */
  public void stopService() {
    if (service != null) {
      service.close();
    }
  }

  private String localStackVersion(String endpoint) {
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(endpoint + "/_localstack/health"))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      JsonNode v = new ObjectMapper().readTree(r.body()).path("version");
      return v.isMissingNode() ? "unknown (not LocalStack?)" : v.asText();
    } catch (IOException | InterruptedException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }

  private static String jarVersion(Path jar) {
    try (JarFile f = new JarFile(jar.toFile())) {
      String v = f.getManifest().getMainAttributes().getValue("Implementation-Version");
      return (v == null ? "unknown" : v) + " (" + jar.getFileName() + ")";
    } catch (IOException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }

  @Override
  public void close() {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      try {
        closeables.get(i).close();
      } catch (Exception e) {
        // keep closing the rest
      }
    }
    closeables.clear();
  }
}
