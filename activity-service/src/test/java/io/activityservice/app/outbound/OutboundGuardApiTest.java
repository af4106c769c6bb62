package io.activityservice.app.outbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.activityservice.app.support.Api;
import io.activityservice.app.support.Api.Response;
import io.activityservice.app.support.WebhookReceiver;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;

/**
 * The outbound guard through the REST API over real HTTP: internal targets are refused when subscriptions are
 * created (400 naming the field, with the reason), a name that passed but resolves to an internal address at
 * connect time is refused then (generic reason in the dead letter, nothing sent), redirects are not followed,
 * an allowed target works, and the rules' webhook action is refused the same way. Only 127.0.0.1 is allowed
 * here, so 127.0.0.2 stands in for an internal host: nothing is ever sent off this machine.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"activity.outbound.allowed-networks=127.0.0.1/32", "activity.rules.webhook.max-attempts=3",
        "activity.rules.webhook.initial-backoff=50ms", "activity.rules.webhook.max-backoff=100ms"})
@Import(TestDnsZone.class)
class OutboundGuardApiTest {

  static final WebhookReceiver webhook = new WebhookReceiver();
  static final ObjectMapper JSON = new ObjectMapper();

  @LocalServerPort
  int port;
  Api api;

  @BeforeEach
  void client() {
    api = new Api(port);
  }

  @AfterAll
  static void stop() {
    webhook.close();
  }

  static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  static String subscription(String name, String type, String target, String deadLetter) throws Exception {
    Map<String, Object> s = new java.util.LinkedHashMap<>();
    s.put("name", name);
    s.put("pattern", Map.of("type", java.util.List.of(type)));
    s.put("target", target);
    s.put("retry", Map.of("maxAttempts", 2, "initialBackoff", "PT0.1S", "maxBackoff", "PT0.2S"));
    if (deadLetter != null) {
      s.put("deadLetter", deadLetter);
    }
    return JSON.writeValueAsString(s);
  }

  static String event(String id, String type) {
    return """
        {"specversion": "1.0", "id": "%s", "source": "/tests/outbound", "type": "%s", "data": {"n": 1}}"""
        .formatted(id, type);
  }

  private Response subscribe(String type, String target, String deadLetter) throws Exception {
    return api.postJson("/api/v1/subscriptions", subscription(unique("sub"), type, target, deadLetter));
  }

  private JsonNode deadLetters(String subscription) {
    return api.get("/api/v1/dead-letters?subscription=" + subscription).json().get("items");
  }

  @Test
  void internalTargetsAreRefusedWhenSubscriptionsAreCreated() throws Exception {
    String type = unique("com.example.ssrf");
    Map<String, String> refused = Map.of(
        "http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address",
        "http://169.254.170.2/v2/credentials", "169.254.170.2 is a link-local address",
        "http://intranet.test/hook", "intranet.test resolves to 10.1.2.3, a private address",
        "http://metadata.test/latest/meta-data/", "metadata.test resolves to 169.254.169.254, a link-local address",
        "http://[::ffff:169.254.169.254]/", "169.254.169.254 is a link-local address",
        "http://[fd00:ec2::254]/", "a unique local (private) address",
        "http://0x7f.1:8080/hook", "'0x7f.1' is not a standard IPv4 address",
        "http://2130706433/hook", "'2130706433' is not a standard IPv4 address",
        "http://127.0.0.2:8080/hook", "127.0.0.2 is a loopback address",
        "http://[::1]:8080/hook", "::1 is a loopback address");
    for (Map.Entry<String, String> r : refused.entrySet()) {
      Response created = subscribe(type, r.getKey(), null);
      assertThat(created.status()).as(r.getKey()).isEqualTo(400);
      assertThat(created.json().get("field").asText()).as(r.getKey()).isEqualTo("target");
      assertThat(created.json().get("detail").asText()).as(r.getKey()).contains(r.getValue())
          .contains("activity.outbound.allowed-networks");
    }
    Response deadLetter = subscribe(type, webhook.url("/fine"), "http://metadata.test/");
    assertThat(deadLetter.status()).isEqualTo(400);
    assertThat(deadLetter.json().get("field").asText()).isEqualTo("deadLetter");
    assertThat(api.get("/api/v1/subscriptions").body()).doesNotContain(type);
  }

  @Test
  void aNameThatRebindsToAnInternalAddressIsRefusedAtConnectTime() throws Exception {
    String type = unique("com.example.rebind");
    String name = unique("rebind") + ".test";
    String path = "/" + unique("hook");
    int receiverPort = Integer.parseInt(webhook.url("").replaceAll(".*:", ""));
    TestDnsZone.ANSWERS.put(name, "127.0.0.1"); // public enough: inside the allowed network
    Response sub = subscribe(type, "http://" + name + ":" + receiverPort + path, null);
    assertThat(sub.status()).as(sub.body()).isEqualTo(201);
    String id = sub.json().get("id").asText();

    assertThat(api.publish(event(unique("before"), type)).status()).isEqualTo(202);
    await().atMost(Duration.ofSeconds(20)).until(() -> webhook.calls(path).size() == 1); // the allowed one works

    TestDnsZone.ANSWERS.put(name, "127.0.0.2"); // the answer changes after the check
    assertThat(api.publish(event(unique("after"), type)).status()).isEqualTo(202);
    await().atMost(Duration.ofSeconds(30)).until(() -> deadLetters(id).size() == 1);
    String reason = deadLetters(id).get(0).get("reason").asText();
    assertThat(reason).contains("target refused by the outbound policy").doesNotContain("127.0.0.2");
    assertThat(webhook.calls(path)).hasSize(1);
  }

  @Test
  void redirectsAreNotFollowed() throws Exception {
    String type = unique("com.example.redirect");
    String internalPath = "/" + unique("internal");
    HttpServer redirector = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    redirector.createContext("/", x -> {
      x.getRequestBody().readAllBytes();
      x.getResponseHeaders().add("Location", webhook.url(internalPath));
      x.sendResponseHeaders(302, -1);
      x.close();
    });
    redirector.start();
    try {
      Response sub = subscribe(type, "http://127.0.0.1:" + redirector.getAddress().getPort() + "/hook", null);
      assertThat(sub.status()).isEqualTo(201);
      String id = sub.json().get("id").asText();
      assertThat(api.publish(event(unique("e"), type)).status()).isEqualTo(202);
      await().atMost(Duration.ofSeconds(30)).until(() -> deadLetters(id).size() == 1);
      assertThat(deadLetters(id).get(0).get("reason").asText()).contains("HTTP 302");
      assertThat(webhook.calls(internalPath)).as("the redirect's target was never requested").isEmpty();
    } finally {
      redirector.stop(0);
    }
  }

  @Test
  void ruleWebhooksAreRefusedTheSameWay() throws Exception {
    String type = unique("com.example.rulessrf");
    String rule = unique("ssrf-rule");
    String drl = """
        rule "post to an internal host"
        when
          $e : Event( type == "%s" )
        then
          actions.run("webhook", Map.of("url", "http://127.0.0.2:%d/x", "event", $e));
        end
        """.formatted(type, port);
    Response created = api.postJson("/api/v1/rules", JSON.writeValueAsString(Map.of("name", rule, "drl", drl)));
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    try {
      assertThat(api.publish(event(unique("e"), type)).status()).isEqualTo(202);
      await().atMost(Duration.ofSeconds(20))
          .until(() -> api.get("/api/v1/rules/" + rule + "/executions").json().size() == 1);
      JsonNode execution = api.get("/api/v1/rules/" + rule + "/executions").json().get(0);
      assertThat(execution.get("outcome").asText()).isEqualTo("failed");
      assertThat(execution.get("attempts").asInt()).as("a refusal is not retried").isEqualTo(1);
      assertThat(execution.get("error").asText()).isEqualTo("target refused by the outbound policy");
    } finally {
      api.delete("/api/v1/rules/" + rule);
    }
  }
}
