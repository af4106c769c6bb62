package io.activityservice.app.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.app.support.Api;
import io.activityservice.app.support.PackagedService;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.jms.embedded.EmbeddedActiveMqBroker;
import io.activityservice.channel.sqs.LocalStackSqs;
import io.activityservice.channel.sqs.SqsChannelAdapter;
import io.activityservice.testsupport.ServiceProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 2xx from {@code POST /api/v1/events} survives a crash: 32 REST clients publish 5,000 events
 * while the packaged service is SIGKILLed and restarted; every event that was answered 2xx reaches
 * its subscriber's SQS queue (LocalStack). Events answered otherwise (connection refused while the
 * service was down) may or may not arrive.
 */
class RestPublishKilledIT {

  static final int EVENTS = 5000;
  static final int CLIENTS = 32;

  @TempDir Path dir;

  @Test
  void everyEventAnswered2xxReachesTheSubscriberAcrossAKill() throws Exception {
    URI localstack = LocalStackSqs.endpoint();
    String run = UUID.randomUUID().toString().substring(0, 8);
    String queue = "rest-kill-" + run;
    String type = "com.example.restkill." + run;
    try (EmbeddedActiveMqBroker broker =
            EmbeddedActiveMqBroker.start("127.0.0.1", 0, dir.resolve("broker").toFile(), true);
        SqsChannelAdapter sqs = PackagedService.localStackClient(localstack)) {
      List<String> args =
          PackagedService.concat(
              List.of(
                  "--activity.channels.jms.broker-url=" + broker.connectUri(),
                  "--spring.datasource.url=jdbc:h2:file:" + dir.resolve("db/activity"),
                  "--activity.inbound[0].uri=jms:queue:rest-kill.unused",
                  "--activity.routing.dead-letter=",
                  "--activity.delivery.lease=5s"),
              PackagedService.localStackSqsArgs(localstack));
      Map<String, AtomicInteger> received = new ConcurrentHashMap<>();
      ChannelUri target = ChannelUri.parse("sqs:" + queue);
      try (ServiceProcess service = PackagedService.process(dir.resolve("service.log"), args);
          InboundChannel receiver =
              sqs.openInbound(
                  target,
                  InboundSettings.strict(),
                  (event, ack) -> {
                    received
                        .computeIfAbsent(event.getId(), k -> new AtomicInteger())
                        .incrementAndGet();
                    ack.ack();
                  })) {
        service.start(PackagedService.START);
        int port = service.port();
        Api api = new Api(port);
        assertThat(
                api.postJson(
                        "/api/v1/subscriptions",
                        """
            {"name": "rest kill", "pattern": {"type": ["%s"]}, "target": "%s"}"""
                            .formatted(type, target))
                    .status())
            .isEqualTo(201);

        Set<String> answered2xx = ConcurrentHashMap.newKeySet();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger next = new AtomicInteger();
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        long start = System.nanoTime();
        for (int c = 0; c < CLIENTS; c++) {
          clients.execute(
              () -> {
                int i;
                while ((i = next.getAndIncrement()) < EVENTS) {
                  publishUntilAnswered(http, port, run + "-" + i, type, i, answered2xx, refused);
                }
              });
        }
        await()
            .atMost(Duration.ofSeconds(120))
            .until(() -> System.nanoTime() - start >= 3_000_000_000L && answered2xx.size() >= 500);
        service.kill();
        int answeredBeforeKill = answered2xx.size();
        service.start(PackagedService.START);
        clients.shutdown();
        assertThat(clients.awaitTermination(5, TimeUnit.MINUTES)).isTrue();

        try {
          await()
              .atMost(Duration.ofSeconds(180))
              .pollInterval(Duration.ofMillis(250))
              .until(() -> received.keySet().containsAll(answered2xx));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
          java.nio.file.Files.copy(
              dir.resolve("service.log"),
              Path.of("target/rest-kill-service.log"),
              java.nio.file.StandardCopyOption.REPLACE_EXISTING);
          System.out.println(
              "missing 2xx ids: "
                  + answered2xx.stream()
                      .filter(id -> !received.containsKey(id))
                      .sorted()
                      .limit(50)
                      .toList());
        }
        long lostOf2xx = answered2xx.stream().filter(id -> !received.containsKey(id)).count();
        long duplicates = received.values().stream().filter(n -> n.get() > 1).count();
        System.out.printf(
            "rest kill test: %d events, %d answered 2xx (%d before the kill), %d attempts refused or failed (retried);"
                + " %d of the 2xx lost, %d duplicates, %d received in all%n",
            EVENTS,
            answered2xx.size(),
            answeredBeforeKill,
            refused.get(),
            lostOf2xx,
            duplicates,
            received.size());
        assertThat(answeredBeforeKill).as("killed mid-stream").isLessThan(EVENTS);
        assertThat(answered2xx).as("every event was answered 2xx in the end").hasSize(EVENTS);
        assertThat(lostOf2xx).isZero();
      }
    }
  }

  /**
   * Publishes one event like a careful client: a failed connection (the service is down) or a 503
   * is retried with the same id until the service answers; 2xx ids are recorded.
   */
  private static void publishUntilAnswered(
      HttpClient http,
      int port,
      String id,
      String type,
      int n,
      Set<String> answered2xx,
      AtomicInteger refused) {
    String body =
        "{\"specversion\":\"1.0\",\"id\":\""
            + id
            + "\",\"source\":\"/restkill\",\"type\":\""
            + type
            + "\",\"data\":{\"n\":"
            + n
            + "}}";
    while (!Thread.currentThread().isInterrupted()) {
      try {
        HttpResponse<Void> r =
            http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/events"))
                    .timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "application/cloudevents+json")
                    .header("Authorization", "Bearer " + Api.ADMIN_KEY)
                    .POST(HttpRequest.BodyPublishers.ofString(body))
                    .build(),
                HttpResponse.BodyHandlers.discarding());
        if (r.statusCode() / 100 == 2) {
          answered2xx.add(id);
          return;
        }
        refused.incrementAndGet();
      } catch (java.io.IOException e) {
        refused.incrementAndGet();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      pause(50);
    }
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
