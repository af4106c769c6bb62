package io.activityservice.app.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.app.support.Api;
import io.activityservice.app.support.PackagedService;
import io.activityservice.app.support.ServiceCluster;
import io.activityservice.app.support.WebhookReceiver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Three packaged replicas on one PostgreSQL together respect a webhook subscription's rate limit:
 * each takes its share (the limit divided by the live replicas) of 30 requests/s while events are
 * posted round-robin to all three.
 */
class WebhookRateReplicasIT {

  @Test
  void threeReplicasTogetherRespectTheRateLimit() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver();
        ServiceCluster cluster =
            ServiceCluster.start(
                "webhook-rate-it",
                PackagedService.jar("it.replicas.jar"),
                List.of("a", "b", "c"),
                name -> List.of("--activity.outbound.allowed-networks=127.0.0.0/8"))) {
      List<Api> apis = cluster.apis();
      await().atMost(Duration.ofSeconds(60)).until(() -> live(apis.get(0)) == 3);
      String type = "com.example.replicated.rate";
      Api.Response sub =
          apis.get(0)
              .postJson(
                  "/api/v1/subscriptions",
                  """
                  {"name": "rate", "pattern": {"type": ["%s"]}, "target": "%s",
                   "flow": {"ratePerSecond": 30, "burst": 30}, "retry": {"maxAge": "PT5M"}}"""
                      .formatted(type, receiver.url("/rate")));
      assertThat(sub.status()).as(sub.body()).isEqualTo(201);
      // In force on every replica before events arrive there.
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  apis.stream()
                      .allMatch(
                          a ->
                              a.get("/api/v1/subscriptions/" + sub.json().get("id").asText())
                                      .status()
                                  == 200));

      int perReplica = 300;
      for (int r = 0; r < 3; r++) {
        StringBuilder batch = new StringBuilder("[");
        for (int i = 0; i < perReplica; i++) {
          batch
              .append(i == 0 ? "" : ",")
              .append(
                  """
                  {"specversion": "1.0", "id": "r%d-%d", "source": "/tests/replicas", "type": "%s"}"""
                      .formatted(r, i, type));
        }
        Api.Response posted =
            apis.get(r)
                .post(
                    "/api/v1/events",
                    "application/cloudevents-batch+json",
                    batch.append("]").toString());
        assertThat(posted.status()).as(posted.body()).isIn(200, 202);
      }
      await()
          .atMost(Duration.ofSeconds(25))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () ->
                  !receiver.attempts("/rate").isEmpty()
                      && System.nanoTime() - receiver.attempts("/rate").get(0).receivedAtNanos()
                          > TimeUnit.SECONDS.toNanos(21));
      List<WebhookReceiver.Call> calls = receiver.attempts("/rate");
      long t0 = calls.get(0).receivedAtNanos();
      long inWindow =
          calls.stream()
              .filter(c -> c.receivedAtNanos() - t0 < TimeUnit.SECONDS.toNanos(20))
              .count();
      System.out.printf("replicas: %d requests to the 30/s target in the first 20 s%n", inWindow);
      // 30/s for 20 s plus one burst per replica (a replica's share may lag the membership by a
      // few seconds).
      assertThat(inWindow).isLessThanOrEqualTo(30 * 20 + 3 * 30);
      assertThat(inWindow).as("the limit is used").isGreaterThanOrEqualTo(400);
    }
  }

  private static int live(Api api) {
    JsonNode cluster = api.get("/api/v1/cluster").json();
    int live = 0;
    for (JsonNode r : cluster.get("replicas")) {
      live += r.get("live").asBoolean() ? 1 : 0;
    }
    return live;
  }
}
