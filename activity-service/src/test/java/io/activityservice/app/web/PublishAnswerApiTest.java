package io.activityservice.app.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.app.ActivityServiceApplication;
import io.activityservice.app.support.Api;
import io.activityservice.app.support.Api.Response;
import io.activityservice.app.support.SlowFailingWebhook;
import io.activityservice.app.support.WebhookReceiver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * {@code POST /api/v1/events} answers the same whoever writes the answer: the request thread (every
 * event settled while it routed), or the thread of the last delivery through the async context (no
 * second dispatch). Status, body, content type and the security headers are checked on both paths,
 * and a refusal after routing started is the problem handler's 503.
 */
@SpringBootTest(
    classes = ActivityServiceApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"activity.routing.park-after=1s", "activity.routing.max-in-flight=2"})
class PublishAnswerApiTest {

  static final WebhookReceiver webhook = new WebhookReceiver();
  static final SlowFailingWebhook slow = new SlowFailingWebhook(Duration.ofSeconds(4));

  @LocalServerPort int port;

  @AfterAll
  static void stop() {
    webhook.close();
    slow.close();
  }

  private static String event(String id, String type) {
    return "{\"specversion\":\"1.0\",\"id\":\""
        + id
        + "\",\"source\":\"/answer\",\"type\":\""
        + type
        + "\",\"data\":{\"v\":1}}";
  }

  private static String unique(String prefix) {
    return prefix + "." + UUID.randomUUID().toString().substring(0, 8);
  }

  private String subscribe(Api api, String type, String target) {
    Response r =
        api.postJson(
            "/api/v1/subscriptions",
            "{\"name\":\""
                + unique("answer")
                + "\",\"pattern\":{\"type\":[\""
                + type
                + "\"]},\"target\":\""
                + target
                + "\",\"retry\":{\"maxAttempts\":2,\"initialBackoff\":\"PT1S\"}}");
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    return r.json().get("id").asText();
  }

  private static void assertAnswer(Response r, int accepted, int delivered, int parked) {
    assertThat(r.status()).as(r.body()).isEqualTo(202);
    assertThat(r.contentType()).isEqualTo("application/json");
    assertThat(r.header("X-Content-Type-Options"))
        .as("security headers survive an async answer")
        .isEqualTo("nosniff");
    JsonNode body = r.json();
    assertThat(body.get("accepted").asInt()).isEqualTo(accepted);
    assertThat(body.get("events")).hasSize(accepted);
    assertThat(body.get("delivered").asInt()).isEqualTo(delivered);
    assertThat(body.get("parked").asInt()).isEqualTo(parked);
  }

  @Test
  void withoutSubscriptionsTheRequestThreadAnswers() {
    Api api = new Api(port);
    String id = unique("sync");
    Response r = api.publish(event(id, unique("com.example.answer.none")));
    assertAnswer(r, 1, 0, 0);
    assertThat(r.json().get("events").get(0).get("id").asText()).isEqualTo(id);
    assertThat(r.json().get("events").get(0).get("source").asText()).isEqualTo("/answer");
  }

  @Test
  void aWebhookDeliveryIsAnsweredByTheDeliveringThread() {
    Api api = new Api(port);
    String type = unique("com.example.answer.hook");
    String path = "/" + unique("hook");
    subscribe(api, type, webhook.url(path));
    Response r = api.publish(event(unique("async"), type));
    assertAnswer(r, 1, 1, 0);
    assertThat(webhook.calls(path)).hasSize(1);

    // Two events: max-in-flight is 2 in this context.
    String batch = "[" + event(unique("b1"), type) + "," + event(unique("b2"), type) + "]";
    Response b = api.post("/api/v1/events", "application/cloudevents-batch+json", batch);
    assertAnswer(b, 2, 2, 0);
    assertThat(b.json().get("events").get(1).get("id").asText()).startsWith("b2");
  }

  @Test
  void aSlowTargetIsParkedAndTheAnswerSaysSo() {
    Api api = new Api(port);
    String type = unique("com.example.answer.slow");
    subscribe(api, type, slow.url("/slow"));
    long start = System.nanoTime();
    Response r = api.publish(event(unique("slow"), type));
    assertAnswer(r, 1, 0, 1);
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("answered at park-after, not after the 4 s webhook")
        .isLessThan(Duration.ofSeconds(4));
  }

  @Test
  void aRefusalAtTheInFlightBoundIsAProblem() throws Exception {
    Api api = new Api(port);
    String type = unique("com.example.answer.bound");
    try (SlowFailingWebhook holder = new SlowFailingWebhook(Duration.ofSeconds(4))) {
      subscribe(api, type, holder.url("/bound"));
      // Two events hold both in-flight slots for park-after (1 s); the third is refused at once.
      List<CompletableFuture<Response>> holding = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        String id = unique("hold" + i);
        holding.add(CompletableFuture.supplyAsync(() -> api.publish(event(id, type))));
      }
      await().atMost(Duration.ofSeconds(5)).until(() -> holder.maxConcurrent() >= 2);
      Response refused = api.publish(event(unique("over"), type));
      assertThat(refused.status()).as(refused.body()).isEqualTo(503);
      assertThat(refused.contentType()).startsWith("application/problem+json");
      for (CompletableFuture<Response> h : holding) {
        assertAnswer(h.get(), 1, 0, 1);
      }
    }
  }
}
