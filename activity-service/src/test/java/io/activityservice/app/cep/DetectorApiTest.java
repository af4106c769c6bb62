package io.activityservice.app.cep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.activityservice.app.support.Api;
import io.activityservice.app.support.Api.Response;
import io.activityservice.app.support.WebhookReceiver;
import io.activityservice.channel.ChannelUri;
import io.activityservice.events.channel.ChannelRegistry;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * Detectors over real HTTP: the issue's "Done when" scenario with a real webhook receiver, compile
 * errors as problems, and every shipped example end to end, published over REST and over a JMS
 * inbound channel on the app's embedded broker, with the event-time clock so outcomes are
 * deterministic.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class DetectorApiTest {

  static final Path EXAMPLES = Path.of("../complex-event-detector/examples");
  static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");
  static final ObjectMapper MAPPER = new ObjectMapper();
  static final WebhookReceiver webhook = new WebhookReceiver();
  static final String VERBATIM =
      "select data.meter as meter, avg(data.value) as avgValue from R#length(3) "
          + "group by data.meter having avg(data.value) > 50";

  @LocalServerPort int port;
  @Autowired ChannelRegistry channels;
  Api api;

  @BeforeEach
  void setUp() throws Exception {
    api = new Api(port);
    for (JsonNode type : MAPPER.readTree(Files.readString(EXAMPLES.resolve("types.json")))) {
      assertThat(api.postJson("/api/v1/event-types", type.toString()).status()).isIn(201, 409);
    }
  }

  @AfterEach
  void deleteDetectors() {
    for (JsonNode d : api.get("/api/v1/detectors").json()) {
      api.delete("/api/v1/detectors/" + d.get("name").asText());
    }
  }

  @AfterAll
  static void stopWebhook() {
    webhook.close();
  }

  @Test
  void doneWhenVerbatimEplEmitsOneEventPerReadingAndTheDocumentedExampleExactlyOne()
      throws Exception {
    String path = "/" + unique("overload");
    subscribe("com.example.meter.overload", path);

    // The issue's EPL verbatim: #length(3) with "having avg > 50" outputs a row on every reading.
    Response created =
        api.postJson(
            "/api/v1/detectors",
            """
        {"name": "overload", "inputs": {"R": "com.example.meter.reading"}, "epl": "%s",
         "emits": "com.example.meter.overload"}"""
                .formatted(VERBATIM));
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    assertThat(created.json().get("state").asText()).isEqualTo("deployed");
    String meter = unique("m");
    for (int value : new int[] {60, 70, 80}) {
      assertThat(api.publish(reading(unique("r"), meter, value)).status()).isEqualTo(202);
    }
    assertThat(settle("overload", 3, path))
        .extracting(c -> data(c).get("avgValue").asDouble())
        .containsExactlyInAnyOrder(60.0, 65.0, 70.0);
    assertThat(api.delete("/api/v1/detectors/overload").status()).isEqualTo(204);

    // The documented example (#length_batch(3)): exactly one overload event with avgValue 70.
    String path2 = "/" + unique("overload");
    subscribe("com.example.meter.overload", path2);
    assertThat(
            api.postJson("/api/v1/detectors", Files.readString(EXAMPLES.resolve("overload.json")))
                .status())
        .isEqualTo(201);
    String meter2 = unique("m");
    List<String> ids = List.of(unique("r"), unique("r"), unique("r"));
    int[] values = {60, 70, 80};
    for (int i = 0; i < 3; i++) {
      assertThat(api.publish(reading(ids.get(i), meter2, values[i])).status()).isEqualTo(202);
    }
    List<WebhookReceiver.Call> calls = settle("overload", 3, path2);
    assertThat(calls).hasSize(1);
    JsonNode event = MAPPER.readTree(calls.get(0).body());
    assertThat(event.get("type").asText()).isEqualTo("com.example.meter.overload");
    assertThat(event.get("source").asText()).isEqualTo("/detectors/overload");
    assertThat(event.get("data").get("meter").asText()).isEqualTo(meter2);
    assertThat(event.get("data").get("avgValue").asDouble()).isEqualTo(70.0);
    assertThat(event.get("hopcount").asInt()).isEqualTo(1);
    assertThat(event.get("causedby").asText()).isEqualTo(ids.get(2));
  }

  @Test
  void eplErrorsAre400ProblemsAndDuplicatesAre409() {
    Response bad =
        api.postJson(
            "/api/v1/detectors",
            """
        {"name": "broken", "inputs": {"R": "com.example.meter.reading"},
         "epl": "select data.meter as meter, avg(data.value) frm R", "emits": "com.example.x"}""");
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.contentType()).startsWith("application/problem+json");
    assertThat(bad.json().get("field").asText()).isEqualTo("epl");
    assertThat(bad.json().get("detail").asText())
        .contains("Incorrect syntax near 'R'")
        .contains("line 1 column 48");
    assertThat(api.get("/api/v1/detectors/broken").status()).isEqualTo(404);

    Response unknown =
        api.postJson(
            "/api/v1/detectors",
            """
        {"name": "unknown", "inputs": {"R": "com.example.meter.reading"}, "epl": "select data.volts from R",
         "emits": "com.example.x"}""");
    assertThat(unknown.status()).isEqualTo(400);
    assertThat(unknown.json().get("detail").asText()).contains("data.volts");

    assertThat(
            api.postJson(
                    "/api/v1/detectors",
                    """
        {"name": "twice", "inputs": {"R": "com.example.meter.reading"}, "epl": "select * from R",
         "emits": "com.example.x", "clock": "sundial"}""")
                .json()
                .get("field")
                .asText())
        .isEqualTo("clock");
    String ok =
        """
        {"name": "twice", "inputs": {"R": "com.example.meter.reading"}, "epl": "select * from R",
         "emits": "com.example.x"}""";
    assertThat(api.postJson("/api/v1/detectors", ok).status()).isEqualTo(201);
    Response dup = api.postJson("/api/v1/detectors", ok);
    assertThat(dup.status()).isEqualTo(409);
    assertThat(dup.contentType()).startsWith("application/problem+json");
    assertThat(api.get("/api/v1/detectors").json().findValuesAsText("name"))
        .containsExactly("twice");
    assertThat(api.delete("/api/v1/detectors/nope").status()).isEqualTo(404);
  }

  @ParameterizedTest(name = "{0} over {1}")
  @CsvSource({
    "threshold-time-window.json, rest", "threshold-time-window.json, jms",
    "sequence.json, rest", "sequence.json, jms",
    "absence.json, rest", "absence.json, jms",
    "smart-grid-substation-overload.json, rest", "smart-grid-substation-overload.json, jms"
  })
  void exampleEndToEnd(String file, String transport) throws Exception {
    JsonNode detector = MAPPER.readTree(Files.readString(EXAMPLES.resolve(file)));
    String name = detector.get("name").asText();
    String p = transport + "-" + unique("") + "-";
    String path = "/" + unique(name);
    subscribe(detector.get("emits").asText(), path);
    assertThat(api.postJson("/api/v1/detectors", detector.toString()).status()).isEqualTo(201);

    List<CloudEvent> events;
    List<String> expected;
    switch (file) {
      case "threshold-time-window.json" -> {
        events =
            List.of(
                ev(
                    p + "t-1",
                    "com.example.meter.reading",
                    "/meters/m1",
                    0,
                    "{\"meter\":\"m1\",\"value\":90}"),
                ev(
                    p + "t-2",
                    "com.example.meter.reading",
                    "/meters/m1",
                    2,
                    "{\"meter\":\"m1\",\"value\":120}"),
                ev(
                    p + "t-3",
                    "com.example.meter.reading",
                    "/meters/m2",
                    5,
                    "{\"meter\":\"m2\",\"value\":100}"),
                ev(
                    p + "t-4",
                    "com.example.meter.reading",
                    "/meters/m1",
                    15,
                    "{\"meter\":\"m1\",\"value\":80}"));
        expected =
            List.of(
                "{\"meter\":\"m1\",\"avgValue\":105.0,\"readings\":2}",
                "{\"meter\":\"m1\",\"avgValue\":120.0,\"readings\":1}");
      }
      case "sequence.json" -> {
        events =
            List.of(
                ev(p + "o-1", "com.example.door.opened", "/doors", 0, "{\"door\":\"d1\"}"),
                ev(p + "o-2", "com.example.door.opened", "/doors", 1, "{\"door\":\"d2\"}"),
                ev(p + "a-1", "com.example.alarm.triggered", "/alarms", 4, "{\"door\":\"d1\"}"),
                ev(p + "a-2", "com.example.alarm.triggered", "/alarms", 20, "{\"door\":\"d2\"}"));
        expected =
            List.of(
                "{\"door\":\"d1\",\"openedId\":\""
                    + p
                    + "o-1\",\"alarmId\":\""
                    + p
                    + "a-1\",\"delayMillis\":4000}");
      }
      case "absence.json" -> {
        events =
            List.of(
                ev(p + "h-1", "com.example.heartbeat", "/devices/s1", 0, null),
                ev(p + "h-2", "com.example.heartbeat", "/devices/s2", 10, null),
                ev(p + "h-3", "com.example.heartbeat", "/devices/s2", 35, null));
        expected =
            List.of(
                "{\"source\":\"/devices/s1\",\"lastHeartbeatId\":\""
                    + p
                    + "h-1\",\"lastHeartbeatTime\":"
                    + T0.toEpochMilli()
                    + "}");
      }
      default -> {
        String[][] r = {
          {"m1", "S1", "100"},
          {"m2", "S1", "100"},
          {"m4", "S2", "50"},
          {"m3", "S1", "80"},
          {"m1", "S1", "60"}
        };
        events = new java.util.ArrayList<>();
        for (int i = 0; i < r.length; i++) {
          events.add(
              ev(
                  p + "g-" + i,
                  "com.example.grid.reading",
                  "/meters/" + r[i][0],
                  60L * i,
                  "{\"meter\":\"%s\",\"substation\":\"%s\",\"kw\":%s}"
                      .formatted(r[i][0], r[i][1], r[i][2])));
        }
        expected = List.of("{\"substation\":\"S1\",\"loadKw\":280.0,\"meters\":3}");
      }
    }
    if (transport.equals("rest")) {
      for (CloudEvent e : events) {
        assertThat(api.publish(structured(e)).status()).isEqualTo(202);
      }
    } else {
      publishOverJms(name, events);
    }
    List<WebhookReceiver.Call> calls = settle(name, events.size(), path);
    assertThat(calls)
        .extracting(c -> data(c).toString())
        .containsExactlyInAnyOrderElementsOf(expected);
    assertThat(calls)
        .allSatisfy(
            c ->
                assertThat(MAPPER.readTree(c.body()).get("source").asText())
                    .isEqualTo("/detectors/" + name));
  }

  /**
   * Sends on jms:queue:cep.in with the app's own JMS adapter, one event at a time so event time
   * stays ordered.
   */
  private void publishOverJms(String detector, List<CloudEvent> events) throws Exception {
    assertThat(api.postJson("/api/v1/channels", "{\"uri\": \"jms:queue:cep.in\"}").status())
        .isIn(201, 409);
    ChannelUri in = ChannelUri.parse("jms:queue:cep.in");
    for (int i = 0; i < events.size(); i++) {
      channels.outbound(in).send(events.get(i)).get(10, TimeUnit.SECONDS);
      long expected = i + 1;
      await().atMost(Duration.ofSeconds(20)).until(() -> eventsIn(detector) == expected);
    }
  }

  /**
   * Waits until the detector has taken {@code in} events and the webhook has every row it output,
   * then a little longer so that a wrong extra delivery would show.
   */
  private List<WebhookReceiver.Call> settle(String detector, long in, String path)
      throws InterruptedException {
    await().atMost(Duration.ofSeconds(20)).until(() -> eventsIn(detector) == in);
    long rows =
        api.get("/api/v1/detectors/" + detector).json().get("stats").get("rowsOut").asLong();
    await().atMost(Duration.ofSeconds(20)).until(() -> webhook.calls(path).size() >= rows);
    // Nothing else arrives for a while, so that a wrong extra delivery would show.
    int seen = webhook.calls(path).size();
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(5))
        .until(() -> webhook.calls(path).size() == seen);
    return webhook.calls(path);
  }

  private long eventsIn(String detector) {
    return api.get("/api/v1/detectors/" + detector).json().get("stats").get("eventsIn").asLong();
  }

  private void subscribe(String type, String path) {
    assertThat(
            api.postJson(
                    "/api/v1/subscriptions",
                    """
        {"name": "cep %s", "pattern": {"type": ["%s"]}, "target": "%s"}"""
                        .formatted(path, type, webhook.url(path)))
                .status())
        .isEqualTo(201);
  }

  private static CloudEvent ev(String id, String type, String source, long second, String data) {
    CloudEventBuilder b =
        CloudEventBuilder.v1()
            .withId(id)
            .withType(type)
            .withSource(URI.create(source))
            .withTime(T0.plusSeconds(second).atOffset(ZoneOffset.UTC));
    if (data != null) {
      b.withDataContentType("application/json").withData(data.getBytes(StandardCharsets.UTF_8));
    }
    return b.build();
  }

  private static String structured(CloudEvent e) throws Exception {
    ObjectNode o =
        MAPPER
            .createObjectNode()
            .put("specversion", "1.0")
            .put("id", e.getId())
            .put("source", e.getSource().toString())
            .put("type", e.getType())
            .put("time", e.getTime().toString());
    if (e.getData() != null) {
      o.put("datacontenttype", "application/json");
      o.set("data", MAPPER.readTree(e.getData().toBytes()));
    }
    return o.toString();
  }

  private static String reading(String id, String meter, int value) {
    return """
        {"specversion": "1.0", "id": "%s", "source": "/meters/%s", "type": "com.example.meter.reading",
         "datacontenttype": "application/json", "data": {"meter": "%s", "value": %d}}"""
        .formatted(id, meter, meter, value);
  }

  private static JsonNode data(WebhookReceiver.Call c) {
    try {
      return MAPPER.readTree(c.body()).get("data");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static String unique(String prefix) {
    return prefix + UUID.randomUUID().toString().substring(0, 8);
  }
}
