package io.activityservice.app;

import static io.activityservice.app.support.Events.READING_TYPE;
import static io.activityservice.app.support.Events.reading;
import static io.activityservice.app.support.Events.subscription;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.app.support.Api;
import io.activityservice.app.support.Api.Response;
import io.activityservice.app.support.WebhookReceiver;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The REST API over real HTTP with a real webhook receiver. Runs once per database (H2,
 * PostgreSQL). Each test uses its own type names and webhook paths, so tests share one application
 * context.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
abstract class AbstractApiTest {

  static final WebhookReceiver webhook = new WebhookReceiver();

  @LocalServerPort int port;
  Api api;

  @BeforeEach
  void client() {
    api = new Api(port);
  }

  @AfterAll
  static void stopWebhook() {
    // The receiver is static and shared by both subclasses' contexts; it is daemon-threaded and
    // dies with the JVM.
  }

  private static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  private void registerReadingType() {
    Response r = api.postJson("/api/v1/event-types", READING_TYPE);
    assertThat(r.status()).isIn(201, 409);
  }

  @Test
  void schemaViolationIsA400ProblemNamingTheField() {
    registerReadingType();
    Response r = api.publish(reading("bad-1", "m1", "high"));
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.contentType()).startsWith("application/problem+json");
    assertThat(r.json().get("field").asText()).isEqualTo("data.value");
    assertThat(r.json().get("detail").asText()).contains("number");
  }

  @Test
  void webhookReceivesExactlyTheMatchingEvent() {
    registerReadingType();
    String path = "/" + unique("hook");
    Response sub =
        api.postJson("/api/v1/subscriptions", subscription("high readings", webhook.url(path)));
    assertThat(sub.status()).isEqualTo(201);

    String matching = unique("match");
    String other = unique("nomatch");
    assertThat(api.publish(reading(matching, "m1", 150)).status()).isEqualTo(202);
    assertThat(api.publish(reading(other, "m1", 50)).status()).isEqualTo(202);

    await().atMost(Duration.ofSeconds(10)).until(() -> webhook.calls(path).size() == 1);
    // Give a wrong second delivery the time to show up before asserting there is none.
    api.publish(reading(unique("marker"), "m1", 500));
    await().atMost(Duration.ofSeconds(10)).until(() -> webhook.calls(path).size() == 2);
    WebhookReceiver.Call first = webhook.calls(path).get(0);
    assertThat(first.contentType()).startsWith("application/cloudevents+json");
    assertThat(first.body())
        .contains("\"id\":\"" + matching + "\"")
        .contains("\"value\":150")
        .contains("\"time\":");
    assertThat(webhook.calls(path)).noneMatch(c -> c.body().contains(other));
  }

  @Test
  void binaryAndBatchModesAreRouted() {
    String type = unique("com.example.mode");
    String path = "/" + unique("modes");
    api.postJson(
        "/api/v1/subscriptions",
        """
        {"name": "modes", "pattern": {"type": ["%s"]}, "target": "%s"}"""
            .formatted(type, webhook.url(path)));

    Response binary =
        api.post(
            "/api/v1/events",
            "application/json",
            "{\"k\": 1}",
            Map.of(
                "ce-specversion",
                "1.0",
                "ce-id",
                "bin-1",
                "ce-source",
                "/bin",
                "ce-type",
                type,
                "ce-tenant",
                "acme"));
    assertThat(binary.status()).isEqualTo(202);
    Response batch =
        api.post(
            "/api/v1/events",
            "application/cloudevents-batch+json",
            """
        [{"specversion": "1.0", "id": "b-1", "source": "/batch", "type": "%s"},
         {"specversion": "1.0", "id": "b-2", "source": "/batch", "type": "%s", "data": {"x": 2}}]"""
                .formatted(type, type));
    assertThat(batch.status()).isEqualTo(202);
    assertThat(batch.json().get("accepted").asInt()).isEqualTo(2);

    await().atMost(Duration.ofSeconds(10)).until(() -> webhook.calls(path).size() == 3);
    assertThat(webhook.calls(path))
        .anySatisfy(
            c ->
                assertThat(c.body())
                    .contains("\"tenant\":\"acme\"")
                    .containsPattern("\"k\":\\s*1"));
  }

  @Test
  void invalidBatchRoutesNothing() {
    String type = unique("com.example.batch");
    String path = "/" + unique("batch");
    api.postJson(
        "/api/v1/subscriptions",
        """
        {"name": "b", "pattern": {"type": ["%s"]}, "target": "%s"}"""
            .formatted(type, webhook.url(path)));
    Response r =
        api.post(
            "/api/v1/events",
            "application/cloudevents-batch+json",
            """
        [{"specversion": "1.0", "id": "ok-1", "source": "/batch", "type": "%s"},
         {"specversion": "1.0", "source": "/batch", "type": "%s"}]"""
                .formatted(type, type));
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.json().get("field").asText()).isEqualTo("[1].id");
    api.publish(
        """
        {"specversion": "1.0", "id": "after", "source": "/batch", "type": "%s"}"""
            .formatted(type));
    await().atMost(Duration.ofSeconds(10)).until(() -> webhook.calls(path).size() == 1);
    assertThat(webhook.calls(path).get(0).body()).contains("\"id\":\"after\"");
  }

  @Test
  void badInputGets4xxProblemsAndLeavesNoState() {
    int before = api.get("/api/v1/subscriptions").json().size();
    assertProblem(api.postJson("/api/v1/subscriptions", "{\"name\": \"x\", "), 400, "body");
    assertProblem(
        api.postJson(
            "/api/v1/subscriptions",
            """
        {"name": "x", "pattern": {"type": "not-an-array"}, "target": "http://127.0.0.1:1/x"}"""),
        400,
        "pattern");
    assertProblem(
        api.postJson(
            "/api/v1/subscriptions",
            """
        {"name": "x", "filter": "type = ", "target": "http://127.0.0.1:1/x"}"""),
        400,
        "filter");
    Response scheme =
        api.postJson(
            "/api/v1/subscriptions",
            """
        {"name": "x", "target": "carrier-pigeon:loft-1"}""");
    assertProblem(scheme, 400, "target");
    assertThat(scheme.json().get("detail").asText()).contains("known schemes").contains("http");
    assertProblem(
        api.postJson("/api/v1/subscriptions", "{\"target\": \"http://127.0.0.1:1/x\"}"),
        400,
        "name");
    assertThat(api.get("/api/v1/subscriptions").json().size()).isEqualTo(before);

    assertProblem(
        api.publish("{\"specversion\": \"1.0\", \"source\": \"/x\", \"type\": \"t\"}"), 400, "id");
    assertProblem(
        api.publish(
            "{\"specversion\": \"0.3\", \"id\": \"1\", \"source\": \"/x\", \"type\": \"t\"}"),
        400,
        "specversion");
    assertProblem(
        api.publish(
            "{\"specversion\": \"1.0\", \"id\": \"1\", \"source\": \"/x\", \"type\": \"t\", "
                + "\"time\": \"yesterday\"}"),
        400,
        "time");
    assertProblem(api.publish("not json"), 400, "body");
    assertProblem(api.post("/api/v1/events", "text/plain", "hello"), 400, "Content-Type");
    assertProblem(
        api.post("/api/v1/events", "application/json", "{}", Map.of("ce-specversion", "1.0")),
        400,
        "ce-id");
    String huge =
        "{\"specversion\": \"1.0\", \"id\": \"big\", \"source\": \"/x\", \"type\": \"t\", \"data\": \""
            + "x".repeat(300 * 1024)
            + "\"}";
    assertProblem(api.publish(huge), 413, "body");
    assertProblem(api.postJson("/api/v1/event-types", "{\"type\": \"has space\"}"), 400, "type");
    assertProblem(
        api.postJson(
            "/api/v1/event-types", "{\"type\": \"t.bad.schema\", \"schema\": {\"type\": 12}}"),
        400,
        "schema");
    assertThat(api.get("/api/v1/event-types/t.bad.schema").status()).isEqualTo(404);
  }

  @Test
  void registryCrudAndSearch() {
    String type = unique("org.acme.billing.invoice");
    Response created =
        api.postJson(
            "/api/v1/event-types",
            "{\"type\": \""
                + type
                + "\", \"description\": \"Invoice issued to a Customer\", \"owner\": \"billing\"}");
    assertThat(created.status()).isEqualTo(201);
    assertThat(created.json().get("version").asInt()).isEqualTo(1);
    assertProblem(api.postJson("/api/v1/event-types", "{\"type\": \"" + type + "\"}"), 409, "type");

    assertThat(api.get("/api/v1/event-types?q=org.acme.billing").json().findValuesAsText("type"))
        .contains(type);
    assertThat(api.get("/api/v1/event-types?q=customer").json().findValuesAsText("type"))
        .contains(type);
    assertThat(api.get("/api/v1/event-types?q=nothing-like-this").json()).isEmpty();

    Response updated =
        api.put("/api/v1/event-types/" + type, "{\"description\": \"v2\", \"owner\": \"billing\"}");
    assertThat(updated.status()).isEqualTo(200);
    assertThat(updated.json().get("version").asInt()).isEqualTo(2);
    assertThat(api.get("/api/v1/event-types/" + type).json().get("description").asText())
        .isEqualTo("v2");
    assertThat(api.delete("/api/v1/event-types/" + type).status()).isEqualTo(204);
    assertProblem(api.get("/api/v1/event-types/" + type), 404, null);
  }

  @Test
  void subscriptionCrudAndRetryToDeadLetter() {
    String type = unique("com.example.retry");
    String path = "/" + unique("flaky");
    String dlq = "/" + unique("dlq");
    Response sub =
        api.postJson(
            "/api/v1/subscriptions",
            """
        {"name": "flaky", "pattern": {"type": ["%s"]}, "target": "%s",
         "retry": {"maxAttempts": 3, "initialBackoff": "PT0.05S", "maxBackoff": "PT0.1S"},
         "deadLetter": "%s"}"""
                .formatted(type, webhook.url(path), webhook.url(dlq)));
    assertThat(sub.status()).isEqualTo(201);
    String id = sub.json().get("id").asText();
    assertThat(
            api.get("/api/v1/subscriptions/" + id).json().get("retry").get("maxAttempts").asInt())
        .isEqualTo(3);

    webhook.failNext(2);
    api.publish(
        "{\"specversion\": \"1.0\", \"id\": \"r1\", \"source\": \"/r\", \"type\": \""
            + type
            + "\"}");
    await().atMost(Duration.ofSeconds(10)).until(() -> webhook.calls(path).size() == 1);
    webhook.failNext(3);
    api.publish(
        "{\"specversion\": \"1.0\", \"id\": \"r2\", \"source\": \"/r\", \"type\": \""
            + type
            + "\"}");
    await().atMost(Duration.ofSeconds(10)).until(() -> webhook.calls(dlq).size() == 1);
    assertThat(webhook.calls(dlq).get(0).body())
        .contains("\"id\":\"r2\"")
        .contains("\"deadletterattempts\":3")
        .contains("\"deadlettersubscription\":\"" + id + "\"")
        .contains("deadletterreason");

    assertThat(api.delete("/api/v1/subscriptions/" + id).status()).isEqualTo(204);
    assertProblem(api.get("/api/v1/subscriptions/" + id), 404, null);
  }

  @Test
  void anOrderedSubscriptionDeliversEachKeyInOrderAcrossRetriesAndRefusesABadOrdering() {
    String type = unique("com.example.ordered");
    String path = "/" + unique("ordered");
    String create =
        """
        {"name": "ordered", "pattern": {"type": ["%s"]}, "target": "%s",
         "retry": {"initialBackoff": "PT0.05S", "maxBackoff": "PT0.1S"}, "ordering": %s}""";
    assertProblem(
        api.postJson(
            "/api/v1/subscriptions",
            create.formatted(type, webhook.url(path), "{\"key\": \"data..orderId\"}")),
        400,
        "ordering.key");
    assertProblem(
        api.postJson(
            "/api/v1/subscriptions",
            create.formatted(type, webhook.url(path), "{\"maxWait\": \"PT1S\"}")),
        400,
        "ordering.key");
    assertProblem(
        api.postJson(
            "/api/v1/subscriptions",
            create.formatted(
                type, webhook.url(path), "{\"key\": \"subject\", \"maxWait\": \"PT0S\"}")),
        400,
        "ordering.maxWait");
    assertProblem(
        api.postJson(
            "/api/v1/subscriptions",
            create.formatted(
                type, webhook.url(path), "{\"key\": \"subject\", \"maxWait\": \"soon\"}")),
        400,
        "ordering.maxWait");

    Response sub =
        api.postJson(
            "/api/v1/subscriptions",
            create.formatted(
                type, webhook.url(path), "{\"key\": \"data.orderId\", \"maxWait\": \"PT30S\"}"));
    assertThat(sub.status()).as(sub.body()).isEqualTo(201);
    String id = sub.json().get("id").asText();
    JsonNode ordering = api.get("/api/v1/subscriptions/" + id).json().get("ordering");
    assertThat(ordering.get("key").asText()).isEqualTo("data.orderId");
    assertThat(ordering.get("maxWait").asText()).isEqualTo("PT30S");

    // The first event fails twice: the later ones of its key wait behind it.
    webhook.failNext(path, 2);
    for (int n = 0; n < 5; n++) {
      assertThat(
              api.publish(
                      """
          {"specversion": "1.0", "id": "%s-%d", "source": "/orders", "type": "%s",
           "datacontenttype": "application/json", "data": {"orderId": "o-1", "n": %d}}"""
                          .formatted(id, n, type, n))
                  .status())
          .isEqualTo(202);
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> webhook.calls(path).size() >= 5);
    assertThat(webhook.calls(path).stream().map(c -> c.body().replaceAll(".*\"n\":(\\d+).*", "$1")))
        .containsExactly("0", "1", "2", "3", "4");
    assertThat(api.delete("/api/v1/subscriptions/" + id).status()).isEqualTo(204);
  }

  @Test
  void deadLettersAreBrowsedAndRedriven() {
    String type = unique("com.example.redrive");
    String path = "/" + unique("redrive");
    Response sub =
        api.postJson(
            "/api/v1/subscriptions",
            """
        {"name": "no retries", "pattern": {"type": ["%s"]}, "target": "%s", "retry": {"maxAttempts": 1}}"""
                .formatted(type, webhook.url(path)));
    assertThat(sub.status()).isEqualTo(201);
    String id = sub.json().get("id").asText();
    webhook.failNext(path, 3);
    for (String e : List.of("d1", "d2", "d3")) {
      assertThat(
              api.publish(
                      """
          {"specversion": "1.0", "id": "%s", "source": "/redrive", "type": "%s"}"""
                          .formatted(e, type))
                  .status())
          .isEqualTo(202);
    }

    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                api.get("/api/v1/subscriptions/" + id + "/deliveries")
                        .json()
                        .get("deadLetters")
                        .asInt()
                    == 3);
    Response page1 = api.get("/api/v1/dead-letters?subscription=" + id + "&limit=2");
    assertThat(page1.status()).isEqualTo(200);
    assertThat(page1.json().get("items")).hasSize(2);
    JsonNode first = page1.json().get("items").get(0);
    assertThat(first.get("subscription").asText()).isEqualTo(id);
    assertThat(first.get("reason").asText()).contains("503").contains("retry.maxAttempts=1");
    assertThat(first.get("attempts").asInt()).isEqualTo(1);
    assertThat(first.get("event").get("type").asText()).isEqualTo(type);
    Response page2 =
        api.get(
            "/api/v1/dead-letters?subscription="
                + id
                + "&limit=2&cursor="
                + page1.json().get("nextCursor").asText());
    assertThat(page2.json().get("items")).hasSize(1);
    assertThat(page2.json().get("nextCursor").isNull()).isTrue();

    // Redrive one by id, then the rest: each reaches the (now healthy) webhook once.
    String firstId = first.get("id").asText();
    String firstEvent = first.get("event").get("id").asText();
    Response one =
        api.postJson(
            "/api/v1/dead-letters/redrive",
            "{\"subscription\": \"" + id + "\", \"ids\": [\"" + firstId + "\"]}");
    assertThat(one.status()).as(one.body()).isEqualTo(200);
    assertThat(one.json().get("redriven").asInt()).isEqualTo(1);
    await().atMost(Duration.ofSeconds(20)).until(() -> webhook.calls(path).size() == 1);
    assertThat(webhook.calls(path).get(0).body()).contains("\"id\":\"" + firstEvent + "\"");
    Response rest =
        api.postJson("/api/v1/dead-letters/redrive", "{\"subscription\": \"" + id + "\"}");
    assertThat(rest.json().get("redriven").asInt()).isEqualTo(2);
    await().atMost(Duration.ofSeconds(20)).until(() -> webhook.calls(path).size() == 3);
    assertThat(webhook.calls(path))
        .extracting(c -> c.body().replaceAll(".*\"id\":\"(d\\d)\".*", "$1"))
        .containsExactlyInAnyOrder("d1", "d2", "d3");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                api.get("/api/v1/subscriptions/" + id + "/deliveries").json().get("pending").asInt()
                    == 0);
    assertThat(
            api.get("/api/v1/subscriptions/" + id + "/deliveries")
                .json()
                .get("deadLetters")
                .asInt())
        .isZero();

    // Bad input names the field and changes nothing.
    assertProblem(api.postJson("/api/v1/dead-letters/redrive", "{}"), 400, "subscription");
    assertProblem(
        api.postJson("/api/v1/dead-letters/redrive", "{\"subscription\": \"nope\"}"), 404, null);
    assertProblem(api.get("/api/v1/dead-letters?cursor=notacursor"), 400, "cursor");
    assertProblem(api.get("/api/v1/dead-letters?limit=0"), 400, "limit");
    assertProblem(api.get("/api/v1/subscriptions/nope/deliveries"), 404, null);
  }

  /**
   * One replica: a definition write answers at once, in force, with its version; publishing gets no
   * such header.
   */
  @Test
  void aDefinitionWriteSaysItsVersionAndIsInForceAtOnceOnOneReplica() {
    registerReadingType();
    Response sub =
        api.postJson(
            "/api/v1/subscriptions", subscription("versioned", webhook.url("/" + unique("v"))));
    assertThat(sub.status()).as(sub.body()).isEqualTo(201);
    long version = Long.parseLong(sub.header("Activity-Config-Version"));
    assertThat(sub.header("Activity-Config-Lagging")).isNull();

    JsonNode poll = api.get("/api/v1/cluster/versions/" + version).json();
    assertThat(poll.get("version").asLong()).isEqualTo(version);
    assertThat(poll.get("inForce").asBoolean()).as("%s", poll).isTrue();
    assertThat(poll.get("lagging")).isEmpty();

    Response deleted = api.delete("/api/v1/subscriptions/" + sub.json().get("id").asText());
    assertThat(deleted.status()).isEqualTo(204);
    assertThat(Long.parseLong(deleted.header("Activity-Config-Version"))).isGreaterThan(version);
    Response refused = api.postJson("/api/v1/subscriptions", "{\"name\": \"no target\"}");
    assertThat(refused.status()).isEqualTo(400);
    assertThat(refused.header("Activity-Config-Version")).as("nothing recorded").isNull();
    assertThat(api.publish(reading(unique("plain"), "m1", 1)).header("Activity-Config-Version"))
        .isNull();
  }

  @Test
  void operationsEndpoints() {
    registerReadingType();
    api.publish(reading(unique("metric"), "m9", 1));
    assertThat(api.get("/actuator/health").json().get("status").asText()).isEqualTo("UP");
    Response prometheus = api.get("/actuator/prometheus");
    assertThat(prometheus.status()).isEqualTo(200);
    assertThat(prometheus.body())
        .contains("activity_events_in_total")
        .contains("activity_routing_latency");
    Response docs = api.get("/v3/api-docs");
    assertThat(docs.status()).isEqualTo(200);
    assertThat(docs.body()).contains("/api/v1/subscriptions").contains("/api/v1/events");
  }

  /** The security tables (V6) on this database: keys, subscription owners and the audit log. */
  @Test
  void apiKeysSubscriptionOwnersAndTheAuditLogAreStored() {
    String type = unique("com.example.owned");
    Api subscriber =
        api.withKey(api.createKey(unique("subscriber"), List.of("subscriber"), List.of(type)));
    Response sub =
        subscriber.postJson(
            "/api/v1/subscriptions",
            """
        {"name": "owned", "pattern": {"type": ["%s"]}, "target": "%s"}"""
                .formatted(type, webhook.url("/owned")));
    assertThat(sub.status()).as(sub.body()).isEqualTo(201);
    String id = sub.json().get("id").asText();
    String owner = sub.json().get("owner").asText();
    assertThat(api.get("/api/v1/subscriptions/" + id).json().get("owner").asText())
        .isEqualTo(owner);
    Api other = api.withKey(api.createKey(unique("other"), List.of("subscriber"), List.of("*")));
    assertProblem(other.get("/api/v1/subscriptions/" + id), 404, null);

    Response audit = api.get("/api/v1/audit?limit=20");
    assertThat(audit.status()).isEqualTo(200);
    assertThat(audit.json().get("items"))
        .anySatisfy(
            e -> {
              assertThat(e.get("actor").asText()).isEqualTo(owner);
              assertThat(e.get("action").asText()).isEqualTo("create");
              assertThat(e.get("resourceKind").asText()).isEqualTo("subscription");
              assertThat(e.get("resourceId").asText()).isEqualTo(id);
              assertThat(e.get("outcome").asText()).isEqualTo("success");
            });
    String keyId = owner.substring("key:".length());
    assertThat(api.delete("/api/v1/api-keys/" + keyId).status()).isEqualTo(204);
    assertProblem(subscriber.get("/api/v1/subscriptions"), 401, null);
  }

  static void assertProblem(Response r, int status, String field) {
    assertThat(r.status()).as(r.body()).isEqualTo(status);
    assertThat(r.contentType()).startsWith("application/problem+json");
    if (field != null) {
      assertThat(r.json().get("field").asText()).as(r.body()).isEqualTo(field);
    }
  }
}
