package io.activityservice.app.rules;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.activityservice.channel.http.HttpChannelAdapter;
import io.activityservice.channel.http.HttpChannelProperties;
import io.activityservice.channel.http.OutboundPolicy;
import io.activityservice.events.json.Json;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.rules.Event;
import io.activityservice.rules.action.ActionContext;
import io.activityservice.rules.action.ActionResult;
import io.activityservice.rules.action.WebhookAction;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.jackson.JsonCloudEventData;
import java.net.InetSocketAddress;
import java.net.URI;
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

/**
 * The rules' webhook handler against a real local HTTP server, through the http channel adapter's
 * guarded client ({@link HttpWebhookPoster}: the rule module reaches it only through its {@code
 * WebhookPoster} port). Only 127.0.0.1 is allowed, so other loopback forms stand in for internal
 * targets (nothing leaves the machine even if the guard failed). Attempts get a generous timeout: a
 * cold, loaded machine must not turn a slow first answer into a retry.
 */
class RulesWebhookActionTest {

  static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(30);

  HttpServer server;
  final List<String> paths = new CopyOnWriteArrayList<>();
  final AtomicInteger failures = new AtomicInteger();
  final List<String> bodies = new CopyOnWriteArrayList<>();
  final List<String> contentTypes = new CopyOnWriteArrayList<>();
  final HttpChannelAdapter http =
      new HttpChannelAdapter(
          new HttpChannelProperties(Duration.ofSeconds(5), ATTEMPT_TIMEOUT),
          OutboundPolicy.allowing("127.0.0.1/32"));
  final WebhookAction webhook =
      new WebhookAction(
          new HttpWebhookPoster(http.webhookClient()),
          ATTEMPT_TIMEOUT,
          3,
          Duration.ofMillis(20),
          Duration.ofMillis(100));
  final Event event =
      Event.of(
          RoutableEvent.of(
              CloudEventBuilder.v1()
                  .withId("e1")
                  .withSource(URI.create("/test"))
                  .withType("com.example.t")
                  .withData(
                      "application/json",
                      JsonCloudEventData.wrap(Json.parse("{\"value\": 1}", "data")))
                  .build()));
  final ActionContext ctx = new ActionContext("rule", "r", event);

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        x -> {
          String body = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          paths.add(x.getRequestURI().toString());
          if (x.getRequestURI().getPath().equals("/moved")) {
            x.getResponseHeaders().add("Location", "/h");
            x.sendResponseHeaders(302, -1);
            x.close();
            return;
          }
          boolean fail = failures.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
          if (!fail) {
            bodies.add(body);
            contentTypes.add(x.getRequestHeaders().getFirst("Content-Type"));
          }
          x.sendResponseHeaders(
              x.getRequestURI().getPath().equals("/gone") ? 404 : fail ? 503 : 204, -1);
          x.close();
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
    http.close();
  }

  String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  ActionResult run(Map<String, Object> params) throws Exception {
    return webhook.execute(params, ctx).get(2 * ATTEMPT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
  }

  @Test
  void postsTheEventAsAStructuredCloudEvent() throws Exception {
    assertThat(run(Map.of("url", url("/h"), "event", event))).isEqualTo(ActionResult.succeeded(1));
    assertThat(contentTypes.get(0)).isEqualTo("application/cloudevents+json");
    assertThat(bodies.get(0))
        .contains("\"id\":\"e1\"")
        .contains("\"specversion\":\"1.0\"")
        .contains("\"value\":1");
  }

  @Test
  void postsABodyAsJson() throws Exception {
    assertThat(
            run(Map.of("url", url("/h"), "body", Map.of("cmd", "shed", "of", event))).succeeded())
        .isTrue();
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
  void internalTargetsAreRefusedAtOnceWithoutDetail() throws Exception {
    int port = server.getAddress().getPort();
    for (String url :
        List.of(
            "http://127.0.0.2:" + port + "/h",
            "http://[::1]:" + port + "/h",
            "http://0x7f.1:" + port + "/h",
            "http://2130706433:" + port + "/h",
            "http://127.1:" + port + "/h")) {
      ActionResult r = run(Map.of("url", url, "event", event));
      assertThat(r.succeeded()).as(url).isFalse();
      assertThat(r.error()).as(url).isEqualTo("target refused by the outbound policy");
      assertThat(r.attempts()).as(url + ": a refusal is not retried").isLessThanOrEqualTo(1);
    }
    assertThat(paths).as("no request reached the server").isEmpty();
  }

  @Test
  void redirectsAreNotFollowedAndErrorsNameNoSecrets() throws Exception {
    ActionResult moved = run(Map.of("url", url("/moved?token=s3cret"), "event", event));
    assertThat(moved)
        .isEqualTo(
            ActionResult.failed(
                1, "HTTP 302 from http://127.0.0.1:" + server.getAddress().getPort() + "/moved"));
    assertThat(paths).containsExactly("/moved?token=s3cret");
  }

  @Test
  void headersAreSentAndConnectionLevelOnesRefused() throws Exception {
    assertThat(
            run(Map.of("url", url("/h"), "body", "hi", "headers", Map.of("X-Sig", "1")))
                .succeeded())
        .isTrue();
    ActionResult bad =
        run(Map.of("url", url("/h"), "body", "hi", "headers", Map.of("Host", "metadata")));
    assertThat(bad.succeeded()).isFalse();
    assertThat(bad.error()).contains("'Host' may not be set");
  }
}
