package io.activityservice.perf;

import io.activityservice.perf.cli.CommandLines;
import io.activityservice.perf.cli.ServiceJar;
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
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What authentication costs on the REST publish path, measured by hand: {@code java -cp
 * perf-tests/target/perf-runner.jar io.activityservice.perf.AuthCostMeasurement [--service-jar JAR]
 * [--events 2000] [--rounds 2]}.
 *
 * <p>Starts the packaged service twice per round, once with {@code activity.security.enabled=false}
 * and once with security on (the default), each on its own free ports and work directory, and times
 * {@code events} sequential {@code POST /api/v1/events} (one structured event each, no
 * subscription, after as many warm-up requests) on one HTTP connection: without credentials, with
 * the bootstrap admin key, and with a stored publisher API key scoped to the event's type (the
 * cached-key path). Prints p50/p90/p99/p99.9 per variant, merged over the rounds. Rounds alternate
 * which service starts first, so machine load drifting during the run affects both alike.
 */
public final class AuthCostMeasurement {

  private static final String TYPE = "com.example.authcost.reading";

  private AuthCostMeasurement() {}

  /** The command line (picocli). */
  @Command(
      name = "AuthCostMeasurement",
      mixinStandardHelpOptions = true,
      sortOptions = false,
      description = "REST publish latency with security off, the admin key and a scoped API key.")
  static final class Args {
    @Mixin ServiceJar serviceJar;

    @Option(
        names = "--events",
        paramLabel = "N",
        defaultValue = "2000",
        description = "events per variant and round (default: ${DEFAULT-VALUE})")
    int events;

    @Option(
        names = "--rounds",
        paramLabel = "N",
        defaultValue = "2",
        description = "rounds (default: ${DEFAULT-VALUE})")
    int rounds;

    @Option(
        names = "--work-dir",
        paramLabel = "DIR",
        defaultValue = "perf-tests/target/auth-cost",
        description = "working directory (default: ${DEFAULT-VALUE})")
    Path work;
  }

  public static void main(String[] args) throws Exception {
    Args a = CommandLines.parse(new Args(), args);
    Path jar = a.serviceJar.path();
    int events = a.events;
    int rounds = a.rounds;
    Path work = a.work;
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    Map<String, Histogram> results = new LinkedHashMap<>();
    for (String variant :
        List.of("security off", "bootstrap admin key", "publisher API key (scoped)")) {
      results.put(variant, new Histogram(TimeUnit.SECONDS.toMicros(30), 3));
    }
    for (int round = 0; round < rounds; round++) {
      List<Boolean> order = round % 2 == 0 ? List.of(false, true) : List.of(true, false);
      for (boolean secured : order) {
        String adminKey = secured ? Testbed.generatedKey() : null;
        try (ServiceProcess service =
            start(jar, work.resolve((secured ? "on-" : "off-") + round), adminKey, http)) {
          if (!secured) {
            results.get("security off").add(measure(http, service.url(), null, events));
          } else {
            String publisherKey = createPublisherKey(http, service.url(), adminKey);
            // Alternate the two keys within the service too.
            results
                .get("bootstrap admin key")
                .add(measure(http, service.url(), adminKey, events / 2));
            results
                .get("publisher API key (scoped)")
                .add(measure(http, service.url(), publisherKey, events));
            results
                .get("bootstrap admin key")
                .add(measure(http, service.url(), adminKey, events / 2));
          }
        }
      }
    }
    System.out.printf(
        "%nPOST /api/v1/events, sequential, %d events x %d rounds per variant (µs)%n",
        events, rounds);
    System.out.printf(
        "%-28s %8s %8s %8s %8s %8s %8s%n",
        "variant", "count", "p50", "p90", "p99", "p99.9", "mean");
    results.forEach(
        (name, h) ->
            System.out.printf(
                "%-28s %8d %8d %8d %8d %8d %8.0f%n",
                name,
                h.getTotalCount(),
                h.getValueAtPercentile(50),
                h.getValueAtPercentile(90),
                h.getValueAtPercentile(99),
                h.getValueAtPercentile(99.9),
                h.getMean()));
  }

  private static ServiceProcess start(Path jar, Path dir, String adminKey, HttpClient http)
      throws IOException, InterruptedException {
    int amqPort = ServiceProcess.freePort();
    List<String> args =
        new ArrayList<>(
            List.of(
                "--activity.channels.jms.embedded-broker.port=" + amqPort,
                "--activity.channels.sqs.embedded.enabled=false",
                "--activity.channels.sqs.enabled=false",
                "--activity.inbound[0].uri=jms:topic:auth.cost.in",
                "--activity.routing.dead-letter=",
                "--logging.level.root=WARN"));
    return ServiceProcess.builder(jar, ServiceProcess.freePort())
        .workDir(dir)
        .jvmArgs(List.of("-Xms512m", "-Xmx1g"))
        .args(args)
        .adminKey(adminKey)
        .build()
        .start(ServiceProcess.PATIENT_START);
  }

  private static String createPublisherKey(HttpClient http, String url, String adminKey)
      throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(url + "/api/v1/api-keys"))
                .header("Authorization", "Bearer " + adminKey)
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        """
            {"name": "auth cost", "roles": ["publisher"], "eventTypes": ["com.example.authcost.*"]}"""))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 201) {
      throw new IOException(
          "creating the publisher key answered " + r.statusCode() + ": " + r.body());
    }
    String body = r.body();
    int i = body.indexOf("\"key\":\"") + 7;
    return body.substring(i, body.indexOf('"', i));
  }

  /** Warm-up of {@code events} requests, then {@code events} timed ones. */
  private static Histogram measure(HttpClient http, String url, String key, int events)
      throws Exception {
    Histogram h = new Histogram(TimeUnit.SECONDS.toMicros(30), 3);
    for (int pass = 0; pass < 2; pass++) {
      for (int i = 0; i < events; i++) {
        HttpRequest.Builder b =
            HttpRequest.newBuilder(URI.create(url + "/api/v1/events"))
                .header("Content-Type", "application/cloudevents+json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"specversion\":\"1.0\",\"id\":\""
                            + pass
                            + "-"
                            + i
                            + "-"
                            + System.nanoTime()
                            + "\",\"source\":\"/auth-cost\",\"type\":\""
                            + TYPE
                            + "\",\"data\":{\"meter\":\"m1\",\"value\":"
                            + i
                            + "}}"));
        if (key != null) {
          b.header("Authorization", "Bearer " + key);
        }
        HttpRequest request = b.build();
        long t0 = System.nanoTime();
        HttpResponse<Void> r = http.send(request, HttpResponse.BodyHandlers.discarding());
        long micros = (System.nanoTime() - t0) / 1000;
        if (r.statusCode() != 202) {
          throw new IOException("POST /api/v1/events answered " + r.statusCode());
        }
        if (pass == 1) {
          h.recordValue(Math.min(micros, h.getHighestTrackableValue()));
        }
      }
    }
    return h;
  }
}
