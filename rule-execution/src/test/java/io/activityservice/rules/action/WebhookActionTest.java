package io.activityservice.rules.action;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.activityservice.rules.Event;
import io.activityservice.rules.TestEvents;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The webhook handler against a real local HTTP server. */
class WebhookActionTest {

  HttpServer server;
  final AtomicInteger failures = new AtomicInteger();
  final List<String> bodies = new CopyOnWriteArrayList<>();
  final List<String> contentTypes = new CopyOnWriteArrayList<>();
  final WebhookAction webhook = new WebhookAction(HttpClient.newHttpClient(), Duration.ofSeconds(2), 3,
      Duration.ofMillis(20), Duration.ofMillis(100));
  final Event event = TestEvents.event("e1", "com.example.t", 1_000, "{\"value\": 1}");
  final ActionContext ctx = new ActionContext("rule", "r", event);

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", x -> {
      String body = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      boolean fail = failures.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
      if (!fail) {
        bodies.add(body);
        contentTypes.add(x.getRequestHeaders().getFirst("Content-Type"));
      }
      x.sendResponseHeaders(x.getRequestURI().getPath().equals("/gone") ? 404 : fail ? 503 : 204, -1);
      x.close();
    });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  ActionResult run(Map<String, Object> params) throws Exception {
    return webhook.execute(params, ctx).get(10, TimeUnit.SECONDS);
  }

  @Test
  void postsTheEventAsAStructuredCloudEvent() throws Exception {
    assertThat(run(Map.of("url", url("/h"), "event", event))).isEqualTo(ActionResult.succeeded(1));
    assertThat(contentTypes.get(0)).isEqualTo("application/cloudevents+json");
    assertThat(bodies.get(0)).contains("\"id\":\"e1\"").contains("\"specversion\":\"1.0\"").contains("\"value\":1");
  }

  @Test
  void postsABodyAsJson() throws Exception {
    assertThat(run(Map.of("url", url("/h"), "body", Map.of("cmd", "shed", "of", event))).succeeded()).isTrue();
    assertThat(contentTypes.get(0)).isEqualTo("application/json");
    assertThat(bodies.get(0)).contains("\"cmd\":\"shed\"").contains("\"id\":\"e1\"");
  }

  @Test
  void retriesServerErrorsWithBackoff() throws Exception {
    failures.set(2);
    assertThat(run(Map.of("url", url("/h"), "event", event))).isEqualTo(ActionResult.succeeded(3));
    assertThat(bodies).hasSize(1);
  }

  @Test
  void givesUpAfterMaxAttempts() throws Exception {
    failures.set(10);
    ActionResult r = run(Map.of("url", url("/h"), "event", event));
    assertThat(r.succeeded()).isFalse();
    assertThat(r.attempts()).isEqualTo(3);
    assertThat(r.error()).contains("HTTP 503");
  }

  @Test
  void doesNotRetryClientErrorsAndRefusesBadParameters() throws Exception {
    ActionResult gone = run(Map.of("url", url("/gone"), "event", event));
    assertThat(gone.attempts()).isEqualTo(1);
    assertThat(gone.error()).contains("HTTP 404");
    assertThat(run(Map.of("event", event)).error()).contains("needs the parameter 'url'");
    assertThat(run(Map.of("url", "ftp://x/y")).error()).contains("http:// or https://");
  }

  @Test
  void backoffDoublesUpToTheCap() {
    assertThat(webhook.backoff(1)).isEqualTo(Duration.ofMillis(20));
    assertThat(webhook.backoff(2)).isEqualTo(Duration.ofMillis(40));
    assertThat(webhook.backoff(10)).isEqualTo(Duration.ofMillis(100));
  }
}
