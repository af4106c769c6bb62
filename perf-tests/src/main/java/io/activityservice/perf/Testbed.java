package io.activityservice.perf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.activityservice.channel.jms.JmsChannelAdapter;
import io.activityservice.channel.jms.JmsChannelProperties;
import io.activityservice.channel.sqs.SqsChannelAdapter;
import io.activityservice.channel.sqs.SqsChannelProperties;
import io.activityservice.perf.service.ServiceApi;
import io.activityservice.perf.service.ServiceProcess;
import io.activityservice.perf.suite.Legs;
import io.activityservice.perf.transport.AdapterTransport;
import io.activityservice.perf.transport.KafkaTransport;
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
import java.util.jar.JarFile;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * Everything a run needs, started in order and stopped in reverse: an embedded Kafka broker (unless
 * external brokers are given), the service (started from its jar unless a URL is given) with its embedded
 * ActiveMQ on a free port, and the client adapters. Records the settings and versions for the report.
 */
public final class Testbed implements AutoCloseable {

  private final Map<String, String> settings = new LinkedHashMap<>();
  private final Map<String, String> versions = new LinkedHashMap<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private HttpClient http;
  private ServiceProcess service;
  private ServiceApi api;
  private String apiKey;
  private Legs legs;

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
    http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).version(HttpClient.Version.HTTP_1_1).build();
    // Kafka
    String kafkaBrokers = o.kafka();
    if (!o.noKafka() && kafkaBrokers == null && o.serviceUrl() == null) {
      EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, 1);
      broker.afterPropertiesSet();
      closeables.add(broker::destroy);
      kafkaBrokers = broker.getBrokersAsString();
      settings.put("kafka", "embedded KRaft broker in the runner JVM (spring-kafka-test), " + kafkaBrokers);
    } else if (kafkaBrokers != null) {
      settings.put("kafka", "external " + kafkaBrokers);
    } else {
      settings.put("kafka", "not used");
    }
    // ActiveMQ + service
    String amqUrl = o.activemqUrl();
    String serviceUrl = o.serviceUrl();
    if (serviceUrl == null) {
      int port = ServiceProcess.freePort();
      List<String> args = new ArrayList<>();
      if (amqUrl == null) {
        int amqPort = ServiceProcess.freePort();
        amqUrl = "tcp://127.0.0.1:" + amqPort;
        args.add("--activity.channels.jms.embedded-broker.port=" + amqPort);
        settings.put("activemq", "the service's embedded broker (persistent, KahaDB) at " + amqUrl);
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
      List<String> jvm = List.of("-Xms512m", "-Xmx2g");
      apiKey = o.apiKey() != null ? o.apiKey() : generatedKey();
      String key = apiKey;
      service = ServiceProcess.start(o.serviceJar(), o.workDir(), port, o.jfr(), jvm, args, key,
          url -> new ServiceApi(http, url, key));
      closeables.add(service);
      serviceUrl = service.url();
      settings.put("service", "started: java " + String.join(" ", jvm) + " -jar " + o.serviceJar() + " "
          + String.join(" ", args) + " (pid " + service.pid() + ", work dir " + o.workDir() + ")");
      versions.put("service", jarVersion(o.serviceJar()));
    } else {
      settings.put("service", "external " + serviceUrl + " (must use the same brokers as given here)");
      settings.put("activemq", amqUrl == null ? "tcp://127.0.0.1:61616 (assumed)" : amqUrl);
      if (amqUrl == null) {
        amqUrl = "tcp://127.0.0.1:61616";
      }
      versions.put("service", "external");
      apiKey = o.apiKey();
      if (apiKey == null) {
        throw new IOException("--service-url needs an admin key of that service: --api-key KEY or the environment"
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
      throw new IOException("the service at " + serviceUrl + " refuses the API key (GET /api/v1/api-keys is not 200):"
          + " pass an admin key with --api-key or ACTIVITY_KEY");
    }
    // Clients
    JmsChannelProperties jmsProps = new JmsChannelProperties(null, amqUrl, null, null, "perf", null, null, null,
        1_000_000, Duration.ofSeconds(30), null, null, null);
    JmsChannelAdapter jms = new JmsChannelAdapter(jmsProps);
    closeables.add(jms);
    SqsChannelAdapter sqs = null;
    if (o.sqsAws() || o.sqsEndpoint() != null) {
      SqsChannelProperties sqsProps = o.sqsAws()
          ? new SqsChannelProperties(null, null, null, null, null, true, null, null, null, null, null, null, null,
              200_000, new SqsChannelProperties.Embedded(false, null, null))
          : new SqsChannelProperties(null, o.sqsEndpoint(), "us-east-1", "test", "test", true, null, null, null, null,
              null, null, 262_144, 200_000, new SqsChannelProperties.Embedded(false, null, null));
      sqs = SqsChannelAdapter.connect(sqsProps);
      closeables.add(sqs);
      settings.put("sqs", o.sqsAws() ? "AWS (default region/credential chains)" : "endpoint " + o.sqsEndpoint());
      versions.put("localstack", o.sqsAws() ? "n/a (AWS)" : localStackVersion(o.sqsEndpoint()));
    }
    KafkaTransport kafka = null;
    if (kafkaBrokers != null) {
      kafka = new KafkaTransport(kafkaBrokers);
      closeables.add(kafka);
    }
    legs = new Legs(new AdapterTransport(jms, Map.of(JmsChannelAdapter.SUBSCRIPTION_NAME, "perf")),
        sqs == null ? null : new AdapterTransport(sqs, Map.of()), kafka, http, serviceUrl, apiKey);
    closeables.add(legs);
    versions.put("activemq-client", org.apache.activemq.ActiveMQConnectionMetaData.PROVIDER_VERSION);
    versions.put("kafka-clients", org.apache.kafka.common.utils.AppInfoParser.getVersion());
  }

  /** A random bootstrap admin key for a service this run starts (256 bits, hex). */
  static String generatedKey() {
    byte[] bytes = new byte[32];
    new java.security.SecureRandom().nextBytes(bytes);
    return "perf-" + java.util.HexFormat.of().formatHex(bytes);
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
   * Stops the service so its JFR recording is written; the rest stays up. Its channels and subscriptions
   * are not deleted one by one: its work dir is wiped at the next start anyway.
   */
  public void stopService() {
    if (service != null) {
      service.close();
    }
  }

  private String localStackVersion(String endpoint) {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(endpoint + "/_localstack/health"))
          .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
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
