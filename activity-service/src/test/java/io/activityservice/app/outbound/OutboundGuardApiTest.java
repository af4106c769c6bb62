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
 * The outbound guard through the REST API over real HTTP: internal targets are refused when
 * subscriptions are created (400 naming the field, with the reason), a name that passed but
 * resolves to an internal address at connect time is refused then (generic reason in the dead
 * letter, nothing sent), redirects are not followed, an allowed target works (by network and by
 * host name), a failing target's answer is not echoed, and the rules' webhook action is refused the
 * same way. Only 127.0.0.1 and names under {@code allowed.test} are allowed here, so 127.0.0.2
 * stands in for an internal host: nothing is ever sent off this machine. Every request carries the
 * tests' bootstrap admin key ({@link Api}).
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "activity.outbound.allowed-networks=127.0.0.1/32",
      "activity.outbound.allowed-hosts=*.allowed.test",
      "activity.rules.webhook.max-attempts=3",
      "activity.rules.webhook.initial-backoff=50ms",
      "activity.rules.webhook.max-backoff=100ms"
    })
@Import(TestDnsZone.class)
class OutboundGuardApiTest {

  static final WebhookReceiver webhook = new WebhookReceiver();
  static final ObjectMapper JSON = new ObjectMapper();

  @LocalServerPort int port;
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

  static String subscription(String name, String type, String target, String deadLetter)
      throws Exception {
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
    return api.postJson(
        "/api/v1/subscriptions", subscription(unique("sub"), type, target, deadLetter));
  }

  private JsonNode deadLetters(String subscription) {
    return api.get("/api/v1/dead-letters?subscription=" + subscription).json().get("items");
  }

  @Test
  void internalTargetsAreRefusedWhenSubscriptionsAreCreated() throws Exception {
    String type = unique("com.example.ssrf");
    // Internal addresses: the answer says which setting would allow them.
    Map<String, String> internal =
        Map.of(
            "http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address",
            "http://169.254.170.2/v2/credentials", "169.254.170.2 is a link-local address",
            "http://intranet.test/hook", "intranet.test resolves to 10.1.2.3, a private address",
            "http://metadata.test/latest/meta-data/",
                "metadata.test resolves to 169.254.169.254, a link-local address",
            "http://[::ffff:169.254.169.254]/", "169.254.169.254 is a link-local address",
            "http://[fd00:ec2::254]/", "a unique local (private) address",
            "http://127.0.0.2:8080/hook", "127.0.0.2 is a loopback address",
            "http://[::1]:8080/hook", "::1 is a loopback address",
            "http://192.168.1.1/hook", "192.168.1.1 is a private address");
    // Non-standard IPv4 literals (resolvers disagree on them): no setting allows them, the answer
    // says how to write.
    Map<String, String> unreadable =
        Map.of(
            "http://0x7f.1:8080/hook", "'0x7f.1' is not a standard IPv4 address",
            "http://2130706433/hook", "'2130706433' is not a standard IPv4 address",
            "http://0251.0376.0251.0376/", "'0251.0376.0251.0376' is not a standard IPv4 address");
    for (Map.Entry<String, String> r : internal.entrySet()) {
      assertRefused(subscribe(type, r.getKey(), null), "target", r.getKey(), r.getValue())
          .contains("activity.outbound.allowed-networks");
    }
    for (Map.Entry<String, String> r : unreadable.entrySet()) {
      assertRefused(subscribe(type, r.getKey(), null), "target", r.getKey(), r.getValue())
          .contains("write IPv4 addresses as four decimal numbers");
    }
    assertRefused(
        subscribe(type, webhook.url("/fine"), "http://metadata.test/"),
        "deadLetter",
        "dead letter to metadata.test",
        "metadata.test resolves to 169.254.169.254, a link-local address");
    assertThat(api.get("/api/v1/subscriptions").body())
        .as("nothing was created")
        .doesNotContain(type);
  }

  private static org.assertj.core.api.AbstractStringAssert<?> assertRefused(
      Response created, String field, String what, String reason) {
    assertThat(created.status()).as(what).isEqualTo(400);
    assertThat(created.contentType()).as(what).startsWith("application/problem+json");
    assertThat(created.json().get("field").asText()).as(what).isEqualTo(field);
    return assertThat(created.json().get("detail").asText()).as(what).contains(reason);
  }

  @Test
  void anAllowedHostNameReachesAnInternalAddress() throws Exception {
    String type = unique("com.example.allowedhost");
    HttpServer internal = HttpServer.create(new InetSocketAddress("127.0.0.3", 0), 0);
    java.util.concurrent.atomic.AtomicInteger received =
        new java.util.concurrent.atomic.AtomicInteger();
    internal.createContext(
        "/",
        x -> {
          x.getRequestBody().readAllBytes();
          received.incrementAndGet();
          x.sendResponseHeaders(204, -1);
          x.close();
        });
    internal.start();
    try {
      int p = internal.getAddress().getPort();
      // 127.0.0.3 is outside allowed-networks: refused as an address, allowed through a listed
      // name.
      assertRefused(
          subscribe(type, "http://127.0.0.3:" + p + "/hook", null),
          "target",
          "127.0.0.3",
          "127.0.0.3 is a loopback address");
      String name = unique("hooks") + ".allowed.test";
      TestDnsZone.ANSWERS.put(name, "127.0.0.3");
      Response sub = subscribe(type, "http://" + name + ":" + p + "/hook", null);
      assertThat(sub.status()).as(sub.body()).isEqualTo(201);
      assertThat(api.publish(event(unique("e"), type)).status()).isEqualTo(202);
      await().atMost(Duration.ofSeconds(20)).until(() -> received.get() == 1);
      assertThat(deadLetters(sub.json().get("id").asText())).isEmpty();
    } finally {
      internal.stop(0);
    }
  }

  @Test
  void aFailingTargetsAnswerIsNotEchoedInDeadLetters() throws Exception {
    String type = unique("com.example.echo");
    String leak = "ASIA" + UUID.randomUUID().toString().replace("-", "").toUpperCase();
    HttpServer failing = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    failing.createContext(
        "/",
        x -> {
          x.getRequestBody().readAllBytes();
          byte[] body = ("{\"Code\": \"Success\", \"AccessKeyId\": \"" + leak + "\"}").getBytes();
          x.getResponseHeaders().add("Content-Type", "application/json");
          x.getResponseHeaders().add("X-Internal", leak);
          x.sendResponseHeaders(500, body.length);
          x.getResponseBody().write(body);
          x.close();
        });
    failing.start();
    try {
      Response sub =
          subscribe(
              type,
              "http://127.0.0.1:" + failing.getAddress().getPort() + "/latest/meta-data",
              null);
      assertThat(sub.status()).isEqualTo(201);
      String id = sub.json().get("id").asText();
      assertThat(api.publish(event(unique("e"), type)).status()).isEqualTo(202);
      await().atMost(Duration.ofSeconds(30)).until(() -> deadLetters(id).size() == 1);
      String shown =
          api.get("/api/v1/dead-letters?subscription=" + id).body()
              + api.get("/api/v1/subscriptions/" + id + "/deliveries").body();
      assertThat(deadLetters(id).get(0).get("reason").asText()).contains("HTTP 500");
      assertThat(shown).doesNotContain(leak).doesNotContain("AccessKeyId");
    } finally {
      failing.stop(0);
    }
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
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> webhook.calls(path).size() == 1); // the allowed one works

    TestDnsZone.ANSWERS.put(name, "127.0.0.2"); // the answer changes after the check
    assertThat(api.publish(event(unique("after"), type)).status()).isEqualTo(202);
    await().atMost(Duration.ofSeconds(30)).until(() -> deadLetters(id).size() == 1);
    String reason = deadLetters(id).get(0).get("reason").asText();
    assertThat(reason)
        .contains("target refused by the outbound policy")
        .doesNotContain("127.0.0.2");
    assertThat(webhook.calls(path)).hasSize(1);
  }

  @Test
  void redirectsAreNotFollowed() throws Exception {
    String type = unique("com.example.redirect");
    String internalPath = "/" + unique("internal");
    HttpServer redirector = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    redirector.createContext(
        "/",
        x -> {
          x.getRequestBody().readAllBytes();
          byte[] body = ("moved to " + internalPath).getBytes();
          x.getResponseHeaders().add("Location", webhook.url(internalPath));
          x.sendResponseHeaders(302, body.length);
          x.getResponseBody().write(body);
          x.close();
        });
    redirector.start();
    try {
      Response sub =
          subscribe(type, "http://127.0.0.1:" + redirector.getAddress().getPort() + "/hook", null);
      assertThat(sub.status()).isEqualTo(201);
      String id = sub.json().get("id").asText();
      assertThat(api.publish(event(unique("e"), type)).status()).isEqualTo(202);
      await().atMost(Duration.ofSeconds(30)).until(() -> deadLetters(id).size() == 1);
      assertThat(deadLetters(id).get(0).get("reason").asText())
          .contains("HTTP 302")
          .doesNotContain(internalPath);
      assertThat(webhook.calls(internalPath))
          .as("the redirect's target was never requested")
          .isEmpty();
    } finally {
      redirector.stop(0);
    }
  }

  @Test
  void ruleWebhooksAreRefusedTheSameWay() throws Exception {
    String type = unique("com.example.rulessrf");
    String rule = unique("ssrf-rule");
    String drl =
        """
        rule "post to an internal host"
        when
          $e : Event( type == "%s" )
        then
          actions.run("webhook", Map.of("url", "http://127.0.0.2:%d/x", "event", $e));
        end
        """
            .formatted(type, port);
    Response created =
        api.postJson("/api/v1/rules", JSON.writeValueAsString(Map.of("name", rule, "drl", drl)));
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    try {
      assertThat(api.publish(event(unique("e"), type)).status()).isEqualTo(202);
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> api.get("/api/v1/rules/" + rule + "/executions").json().size() == 1);
      JsonNode execution = api.get("/api/v1/rules/" + rule + "/executions").json().get(0);
      assertThat(execution.get("outcome").asText()).isEqualTo("failed");
      assertThat(execution.get("attempts").asInt()).as("a refusal is not retried").isEqualTo(1);
      assertThat(execution.get("error").asText())
          .isEqualTo("target refused by the outbound policy");
    } finally {
      api.delete("/api/v1/rules/" + rule);
    }
  }
}
