package io.activityservice.app.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.app.support.Api;
import io.activityservice.app.support.PackagedService;
import io.activityservice.app.support.WebhookReceiver;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.jms.JmsChannelAdapter;
import io.activityservice.channel.jms.JmsChannelProperties;
import io.activityservice.channel.jms.embedded.EmbeddedActiveMqBroker;
import io.activityservice.testsupport.ServiceProcess;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deliveries parked in the durable store survive a SIGKILL of the service: the webhook is down,
 * every delivery is parked, the packaged service is killed and restarted, the webhook comes up, and
 * every parked event is delivered.
 */
class ParkedDeliveriesSurviveKillIT {

  static final int EVENTS = 500;

  @TempDir Path dir;

  @Test
  void everyParkedEventIsDeliveredAfterAKillAndRestart() throws Exception {
    int webhookPort = ServiceProcess.freePort();
    String hook = "http://127.0.0.1:" + webhookPort + "/hook";
    try (EmbeddedActiveMqBroker broker =
            EmbeddedActiveMqBroker.start("127.0.0.1", 0, dir.resolve("broker").toFile(), true);
        JmsChannelAdapter client =
            new JmsChannelAdapter(
                JmsChannelProperties.builder()
                    .brokerUrl(broker.connectUri().toString())
                    .sendTimeout(Duration.ofSeconds(60))
                    .reconnectDelay(Duration.ofSeconds(1))
                    .build())) {
      List<String> args =
          List.of(
              "--activity.channels.jms.broker-url=" + broker.connectUri(),
              "--spring.datasource.url=jdbc:h2:file:" + dir.resolve("db/activity"),
              "--activity.inbound[0].uri=jms:queue:parked.in",
              "--activity.routing.dead-letter=",
              "--activity.delivery.lease=5s",
              "--activity.channels.sqs.embedded.enabled=false",
              "--activity.channels.sqs.enabled=false",
              "--activity.outbound.allowed-networks=127.0.0.0/8"); // the webhook runs on loopback
      try (ServiceProcess service = PackagedService.process(dir.resolve("service.log"), args);
          OutboundChannel producer = client.openOutbound(ChannelUri.parse("jms:queue:parked.in"))) {
        service.start(PackagedService.START);
        Api api = new Api(service.port());
        Api.Response sub =
            api.postJson(
                "/api/v1/subscriptions",
                """
            {"name": "webhook down", "pattern": {"type": ["com.example.parked"]}, "target": "%s",
             "retry": {"maxAttempts": 100, "initialBackoff": "PT0.5S", "maxBackoff": "PT2S", "maxAge": "PT10M"}}"""
                    .formatted(hook));
        assertThat(sub.status()).as(sub.body()).isEqualTo(201);
        String subscription = sub.json().get("id").asText();

        List<String> ids = send(producer);
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(250))
            .until(
                () ->
                    api.get("/api/v1/subscriptions/" + subscription + "/deliveries")
                            .json()
                            .get("pending")
                            .asLong()
                        == EVENTS);

        service.kill();
        service.start(PackagedService.START);
        assertThat(
                api.get("/api/v1/subscriptions/" + subscription + "/deliveries")
                    .json()
                    .get("pending")
                    .asLong())
            .as("still parked after the restart")
            .isEqualTo(EVENTS);

        try (WebhookReceiver webhook = new WebhookReceiver(webhookPort)) {
          await()
              .atMost(Duration.ofSeconds(120))
              .pollInterval(Duration.ofMillis(250))
              .until(
                  () ->
                      webhook.calls("/hook").stream().map(c -> idOf(c.body())).distinct().count()
                          >= EVENTS);
          await()
              .atMost(Duration.ofSeconds(30))
              .until(
                  () ->
                      api.get("/api/v1/subscriptions/" + subscription + "/deliveries")
                              .json()
                              .get("pending")
                              .asLong()
                          == 0);
          Map<String, Integer> counts = new HashMap<>();
          webhook.calls("/hook").forEach(c -> counts.merge(idOf(c.body()), 1, Integer::sum));
          assertThat(counts.keySet()).containsExactlyInAnyOrderElementsOf(ids);
          long duplicates = counts.values().stream().filter(n -> n > 1).count();
          System.out.printf(
              "parked-kill test: %d parked before the kill, %d delivered after the restart,"
                  + " %d duplicates%n",
              EVENTS, counts.size(), duplicates);
        }
      }
    }
  }

  private static String idOf(String body) {
    int i = body.indexOf("\"id\":\"");
    return body.substring(i + 6, body.indexOf('"', i + 6));
  }

  private static List<String> send(OutboundChannel producer) throws Exception {
    List<String> ids = new ArrayList<>();
    List<CompletableFuture<Void>> sends = new ArrayList<>();
    for (int i = 0; i < EVENTS; i++) {
      CloudEvent e =
          CloudEventBuilder.v1()
              .withId("parked-" + i)
              .withSource(URI.create("/parked"))
              .withType("com.example.parked")
              .withDataContentType("application/json")
              .withData(("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8))
              .build();
      ids.add(e.getId());
      sends.add(producer.send(e));
    }
    CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    return ids;
  }
}
