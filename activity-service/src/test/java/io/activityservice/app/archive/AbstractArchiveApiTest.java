package io.activityservice.app.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.activityservice.app.support.Api;
import io.activityservice.app.support.Api.Response;
import io.activityservice.app.support.WebhookReceiver;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * Archive and replay over the REST API on a real database: archive by pattern, look back, replay
 * into a subscription and a detector created after the events (the event-time detector reproduces
 * what the live one derived), replayed events marked and not archived again. Runs on H2 and
 * PostgreSQL.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
abstract class AbstractArchiveApiTest {

  static final WebhookReceiver webhook = new WebhookReceiver();
  static final ObjectMapper JSON = new ObjectMapper();

  @LocalServerPort int port;
  Api api;

  @BeforeEach
  void client() {
    api = new Api(port);
  }

  @Test
  void archiveThenReplayIntoALateSubscriptionAndAFixedDetector() throws Exception {
    String leg = UUID.randomUUID().toString().substring(0, 8);
    String type = "com.example.arc." + leg + ".reading";
    String emits = "com.example.arc." + leg + ".avg";
    assertThat(
            api.postJson(
                    "/api/v1/event-types",
                    """
        {"type": "%s", "schema": {"type": "object", "properties": {"meter": {"type": "string"},
         "value": {"type": "number"}}}}"""
                        .formatted(type))
                .status())
        .isEqualTo(201);
    Response archive =
        api.postJson(
            "/api/v1/archives",
            """
        {"name": "arc-%s", "pattern": {"type": ["%s"]}, "retention": "P7D"}"""
                .formatted(leg, type));
    assertThat(archive.status()).as(archive.body()).isEqualTo(201);
    String epl =
        "select data.meter as meter, avg(data.value) as avgValue from R#length_batch(3) group by data.meter";
    assertThat(detector("live-" + leg, type, epl, emits).status()).isEqualTo(201);
    String derivedPath = "/derived-" + leg;
    subscribe("derived", emits, webhook.url(derivedPath));

    OffsetDateTime t0 = OffsetDateTime.of(2026, 11, 20, 8, 0, 0, 0, ZoneOffset.UTC);
    for (int i = 0; i < 9; i++) {
      assertThat(
              api.publish(
                      """
          {"specversion": "1.0", "id": "r-%d", "source": "/meters/m1", "type": "%s", "time": "%s",
           "datacontenttype": "application/json", "data": {"meter": "m1", "value": %d}}"""
                          .formatted(i, type, t0.plusSeconds(i), 10 * (i + 1)))
                  .status())
          .isEqualTo(202);
    }
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> derived(derivedPath, "live-" + leg).size() == 3);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> api.get("/api/v1/archives/arc-" + leg).json().get("eventCount").asInt() == 9);
    assertThat(api.get("/api/v1/archives/arc-" + leg).json().get("sizeBytes").asLong())
        .isPositive();

    // Looking back, paged.
    JsonNode page1 =
        api.get("/api/v1/archives/arc-" + leg + "/events?type=" + type + "&limit=5").json();
    assertThat(page1.get("items")).hasSize(5);
    JsonNode page2 =
        api.get(
                "/api/v1/archives/arc-"
                    + leg
                    + "/events?limit=5&cursor="
                    + page1.get("nextCursor").asText())
            .json();
    assertThat(page2.get("items")).hasSize(4);
    assertThat(page2.get("nextCursor").isNull()).isTrue();
    assertThat(
            api.get("/api/v1/archives/arc-" + leg + "/events?source=/meters/none")
                .json()
                .get("items"))
        .isEmpty();
    assertThat(
            api.get("/api/v1/archives/arc-" + leg + "/events?from=" + t0.plusSeconds(7))
                .json()
                .get("items"))
        .hasSize(2);

    // A subscriber that joins late, and a detector created (fixed) after the events.
    String latePath = "/late-" + leg;
    String lateId = subscribe("late", type, webhook.url(latePath));
    assertThat(detector("fixed-" + leg, type, epl, emits).status()).isEqualTo(201);
    Response replay =
        api.postJson(
            "/api/v1/replays",
            """
        {"name": "rp-%s", "archive": "arc-%s", "from": "%s", "to": "%s",
         "destinations": {"subscriptions": ["%s"], "detectors": ["fixed-%s"], "rules": []}}"""
                .formatted(leg, leg, t0, t0.plusHours(1), lateId, leg));
    assertThat(replay.status()).as(replay.body()).isEqualTo(201);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                !api.get("/api/v1/replays/rp-" + leg)
                    .json()
                    .get("state")
                    .asText()
                    .equals("RUNNING"));
    JsonNode done = api.get("/api/v1/replays/rp-" + leg).json();
    assertThat(done.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(done.get("replayed").asInt()).isEqualTo(9);
    assertThat(done.get("total").asInt()).isEqualTo(9);
    assertThat(done.get("progress").asDouble()).isEqualTo(1.0);

    await().atMost(Duration.ofSeconds(20)).until(() -> webhook.calls(latePath).size() >= 9);
    assertThat(webhook.calls(latePath))
        .hasSize(9)
        .allSatisfy(
            c ->
                assertThat(JSON.readTree(c.body()).get("replayname").asText())
                    .isEqualTo("rp-" + leg));
    assertThat(webhook.calls(latePath).stream().map(c -> id(c.body())).collect(Collectors.toSet()))
        .hasSize(9);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> derived(derivedPath, "fixed-" + leg).size() == 3);
    assertThat(derived(derivedPath, "fixed-" + leg))
        .as("the replayed event-time detector derives what the live one" + " did")
        .isEqualTo(derived(derivedPath, "live-" + leg));
    // Replayed events are not archived again, and the live detector was not fed the replay.
    await()
        .during(Duration.ofSeconds(1))
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                api.get("/api/v1/archives/arc-" + leg).json().get("eventCount").asInt() == 9
                    && derived(derivedPath, "live-" + leg).size() == 3);

    // Cancelling a replay that ended leaves it as it was.
    assertThat(api.delete("/api/v1/replays/rp-" + leg).json().get("state").asText())
        .isEqualTo("COMPLETED");
    assertThat(api.get("/api/v1/replays").json())
        .anySatisfy(r -> assertThat(r.get("name").asText()).isEqualTo("rp-" + leg));
  }

  @Test
  void badInputIsRefusedNamingTheField() {
    String leg = UUID.randomUUID().toString().substring(0, 8);
    problem(
        api.postJson(
            "/api/v1/archives",
            "{\"name\": \"a-"
                + leg
                + "\", \"retention\": \"P7D\","
                + " \"pattern\": {\"type\": \"not-a-list\"}}"),
        400,
        "pattern");
    problem(
        api.postJson(
            "/api/v1/archives", "{\"name\": \"a-" + leg + "\", \"retention\": \"a week\"}"),
        400,
        "retention");
    problem(
        api.postJson("/api/v1/archives", "{\"name\": \"bad name\", \"retention\": \"P1D\"}"),
        400,
        "name");
    assertThat(
            api.postJson(
                    "/api/v1/archives", "{\"name\": \"a-" + leg + "\", \"retention\": \"P1D\"}")
                .status())
        .isEqualTo(201);
    problem(
        api.postJson("/api/v1/archives", "{\"name\": \"a-" + leg + "\", \"retention\": \"P1D\"}"),
        409,
        "name");
    problem(
        api.postJson(
            "/api/v1/replays",
            "{\"name\": \"r-"
                + leg
                + "\", \"archive\": \"nope\","
                + " \"from\": \"2026-01-01T00:00:00Z\", \"to\": \"2026-01-02T00:00:00Z\"}"),
        400,
        "archive");
    problem(
        api.postJson(
            "/api/v1/replays",
            "{\"name\": \"r-"
                + leg
                + "\", \"archive\": \"a-"
                + leg
                + "\","
                + " \"from\": \"2026-01-02T00:00:00Z\", \"to\": \"2026-01-01T00:00:00Z\"}"),
        400,
        "to");
    problem(
        api.postJson(
            "/api/v1/replays",
            "{\"name\": \"r-"
                + leg
                + "\", \"archive\": \"a-"
                + leg
                + "\","
                + " \"from\": \"yesterday\", \"to\": \"2026-01-01T00:00:00Z\"}"),
        400,
        "from");
    problem(api.get("/api/v1/archives/a-" + leg + "/events?limit=0"), 400, "limit");
    problem(api.get("/api/v1/archives/a-" + leg + "/events?cursor=x"), 400, "cursor");
    problem(api.get("/api/v1/replays/none-" + leg), 404, null);
    // Archives hold events of every type and replays re-deliver them: only an admin reaches them.
    Api author =
        api.withKey(
            api.createKey("author-" + leg, java.util.List.of("author"), java.util.List.of("*")));
    problem(author.get("/api/v1/archives/a-" + leg), 403, null);
    problem(
        author.postJson(
            "/api/v1/replays",
            "{\"name\": \"r-"
                + leg
                + "\", \"archive\": \"a-"
                + leg
                + "\","
                + " \"from\": \"2026-01-01T00:00:00Z\", \"to\": \"2026-01-02T00:00:00Z\"}"),
        403,
        null);
    problem(api.anonymous().get("/api/v1/archives"), 401, null);
    assertThat(api.get("/api/v1/audit?limit=100").json().get("items"))
        .anySatisfy(
            e -> {
              assertThat(e.get("resourceKind").asText()).isEqualTo("archive");
              assertThat(e.get("resourceId").asText()).isEqualTo("a-" + leg);
              assertThat(e.get("action").asText()).isEqualTo("create");
            });
    assertThat(api.delete("/api/v1/archives/a-" + leg).status()).isEqualTo(204);
    problem(api.get("/api/v1/archives/a-" + leg), 404, null);
  }

  private Response detector(String name, String type, String epl, String emits) {
    return api.postJson(
        "/api/v1/detectors",
        """
        {"name": "%s", "inputs": {"R": "%s"}, "epl": "%s", "emits": "%s", "clock": "event-time"}"""
            .formatted(name, type, epl, emits));
  }

  private String subscribe(String name, String type, String target) {
    Response r =
        api.postJson(
            "/api/v1/subscriptions",
            """
        {"name": "%s", "pattern": {"type": ["%s"]}, "target": "%s"}"""
                .formatted(name, type, target));
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    return r.json().get("id").asText();
  }

  /** The data of the derived events a detector emitted: meter and average. */
  private static Set<String> derived(String path, String detector) {
    return webhook.calls(path).stream()
        .map(
            c -> {
              try {
                JsonNode e = JSON.readTree(c.body());
                return e.get("source").asText().equals("/detectors/" + detector)
                    ? e.get("data").get("meter").asText()
                        + "="
                        + e.get("data").get("avgValue").asDouble()
                    : null;
              } catch (java.io.IOException ex) {
                throw new java.io.UncheckedIOException(ex);
              }
            })
        .filter(java.util.Objects::nonNull)
        .collect(Collectors.toSet());
  }

  private static String id(String body) {
    try {
      return JSON.readTree(body).get("id").asText();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void problem(Response r, int status, String field) {
    assertThat(r.status()).as(r.body()).isEqualTo(status);
    assertThat(r.contentType()).startsWith("application/problem+json");
    if (field != null) {
      assertThat(r.json().get("field").asText()).as(r.body()).isEqualTo(field);
    }
  }
}
