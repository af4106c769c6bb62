package io.activityservice.app.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.app.support.Api.Response;
import io.activityservice.app.support.WebhookReceiver;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * Flow control per webhook target over real HTTP: a target limited to 50 requests/s gets at most
 * that (measured over 20 s) while another subscription's target gets its events at once; a {@code
 * 429} with {@code Retry-After: 2} is not called again before 2 s; a dead target opens its circuit
 * breaker after the configured failures, its deliveries wait in the durable store (no request
 * reaches it while open), and all arrive once it is back.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"activity.delivery.poll-interval=200ms"})
class FlowControlApiTest extends WebhookApiTestBase {

  String subscribe(String type, String path, String extra) {
    Response r =
        api.postJson(
            "/api/v1/subscriptions",
            """
            {"name": "%s", "pattern": {"type": ["%s"]}, "target": "%s"%s}"""
                .formatted(unique("flow"), type, receiver.url(path), extra));
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    return r.json().get("id").asText();
  }

  static String event(String id, String type) {
    return """
        {"specversion": "1.0", "id": "%s", "source": "/tests/flow", "type": "%s"}"""
        .formatted(id, type);
  }

  void publishBatch(String type, int n, String prefix) {
    StringBuilder batch = new StringBuilder("[");
    for (int i = 0; i < n; i++) {
      batch.append(i == 0 ? "" : ",").append(event(prefix + "-" + i, type));
    }
    Response r =
        api.post(
            "/api/v1/events", "application/cloudevents-batch+json", batch.append("]").toString());
    assertThat(r.status()).as(r.body()).isIn(200, 202);
  }

  void publish(String id, String type) {
    Response r = api.publish(event(id, type));
    assertThat(r.status()).as(r.body()).isIn(200, 202);
  }

  JsonNode target(String subscription) {
    return api.get("/api/v1/subscriptions/" + subscription + "/deliveries").json().get("target");
  }

  static Set<String> ids(List<WebhookReceiver.Call> calls) {
    Set<String> ids = new HashSet<>();
    for (WebhookReceiver.Call c : calls) {
      ids.add(c.header("webhook-id") != null ? c.header("webhook-id") : c.body());
    }
    return ids;
  }

  @Test
  void aTargetLimitedTo50PerSecondGetsAtMostThatWhileAnotherIsNotSlowed() {
    String limitedType = unique("com.example.limited");
    String freeType = unique("com.example.free");
    String limited = "/" + unique("limited");
    String free = "/" + unique("free");
    String id =
        subscribe(
            limitedType,
            limited,
            """
            , "flow": {"ratePerSecond": 50, "burst": 50},
              "retry": {"maxAttempts": 3, "maxAge": "PT5M"}""");
    subscribe(freeType, free, "");

    int events = 1_500;
    for (int b = 0; b < events / 250; b++) {
      publishBatch(limitedType, 250, "lim-" + b);
    }
    long freeStart = System.nanoTime();
    publishBatch(freeType, 200, "free");
    await().atMost(Duration.ofSeconds(10)).until(() -> receiver.calls(free).size() >= 200);
    long freeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - freeStart);
    assertThat(freeMillis).as("the other subscription's 200 events, ms").isLessThan(10_000);

    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> receiver.calls(limited).size() >= events);
    List<WebhookReceiver.Call> calls = receiver.attempts(limited);
    long t0 = calls.get(0).receivedAtNanos();
    long window = TimeUnit.SECONDS.toNanos(20);
    long inWindow = calls.stream().filter(c -> c.receivedAtNanos() - t0 < window).count();
    System.out.printf(
        "flow: %d requests to the 50/s target in the first 20 s; the other target's 200 events in"
            + " %d ms%n",
        inWindow, freeMillis);
    // 50/s for 20 s, plus one burst of 50 (the limiter's period boundary).
    assertThat(inWindow).as("requests in the first 20 s").isLessThanOrEqualTo(50 * 20 + 50);
    assertThat(inWindow).as("the limit is used, not starved").isGreaterThanOrEqualTo(700);
    assertThat(receiver.calls(limited)).hasSize(events);
    JsonNode target = target(id);
    assertThat(target.get("ratePerSecond").asDouble()).isEqualTo(50.0);
    assertThat(target.get("deferred").asLong()).isPositive();
  }

  @Test
  void aTargetAnswering429WithRetryAfter2IsNotCalledAgainBefore2Seconds() {
    String type = unique("com.example.busy");
    String path = "/" + unique("busy");
    AtomicInteger calls = new AtomicInteger();
    receiver.respond(
        path,
        (call, headers) -> {
          if (calls.incrementAndGet() == 1) {
            headers.add("Retry-After", "2");
            return 429;
          }
          return 204;
        });
    subscribe(
        type,
        path,
        """
        , "retry": {"maxAttempts": 3, "initialBackoff": "PT0.1S", "maxBackoff": "PT0.2S"}""");
    publish(unique("evt"), type);
    await().atMost(Duration.ofSeconds(15)).until(() -> receiver.attempts(path).size() >= 2);
    List<WebhookReceiver.Call> attempts = receiver.attempts(path);
    long gap = attempts.get(1).receivedAtNanos() - attempts.get(0).receivedAtNanos();
    assertThat(TimeUnit.NANOSECONDS.toMillis(gap))
        .as("ms until the second call")
        .isGreaterThanOrEqualTo(2_000);
    assertThat(receiver.calls(path)).hasSize(1);
  }

  @Test
  void aDeadTargetOpensItsBreakerItsDeliveriesParkAndAllArriveOnceItIsBack() {
    String type = unique("com.example.dead");
    String okType = unique("com.example.ok");
    String path = "/" + unique("dead");
    String ok = "/" + unique("ok");
    AtomicBoolean alive = new AtomicBoolean(false);
    receiver.respond(path, (call, headers) -> alive.get() ? 204 : 503);
    String id =
        subscribe(
            type,
            path,
            """
            , "flow": {"circuitBreaker": {"failures": 3, "openFor": "PT3S"}},
              "retry": {"maxAttempts": 50, "initialBackoff": "PT0.1S", "maxBackoff": "PT0.3S", "maxAge": "PT2M"}""");
    subscribe(okType, ok, "");

    publish("dead-0", type);
    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> "open".equals(target(id).get("circuit").asText()));
    assertThat(receiver.attempts(path)).as("failures before the breaker opened").hasSize(3);
    assertThat(api.get("/actuator/prometheus").body())
        .contains("activity_webhook_circuit_state{subscription=\"" + id + "\"} 1.0");

    for (int i = 1; i <= 5; i++) {
      publish("dead-" + i, type);
    }
    publish("ok-1", okType);
    await().atMost(Duration.ofSeconds(5)).until(() -> receiver.calls(ok).size() == 1);
    await()
        .during(Duration.ofMillis(1500))
        .atMost(Duration.ofSeconds(3))
        .until(() -> receiver.attempts(path).size() == 3);
    JsonNode target = target(id);
    assertThat(target.get("parked").asLong()).isEqualTo(6);
    assertThat(target.get("deferred").asLong()).isPositive();
    assertThat(target.get("lastError").asText()).contains("503");

    alive.set(true);
    await().atMost(Duration.ofSeconds(30)).until(() -> receiver.calls(path).size() >= 6);
    assertThat(receiver.calls(path)).hasSize(6);
    Set<String> bodies = new HashSet<>();
    receiver.calls(path).forEach(c -> bodies.add(c.body()));
    for (int i = 0; i <= 5; i++) {
      String eventId = "\"dead-" + i + "\"";
      assertThat(bodies).anyMatch(b -> b.contains(eventId));
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> "closed".equals(target(id).get("circuit").asText()));
    assertThat(target(id).get("parked").asLong()).isZero();
  }

  @Test
  void badFlowSettingsAreRefusedNamingTheField() {
    Response rate =
        api.postJson(
            "/api/v1/subscriptions",
            """
            {"name": "r", "pattern": {"type": ["x"]}, "target": "%s", "flow": {"ratePerSecond": 0}}"""
                .formatted(receiver.url("/r")));
    assertThat(rate.status()).isEqualTo(400);
    assertThat(rate.json().get("field").asText()).isEqualTo("flow.ratePerSecond");
    Response timeout =
        api.postJson(
            "/api/v1/subscriptions",
            """
            {"name": "t", "pattern": {"type": ["x"]}, "target": "%s", "flow": {"timeout": "PT1H"}}"""
                .formatted(receiver.url("/t")));
    assertThat(timeout.status()).isEqualTo(400);
    assertThat(timeout.json().get("field").asText()).isEqualTo("flow.timeout");
    Response breaker =
        api.postJson(
            "/api/v1/subscriptions",
            """
            {"name": "b", "pattern": {"type": ["x"]}, "target": "%s",
             "flow": {"circuitBreaker": {"openFor": "PT1S"}}}"""
                .formatted(receiver.url("/b")));
    assertThat(breaker.status()).isEqualTo(400);
    assertThat(breaker.json().get("field").asText()).isEqualTo("flow.circuitBreaker.failures");
  }
}
