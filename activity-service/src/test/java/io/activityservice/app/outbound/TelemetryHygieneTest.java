package io.activityservice.app.outbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.app.support.Api;
import io.activityservice.app.support.Api.Response;
import io.activityservice.app.support.WebhookReceiver;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;

/**
 * Telemetry hygiene over real HTTP: the {@code type} tag of {@code activity_events_in_total} stays
 * bounded after 300 random types (registered ones and {@code other}); a webhook URL with secrets in
 * its user info, path and query shows up in {@code /actuator/prometheus}, dead letters, problem
 * answers and the service log only as its redacted form; the bearer tokens the test sends reach
 * neither metrics nor the log; and {@code /actuator/prometheus} itself needs a {@code metrics} or
 * {@code admin} key. Same context as {@link OutboundGuardApiTest}.
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
@ExtendWith(OutputCaptureExtension.class)
class TelemetryHygieneTest {

  static final WebhookReceiver webhook = new WebhookReceiver();
  static final Pattern TYPE_TAG =
      Pattern.compile("^activity_events_in_total\\{[^}]*type=\"([^\"]*)\"", Pattern.MULTILINE);
  static final Pattern OTHER_COUNT =
      Pattern.compile(
          "^activity_events_in_total\\{[^}]*type=\"other\"[^}]*}\\s+(\\S+)", Pattern.MULTILINE);

  static final String USER_SECRET = "pa55-UserSecret";
  static final String PATH_SECRET = "Tk9SECRETpath7";
  static final String QUERY_SECRET = "QuerySECRET42";

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

  static String event(String id, String type) {
    return """
        {"specversion": "1.0", "id": "%s", "source": "/tests/telemetry", "type": "%s", "data": {"n": 1}}"""
        .formatted(id, type);
  }

  static String subscription(String type, String target) {
    return """
        {"name": "%s", "pattern": {"type": ["%s"]}, "target": "%s",
         "retry": {"maxAttempts": 2, "initialBackoff": "PT0.1S", "maxBackoff": "PT0.2S"}}"""
        .formatted(unique("sub"), type, target);
  }

  private Set<String> typeTags() {
    Response prometheus = api.get("/actuator/prometheus");
    assertThat(prometheus.status()).isEqualTo(200);
    Set<String> tags = new HashSet<>();
    Matcher m = TYPE_TAG.matcher(prometheus.body());
    while (m.find()) {
      tags.add(m.group(1));
    }
    return tags;
  }

  private double otherCount() {
    Matcher m = OTHER_COUNT.matcher(api.get("/actuator/prometheus").body());
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }

  @Test
  void metricsNeedAMetricsOrAdminKey() {
    String metricsKey = api.createKey(unique("scraper"), List.of("metrics"), List.of());
    String publisherKey =
        api.createKey(unique("publisher"), List.of("publisher"), List.of("com.example.*"));
    assertThat(api.anonymous().get("/actuator/prometheus").status()).isEqualTo(401);
    assertThat(api.withKey("not-a-key-" + UUID.randomUUID()).get("/actuator/prometheus").status())
        .isEqualTo(401);
    assertThat(api.withKey(publisherKey).get("/actuator/prometheus").status()).isEqualTo(403);
    Response scraped = api.withKey(metricsKey).get("/actuator/prometheus");
    assertThat(scraped.status()).isEqualTo(200);
    assertThat(scraped.body()).contains("activity_events_in_total");
  }

  @Test
  void eventTypeTagsStayBoundedAfter300RandomTypes() {
    double otherBefore = otherCount();
    List<String> mine = List.of(unique("com.example.registered"), unique("com.example.registered"));
    for (String type : mine) {
      assertThat(
              api.postJson(
                      "/api/v1/event-types", "{\"type\": \"" + type + "\", \"description\": \"d\"}")
                  .status())
          .isEqualTo(201);
    }
    StringBuilder batch = new StringBuilder("[");
    for (int i = 0; i < 300; i++) {
      batch.append(i == 0 ? "" : ",").append(event(unique("r"), "random." + UUID.randomUUID()));
    }
    for (String type : mine) {
      batch.append(",").append(event(unique("k"), type));
    }
    Response published =
        api.post(
            "/api/v1/events", "application/cloudevents-batch+json", batch.append("]").toString());
    assertThat(published.status()).as(published.body()).isEqualTo(202);

    Set<String> registered = new HashSet<>();
    for (JsonNode t : api.get("/api/v1/event-types").json()) {
      registered.add(t.get("type").asText());
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> typeTags().containsAll(mine));
    Set<String> tags = typeTags();
    assertThat(tags).contains("other").containsAll(mine);
    assertThat(tags)
        .as("type tags: registered types and 'other' only")
        .allMatch(t -> t.equals("other") || registered.contains(t));
    assertThat(tags.size()).isLessThanOrEqualTo(registered.size() + 1);
    assertThat(tags).noneMatch(t -> t.startsWith("random."));
    assertThat(otherCount() - otherBefore)
        .as("the random types are counted, under 'other'")
        .isGreaterThanOrEqualTo(300);
  }

  @Test
  void webhookSecretsNeverReachMetricsDeadLettersProblemsOrLogs(CapturedOutput output)
      throws Exception {
    String type = unique("com.example.secret");
    String base = webhook.url("").replace("http://", "http://user:" + USER_SECRET + "@");
    String query = "?token=" + QUERY_SECRET;
    String publisherKey = api.createKey(unique("publisher"), List.of("publisher"), List.of(type));

    // Delivered: counted per channel.
    String delivered = "/hook/" + PATH_SECRET;
    Response ok =
        api.postJson("/api/v1/subscriptions", subscription(type, base + delivered + query));
    assertThat(ok.status()).as(ok.body()).isEqualTo(201);
    // Failing with 503: failed attempts and a dead letter.
    String failing = "/fail/" + PATH_SECRET;
    webhook.failNext(failing, 1000);
    Response failingSub =
        api.postJson("/api/v1/subscriptions", subscription(type, base + failing + query));
    assertThat(failingSub.status()).isEqualTo(201);
    // Refused at connect time (the name rebinds): the guard logs why.
    String name = unique("secret") + ".test";
    TestDnsZone.ANSWERS.put(name, "127.0.0.1");
    Response refusedSub =
        api.postJson(
            "/api/v1/subscriptions",
            subscription(
                type,
                "http://user:" + USER_SECRET + "@" + name + ":1/refused/" + PATH_SECRET + query));
    assertThat(refusedSub.status()).isEqualTo(201);
    TestDnsZone.ANSWERS.put(
        name, "127.0.0.2"); // loopback, not allowed here: nothing leaves the machine
    // Refused at creation, and unparsable: the problem answers must not echo the secrets.
    Response internal =
        api.postJson(
            "/api/v1/subscriptions",
            subscription(
                type, "http://user:" + USER_SECRET + "@10.0.0.1/hook/" + PATH_SECRET + query));
    Response unparsable =
        api.postJson(
            "/api/v1/subscriptions",
            subscription(
                type, "http://user:" + USER_SECRET + "@h.test/a b/" + PATH_SECRET + query));

    assertThat(api.publish(event(unique("e"), type)).status()).isEqualTo(202);
    await().atMost(Duration.ofSeconds(20)).until(() -> webhook.calls(delivered).size() == 1);
    String failingId = failingSub.json().get("id").asText();
    String refusedId = refusedSub.json().get("id").asText();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                api.get("/api/v1/dead-letters?subscription=" + failingId).json().get("items").size()
                        == 1
                    && api.get("/api/v1/dead-letters?subscription=" + refusedId)
                            .json()
                            .get("items")
                            .size()
                        == 1);

    String prometheus = api.get("/actuator/prometheus").body();
    String channel = webhook.url("/hook/*");
    assertThat(prometheus)
        .contains("activity_events_out_total{channel=\"" + channel + "\"")
        .contains("activity_events_failed_total{channel=\"" + webhook.url("/fail/*") + "\"");
    String deadLetters =
        api.get("/api/v1/dead-letters?subscription=" + failingId).body()
            + api.get("/api/v1/dead-letters?subscription=" + refusedId).body();
    assertThat(deadLetters)
        .contains("HTTP 503 from webhook " + webhook.url("/fail/*"))
        .contains("target refused by the outbound policy");
    assertThat(internal.status()).isEqualTo(400);
    assertThat(unparsable.status()).isEqualTo(400);
    assertThat(output.getOut())
        .contains("refused by the outbound policy: " + name + " resolves to 127.0.0.2");
    // The bearer tokens this test used (the bootstrap admin key, a publisher key) are secrets too.
    assertThat(api.withKey(publisherKey).publish(event(unique("p"), type)).status()).isEqualTo(202);
    prometheus = api.get("/actuator/prometheus").body();
    for (String secret :
        List.of(USER_SECRET, PATH_SECRET, QUERY_SECRET, Api.ADMIN_KEY, publisherKey)) {
      assertThat(prometheus).as("/actuator/prometheus").doesNotContain(secret);
      assertThat(deadLetters).as("dead letters").doesNotContain(secret);
      assertThat(internal.body() + unparsable.body()).as("problem answers").doesNotContain(secret);
      assertThat(output.getAll()).as("the service log").doesNotContain(secret);
    }
  }

  @Test
  void signingAndConnectionSecretsAppearInNoAnswerAfterCreationNorInLogsMetricsAuditOrDeadLetters(
      CapturedOutput output) {
    String password = "conn-PASSWORD-" + UUID.randomUUID();
    String apiKey = "conn-APIKEY-" + UUID.randomUUID();
    String basicName = unique("basic");
    String keyName = unique("apikey");
    Response basic =
        api.postJson(
            "/api/v1/connections",
            """
            {"name": "%s", "type": "basic", "username": "u", "password": "%s"}"""
                .formatted(basicName, password));
    assertThat(basic.status()).as(basic.body()).isEqualTo(201);
    Response key =
        api.postJson(
            "/api/v1/connections",
            """
            {"name": "%s", "type": "api-key", "header": "X-Api-Key", "value": "%s"}"""
                .formatted(keyName, apiKey));
    assertThat(key.status()).as(key.body()).isEqualTo(201);
    String basicHeader =
        java.util.Base64.getEncoder()
            .encodeToString(("u:" + password).getBytes(java.nio.charset.StandardCharsets.UTF_8));

    // Two signed subscriptions to a failing target, one per connection: their deliveries are
    // dead-lettered after one attempt each.
    String type = unique("com.example.hygiene");
    String path = "/" + unique("signed");
    webhook.failNext(path, 100);
    List<String> secrets = new java.util.ArrayList<>();
    List<String> ids = new java.util.ArrayList<>();
    for (String connection : List.of(basicName, keyName)) {
      Response created =
          api.postJson(
              "/api/v1/subscriptions",
              """
              {"name": "%s", "pattern": {"type": ["%s"]}, "target": "%s", "connection": "%s",
               "signing": {"scheme": "standard-webhooks"}, "retry": {"maxAttempts": 1}}"""
                  .formatted(unique("hyg"), type, webhook.url(path), connection));
      assertThat(created.status()).as(created.body()).isEqualTo(201);
      secrets.add(created.json().get("secret").asText());
      ids.add(created.json().get("id").asText());
    }
    Response rotated =
        api.postJson(
            "/api/v1/subscriptions/" + ids.get(0) + "/signing-secrets", "{\"overlap\": \"PT1H\"}");
    assertThat(rotated.status()).isEqualTo(201);
    secrets.add(rotated.json().get("secret").asText());
    assertThat(api.publish(event(unique("h"), type)).status()).isIn(200, 202);
    for (String id : ids) {
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  api.get("/api/v1/dead-letters?subscription=" + id).json().get("items").size()
                      == 1);
    }

    StringBuilder seen = new StringBuilder();
    for (String id : ids) {
      seen.append(api.get("/api/v1/subscriptions/" + id).body())
          .append(api.get("/api/v1/subscriptions/" + id + "/deliveries").body())
          .append(api.get("/api/v1/dead-letters?subscription=" + id).body());
    }
    seen.append(api.get("/api/v1/subscriptions").body())
        .append(api.get("/api/v1/connections").body())
        .append(api.get("/api/v1/connections/" + basicName).body())
        .append(api.get("/api/v1/connections/" + keyName).body())
        .append(api.get("/api/v1/audit?limit=1000").body())
        .append(api.get("/actuator/prometheus").body());
    assertThat(api.get("/api/v1/audit?limit=1000").body()).contains(basicName);
    List<String> hidden = new java.util.ArrayList<>(secrets);
    hidden.addAll(List.of(password, apiKey, basicHeader));
    for (String secret : hidden) {
      String body = secret.startsWith("whsec_") ? secret.substring(6) : secret;
      assertThat(seen.toString()).as("answers, audit and metrics").doesNotContain(body);
      assertThat(output.getAll()).as("the service log").doesNotContain(body);
    }
  }
}
