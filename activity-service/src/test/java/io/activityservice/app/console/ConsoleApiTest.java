package io.activityservice.app.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.activityservice.app.support.Api;
import io.activityservice.app.support.Api.Response;
import io.activityservice.app.support.Events;
import io.activityservice.app.support.SseClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.TestPropertySource;

/**
 * The endpoints behind the console over real HTTP: the pattern tester, the event stream (filtering,
 * bounds, slow clients, idle timeout) and the statistics, plus the console's static files.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@TestPropertySource(
    properties = {
      "activity.console.stream.max-streams=4",
      "activity.console.stream.buffer-size=8",
      "activity.console.stream.idle-timeout=3s",
      "activity.console.stream.heartbeat=200ms"
    })
class ConsoleApiTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(10);

  @LocalServerPort int port;
  Api api;

  @BeforeEach
  void client() {
    api = new Api(port);
  }

  private static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  private static String event(String id, String type, String subject, String data) {
    return """
        {"specversion": "1.0", "id": "%s", "source": "/console-test", "type": "%s"%s, "data": %s}"""
        .formatted(id, type, subject == null ? "" : ", \"subject\": \"" + subject + "\"", data);
  }

  private static JsonNode json(String text) throws Exception {
    return MAPPER.readTree(text);
  }

  // ---- POST /api/v1/patterns/test

  @Test
  void patternTestSaysMatchAndWhyNot() {
    assertThat(api.postJson("/api/v1/event-types", Events.READING_TYPE).status()).isIn(201, 409);
    String pattern =
        "{\"type\": [\"com.example.meter.reading\"], \"data\": {\"value\": [{\"numeric\": [\">\", 100]}]}}";
    Response yes =
        api.postJson(
            "/api/v1/patterns/test",
            """
        {"pattern": %s, "filter": "source LIKE '/meters/%%'", "event": %s}"""
                .formatted(pattern, Events.reading("p-1", "m1", 150)));
    assertThat(yes.status()).as(yes.body()).isEqualTo(200);
    assertThat(yes.json().get("matches").asBoolean()).isTrue();
    assertThat(yes.json().get("filterMatches").asBoolean()).isTrue();
    assertThat(yes.json().get("reason").asText())
        .isEqualTo("matches: the pattern matches and the filter is true");

    Response no =
        api.postJson(
            "/api/v1/patterns/test",
            """
        {"pattern": %s, "event": %s}"""
                .formatted(pattern, Events.reading("p-2", "m1", 50)));
    assertThat(no.status()).isEqualTo(200);
    assertThat(no.json().get("matches").asBoolean()).isFalse();
    assertThat(no.json().get("reason").asText())
        .isEqualTo(
            "does not match: data.value is 50; the pattern wants [{\"numeric\":[\">\",100]}]");
    JsonNode mismatch = no.json().get("mismatches").get(0);
    assertThat(mismatch.get("field").asText()).isEqualTo("data.value");
    assertThat(mismatch.get("actual").asInt()).isEqualTo(50);
    assertThat(mismatch.get("expected").get(0).get("numeric").get(1).asInt()).isEqualTo(100);

    Response filtered =
        api.postJson(
            "/api/v1/patterns/test",
            """
        {"pattern": %s, "filter": "source = '/nowhere'", "event": %s}"""
                .formatted(pattern, Events.reading("p-3", "m1", 150)));
    assertThat(filtered.json().get("matches").asBoolean()).isFalse();
    assertThat(filtered.json().get("patternMatches").asBoolean()).isTrue();
    assertThat(filtered.json().get("filterMatches").asBoolean()).isFalse();
    assertThat(filtered.json().get("reason").asText()).contains("the filter evaluates to false");

    // A filter on an attribute the event lacks cannot be evaluated: said so, with CESQL's own
    // words.
    Response missing =
        api.postJson(
            "/api/v1/patterns/test",
            """
        {"pattern": %s, "filter": "subject = 'x'", "event": %s}"""
                .formatted(pattern, Events.reading("p-4", "m1", 150)));
    assertThat(missing.json().get("matches").asBoolean()).isFalse();
    assertThat(missing.json().get("reason").asText())
        .contains("could not be evaluated")
        .contains("subject");
  }

  @Test
  void patternTestRefusesBadInputNamingTheField() {
    String ok = Events.reading("p-4", "m1", 1);
    assertProblem(
        api.postJson(
            "/api/v1/patterns/test", "{\"pattern\": {\"type\": \"x\"}, \"event\": " + ok + "}"),
        "pattern");
    assertProblem(
        api.postJson("/api/v1/patterns/test", "{\"filter\": \"a = = b\", \"event\": " + ok + "}"),
        "filter");
    assertProblem(api.postJson("/api/v1/patterns/test", "{\"pattern\": {}}"), "event");
    assertProblem(
        api.postJson(
            "/api/v1/patterns/test",
            """
        {"event": {"specversion": "1.0", "source": "/s", "type": "t"}}"""),
        "event.id");
    // An event ingest would refuse (schema violation) is refused here too, naming the field inside
    // the event.
    assertThat(api.postJson("/api/v1/event-types", Events.READING_TYPE).status()).isIn(201, 409);
    assertProblem(
        api.postJson(
            "/api/v1/patterns/test", "{\"event\": " + Events.reading("p-5", "m1", "high") + "}"),
        "event.data.value");
  }

  private static void assertProblem(Response r, String field) {
    assertThat(r.status()).as(r.body()).isEqualTo(400);
    assertThat(r.contentType()).startsWith("application/problem+json");
    assertThat(r.json().get("field").asText()).isEqualTo(field);
  }

  // ---- GET /api/v1/events/stream

  @Test
  void streamCarriesOnlyEventsMatchingPatternAndFilter() throws Exception {
    String type = unique("com.example.tail");
    try (SseClient sse =
        SseClient.open(port, "{\"type\": [\"" + type + "\"]}", "subject = 'keep'").start()) {
      assertThat(sse.status()).isEqualTo(200);
      assertThat(sse.contentType()).startsWith("text/event-stream");
      SseClient.Event open = sse.next("open", WAIT);
      assertThat(open).isNotNull();
      assertThat(json(open.data()).get("bufferSize").asInt()).isEqualTo(8);

      String a = unique("a");
      String d = unique("d");
      assertThat(api.publish(event(a, type, "keep", "{\"n\": 1}")).status()).isEqualTo(202);
      assertThat(api.publish(event(unique("b"), type, "drop", "{\"n\": 2}")).status())
          .isEqualTo(202);
      assertThat(api.publish(event(unique("c"), type + ".other", "keep", "{\"n\": 3}")).status())
          .isEqualTo(202);
      assertThat(api.publish(event(d, type, "keep", "{\"n\": 4}")).status()).isEqualTo(202);

      // Events are tapped in publishing order, so a wrongly streamed b or c would arrive before d.
      List<String> ids = new ArrayList<>();
      while (!ids.contains(d)) {
        SseClient.Event e = sse.next("cloudevent", WAIT);
        assertThat(e).as("events so far: " + ids).isNotNull();
        JsonNode ce = json(e.data());
        ids.add(ce.get("id").asText());
        assertThat(ce.get("type").asText()).isEqualTo(type);
        assertThat(ce.has("time")).as("ingest filled in time").isTrue();
      }
      assertThat(ids).containsExactly(a, d);
    }
  }

  @Test
  void streamRefusesBadPatternsAndStreamsBeyondTheBound() throws Exception {
    try (SseClient bad = SseClient.open(port, "{\"type\": 1}", null)) {
      assertThat(bad.status()).isEqualTo(400);
      assertThat(json(bad.body()).get("field").asText()).isEqualTo("pattern");
    }
    try (SseClient bad = SseClient.open(port, "not json", null)) {
      assertThat(bad.status()).isEqualTo(400);
      assertThat(json(bad.body()).get("field").asText()).isEqualTo("pattern");
    }
    try (SseClient bad = SseClient.open(port, null, "subject = = 'x'")) {
      assertThat(bad.status()).isEqualTo(400);
      assertThat(json(bad.body()).get("field").asText()).isEqualTo("filter");
    }

    String type = unique("com.example.bound");
    String pattern = "{\"type\": [\"" + type + "\"]}";
    List<SseClient> open = new ArrayList<>();
    try {
      // Other tests of this class may hold streams for a moment: fill whatever is free up to the
      // bound of 4.
      await()
          .atMost(WAIT)
          .until(
              () -> {
                SseClient c = SseClient.open(port, pattern, null);
                if (c.status() == 200) {
                  open.add(c.start());
                  return false;
                }
                assertThat(c.status()).isEqualTo(503);
                assertThat(c.contentType()).startsWith("application/problem+json");
                assertThat(c.body()).contains("max-streams");
                c.close();
                return true;
              });
      assertThat(open).isNotEmpty().hasSizeLessThanOrEqualTo(4);
      for (SseClient c : open) {
        assertThat(c.next("open", WAIT)).isNotNull();
      }
      // A client that goes away frees its slot once the heartbeat notices (200 ms here).
      open.remove(0).close();
      await()
          .atMost(WAIT)
          .until(
              () -> {
                SseClient c = SseClient.open(port, pattern, null);
                if (c.status() == 200) {
                  open.add(c.start());
                  return true;
                }
                c.close();
                return false;
              });
    } finally {
      open.forEach(SseClient::close);
    }
  }

  @Test
  void slowClientLosesEventsAndIsToldHowMany() throws Exception {
    String type = unique("com.example.slow");
    // 200 events of ~120 KB: far more than the socket buffers between a client that does not read
    // and the server,
    // so the stream's writer blocks and its buffer of 8 fills; the router never waits for it.
    String payload = "{\"blob\": \"" + "x".repeat(120_000) + "\"}";
    int total = 200;
    try (SseClient slow = SseClient.open(port, "{\"type\": [\"" + type + "\"]}", null)) {
      assertThat(slow.status()).isEqualTo(200);
      assertThat(slow.parseNext().name()).isEqualTo("open");
      for (int i = 0; i < total; i++) {
        assertThat(api.publish(event("slow-" + i, type, null, payload)).status()).isEqualTo(202);
      }
      // Now read everything: each event was either streamed or dropped and counted, none lost
      // silently.
      int received = 0;
      long dropped = 0;
      long previous = -1;
      while (received + dropped < total) {
        SseClient.Event e = slow.parseNext();
        assertThat(e).as("received %d, dropped %d", received, dropped).isNotNull();
        if (e.name().equals("cloudevent")) {
          JsonNode ce = json(e.data());
          int n = Integer.parseInt(ce.get("id").asText().substring("slow-".length()));
          assertThat(n).as("in order").isGreaterThan((int) previous);
          previous = n;
          received++;
        } else if (e.name().equals("dropped")) {
          dropped = json(e.data()).get("dropped").asLong();
        }
      }
      assertThat(received + dropped).isEqualTo(total);
      assertThat(dropped).as("a client that did not read lost events").isPositive();
      assertThat(received)
          .as("its buffer and the sockets still held some")
          .isGreaterThanOrEqualTo(8);
    }
  }

  @Test
  void idleStreamEndsAfterTheIdleTimeout() throws Exception {
    try (SseClient sse =
        SseClient.open(port, "{\"type\": [\"" + unique("com.example.idle") + "\"]}", null)
            .start()) {
      assertThat(sse.next("open", WAIT)).isNotNull();
      SseClient.Event closed = sse.next("closed", Duration.ofSeconds(10));
      assertThat(closed).isNotNull();
      assertThat(json(closed.data()).get("reason").asText()).isEqualTo("idle");
      assertThat(sse.next("eof", WAIT)).as("the response ended").isNotNull();
    }
  }

  // ---- authorisation

  @Test
  void streamSendsOnlyTheEventTypesOfTheCallersScope() throws Exception {
    String prefix = unique("com.example.scoped") + ".";
    String mine = prefix + "reading";
    String other = unique("com.example.foreign");
    String subscriber = api.createKey(unique("tail"), List.of("subscriber"), List.of(prefix + "*"));
    // No pattern: every event the caller may see, which for this key is its scope only.
    try (SseClient sse = openWhenFree(subscriber).start()) {
      assertThat(sse.next("open", WAIT)).isNotNull();
      String hidden = unique("hidden");
      String seen = unique("seen");
      assertThat(api.publish(event(hidden, other, null, "{}")).status()).isEqualTo(202);
      assertThat(api.publish(event(seen, mine, null, "{}")).status()).isEqualTo(202);
      // Tapped in publishing order: a wrongly streamed foreign event would come first.
      SseClient.Event e = sse.next("cloudevent", WAIT);
      assertThat(e).isNotNull();
      assertThat(json(e.data()).get("id").asText()).isEqualTo(seen);
    }
  }

  /**
   * Opens a stream with every event the key may see, once a slot is free (other tests' streams end
   * soon).
   */
  private SseClient openWhenFree(String key) {
    SseClient[] opened = new SseClient[1];
    await()
        .atMost(WAIT)
        .until(
            () -> {
              SseClient c = SseClient.open(port, key, null, null);
              if (c.status() == 200) {
                opened[0] = c;
                return true;
              }
              assertThat(c.status()).as(c.body()).isEqualTo(503);
              c.close();
              return false;
            });
    return opened[0];
  }

  @Test
  void consoleEndpointsNeedTheirRoles() throws Exception {
    String publisher = api.createKey(unique("pub"), List.of("publisher"), List.of("com.example.*"));
    String metrics = api.createKey(unique("metrics"), List.of("metrics"), List.of());
    String author = api.createKey(unique("author"), List.of("author"), List.of("com.example.*"));

    try (SseClient none = SseClient.open(port, null, null, null)) {
      assertThat(none.status()).isEqualTo(401);
    }
    try (SseClient pub = SseClient.open(port, publisher, null, null)) {
      assertThat(pub.status()).isEqualTo(403);
      assertThat(pub.body()).contains("subscriber");
    }
    assertThat(api.anonymous().get("/api/v1/stats").status()).isEqualTo(401);
    assertThat(api.withKey(publisher).get("/api/v1/stats").status()).isEqualTo(403);
    assertThat(api.withKey(metrics).get("/api/v1/stats").status()).isEqualTo(200);

    String test =
        "{\"pattern\": {\"type\": [\"t\"]}, \"event\": " + event("w-1", "t", null, "{}") + "}";
    assertThat(api.anonymous().postJson("/api/v1/patterns/test", test).status()).isEqualTo(401);
    assertThat(api.withKey(metrics).postJson("/api/v1/patterns/test", test).status())
        .isEqualTo(403);
    assertThat(api.withKey(author).postJson("/api/v1/patterns/test", test).status()).isEqualTo(200);

    // whoami: what the console shows; any valid key may ask, nobody else.
    assertThat(api.anonymous().get("/api/v1/whoami").status()).isEqualTo(401);
    Response me = api.withKey(publisher).get("/api/v1/whoami");
    assertThat(me.status()).isEqualTo(200);
    assertThat(me.json().get("id").asText()).startsWith("key:");
    assertThat(me.json().get("kind").asText()).isEqualTo("key");
    assertThat(me.json().get("roles")).extracting(JsonNode::asText).containsExactly("publisher");
    assertThat(me.json().get("eventTypes"))
        .extracting(JsonNode::asText)
        .containsExactly("com.example.*");
    assertThat(api.get("/api/v1/whoami").json().get("roles"))
        .extracting(JsonNode::asText)
        .contains("admin");
  }

  // ---- GET /api/v1/stats

  @Test
  void statsCountEventsInByTypeAndLatency() {
    // Rates are by registered type (metric tags stay bounded); anything else counts as "other".
    String type = unique("com.example.stats");
    assertThat(
            api.postJson(
                    "/api/v1/event-types",
                    "{\"type\": \"" + type + "\", \"description\": \"stats\"}")
                .status())
        .isEqualTo(201);
    String unregistered = unique("com.example.unregistered");
    for (int i = 0; i < 7; i++) {
      assertThat(api.publish(event(unique("s"), type, null, "{}")).status()).isEqualTo(202);
    }
    assertThat(api.publish(event(unique("s"), unregistered, null, "{}")).status()).isEqualTo(202);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              Response r = api.get("/api/v1/stats?window=1m");
              assertThat(r.status()).isEqualTo(200);
              assertThat(r.json().get("totals").get("in").path(type).asDouble()).isEqualTo(7.0);
              assertThat(r.json().get("totals").get("in").path("other").asDouble())
                  .isGreaterThanOrEqualTo(1.0);
              assertThat(r.json().get("totals").get("in").has(unregistered)).isFalse();
            });
    Response r = api.get("/api/v1/stats?window=1m&series=in");
    JsonNode body = r.json();
    assertThat(body.get("series").fieldNames()).toIterable().containsExactly("in");
    assertThat(body.get("times").size()).isEqualTo(body.get("series").get("in").get(type).size());
    long routed = 0;
    boolean percentiles = false;
    for (int i = 0; i < body.get("latency").get("count").size(); i++) {
      routed += body.get("latency").get("count").get(i).asLong();
      percentiles |= body.get("latency").get("p99").get(i).isNumber();
    }
    assertThat(routed).isGreaterThanOrEqualTo(7);
    assertThat(percentiles).isTrue();
    assertThat(body.get("replica").asText()).isNotBlank();

    assertProblem(api.get("/api/v1/stats?window=forever"), "window");
    assertProblem(api.get("/api/v1/stats?window=2h"), "window");
    assertProblem(api.get("/api/v1/stats?series=nope"), "series");
  }

  // ---- the console's files

  @Test
  void consoleIsServedWithItsChartLibraryAndStrictHeaders() throws Exception {
    // The files are public (they hold no data); the pages then call the API with the operator's
    // token.
    Api api = this.api.anonymous();
    Response index = api.get("/console/");
    assertThat(index.status()).isEqualTo(200);
    assertThat(index.body())
        .contains("<title>Activity Service console</title>")
        .contains("js/main.js");
    Response uplot = api.get("/console/vendor/uplot/uPlot.iife.min.js");
    assertThat(uplot.status()).isEqualTo(200);
    assertThat(uplot.body()).contains("uPlot");
    assertThat(api.get("/console/js/pages/live.js").status()).isEqualTo(200);
    assertThat(api.get("/console").status()).isEqualTo(302); // to /console/
    java.net.http.HttpResponse<String> raw =
        java.net.http.HttpClient.newHttpClient()
            .send(
                java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create("http://127.0.0.1:" + port + "/console/"))
                    .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(raw.headers().firstValue("Content-Security-Policy"))
        .get()
        .asString()
        .contains("script-src 'self'")
        .contains("frame-ancestors 'none'");
    Response docs = this.api.get("/v3/api-docs");
    assertThat(docs.body())
        .contains("/api/v1/patterns/test")
        .contains("/api/v1/events/stream")
        .contains("/api/v1/stats");
  }
}
