package io.activityservice.detector;

import static io.activityservice.detector.Harness.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.activityservice.events.json.Json;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.problem.ConflictException;
import io.activityservice.events.problem.InvalidInputException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Esper detector engine on the real ingest/router path (H2, no Spring). */
class DetectorEngineTest {

  static final String READING = "com.example.meter.reading";
  static final String VERBATIM =
      "select data.meter as meter, avg(data.value) as avgValue from R#length(3) "
          + "group by data.meter having avg(data.value) > 50";

  Harness h;

  @BeforeEach
  void start() throws Exception {
    h = new Harness(8);
    h.registerExampleTypes();
  }

  @AfterEach
  void stop() {
    h.close();
  }

  private DetectorDefinition create(
      String name, Map<String, String> inputs, String epl, String emits, ClockMode c) {
    return h.service.create(name, inputs, epl, emits, c);
  }

  private void reading(String id, String meter, double value, int second) {
    h.publish(
        id,
        READING,
        "/meters/" + meter,
        T0.plusSeconds(second),
        "{\"meter\": \"" + meter + "\", \"value\": " + value + "}");
  }

  /** Waits until the detector has processed {@code in} events and all its rows have been routed. */
  private List<RoutableEvent> settled(String detector, long in, String emits) {
    await().atMost(Duration.ofSeconds(20)).until(() -> h.engine.stats(detector).eventsIn() == in);
    long out = h.engine.stats(detector).rowsOut();
    await().atMost(Duration.ofSeconds(20)).until(() -> h.routedOf(emits).size() >= out);
    return h.routedOf(emits);
  }

  @Test
  void syntaxErrorIsInvalidEplWithPositionAndNothingIsDeployedOrStored() {
    assertThatThrownBy(
            () ->
                create(
                    "bad",
                    Map.of("R", READING),
                    "select data.meter as meter, avg(data.value) frm R",
                    "x.y",
                    ClockMode.PROCESSING_TIME))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> {
              assertThat(e.errors().get(0).field()).isEqualTo("epl");
              assertThat(e.errors().get(0).reason())
                  .contains("Incorrect syntax near 'R'")
                  .contains("line 1 column 48");
            });
    assertThat(h.engine.accepts(READING)).isFalse();
    assertThat(h.service.list()).isEmpty();
  }

  @Test
  void semanticErrorNamesTheProperty() {
    assertThatThrownBy(
            () -> create("bad", Map.of("R", READING), "select data.nope from R", "x.y", null))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> assertThat(e.errors().get(0).reason()).contains("data.nope").contains("line 1"));
    assertThat(h.service.list()).isEmpty();
  }

  @Test
  void invalidFieldsAndDuplicateNames() {
    assertThatThrownBy(() -> create("has space", Map.of("1R", READING), "", null, null))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e ->
                assertThat(e.errors())
                    .extracting(InvalidInputException.FieldError::field)
                    .contains("name", "inputs.1R", "epl", "emits"));
    create("dup", Map.of("R", READING), "select * from R", "x.y", null);
    assertThatThrownBy(() -> create("dup", Map.of("R", READING), "select * from R", "x.y", null))
        .isInstanceOf(ConflictException.class);
    assertThatThrownBy(() -> ClockMode.parse("wall")).isInstanceOf(InvalidInputException.class);
  }

  @Test
  void schemaTypesDataPropertiesNumericallyIncludingNestedObjectsAndArrays() {
    h.registry.create(
        "com.example.typed",
        null,
        null,
        Json.parse(
            """
        {"type": "object", "properties": {
          "n": {"type": "number"}, "i": {"type": "integer"}, "s": {"type": "string"}, "b": {"type": "boolean"},
          "o": {"type": "object", "properties": {"x": {"type": ["number", "null"]}}},
          "a": {"type": "array", "items": {"type": "number"}}}}""",
            "schema"));
    create(
        "typed",
        Map.of("T", "com.example.typed"),
        "select data.n * 2 as dbl, data.i + 1 as inc, data.s || '!' as str, not data.b as neg, "
            + "data.o.x > 1.5 as big, data.a[1] as secondItem, extensions('tenant') as tenant, hopcount, time "
            + "from T(data.n > 1)#lastevent",
        "com.example.typed.out",
        ClockMode.EVENT_TIME);
    h.ingest
        .publish(
            io.cloudevents.core.builder.CloudEventBuilder.v1()
                .withId("t1")
                .withType("com.example.typed")
                .withSource(java.net.URI.create("/t"))
                .withTime(T0.atOffset(java.time.ZoneOffset.UTC))
                .withExtension("tenant", "acme")
                .withDataContentType("application/json")
                .withData(
                    "{\"n\": 2.5, \"i\": 41, \"s\": \"hi\", \"b\": false, \"o\": {\"x\": 2}, \"a\": [1, 2.5]}"
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .build())
        .join();
    List<RoutableEvent> out = settled("typed", 1, "com.example.typed.out");
    assertThat(out).hasSize(1);
    assertThat(Harness.data(out.get(0)))
        .isEqualTo(
            "{\"dbl\":5.0,\"inc\":42,\"str\":\"hi!\",\"neg\":true,"
                + "\"big\":true,\"secondItem\":2.5,\"tenant\":\"acme\",\"hopcount\":0,\"time\":"
                + T0.toEpochMilli()
                + "}");
    assertThat(out.get(0).event().getExtension("hopcount")).isEqualTo(1);
    assertThat(out.get(0).event().getExtension("causedby")).isEqualTo("t1");
    assertThat(out.get(0).event().getSource().toString()).isEqualTo("/detectors/typed");
    assertThat(out.get(0).event().getTime().toInstant()).isEqualTo(T0);
  }

  @Test
  void withoutSchemaDataIsAMapReadWithKeyedOrDynamicAccess() {
    h.registry.create("com.example.untyped", null, null, null);
    assertThatThrownBy(
            () ->
                create(
                    "u0",
                    Map.of("U", "com.example.untyped"),
                    "select data.value from U",
                    "x.y",
                    null))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e ->
                assertThat(e.errors().get(0).reason())
                    .contains("mapped property and requires keyed access"));
    create(
        "u1",
        Map.of("U", "com.example.untyped"),
        "select data('meter') as meter, data.value? as raw, avg(cast(data('value'), double)) as avgValue from U",
        "com.example.untyped.out",
        ClockMode.EVENT_TIME);
    h.publish("u-1", "com.example.untyped", "/u", T0, "{\"meter\": \"m1\", \"value\": 10}");
    h.publish("u-2", "com.example.untyped", "/u", T0, "{\"meter\": \"m1\", \"value\": 20.5}");
    List<RoutableEvent> out = settled("u1", 2, "com.example.untyped.out");
    assertThat(out)
        .extracting(Harness::data)
        .containsExactly(
            "{\"meter\":\"m1\",\"raw\":10,\"avgValue\":10.0}",
            "{\"meter\":\"m1\",\"raw\":20.5,\"avgValue\":15.25}");
  }

  @Test
  void verbatimIssueEplEmitsARowPerReadingWhileTheBatchExampleEmitsOne() throws Exception {
    create("verbatim", Map.of("R", READING), VERBATIM, "com.example.meter.overload.verbatim", null);
    h.createExample("overload.json");
    reading("r-60", "m1", 60, 0);
    reading("r-70", "m1", 70, 1);
    reading("r-80", "m1", 80, 2);
    assertThat(settled("verbatim", 3, "com.example.meter.overload.verbatim"))
        .extracting(Harness::data)
        .containsExactly(
            "{\"meter\":\"m1\",\"avgValue\":60.0}",
            "{\"meter\":\"m1\",\"avgValue\":65.0}",
            "{\"meter\":\"m1\",\"avgValue\":70.0}");
    List<RoutableEvent> overload = settled("overload", 3, "com.example.meter.overload");
    assertThat(overload)
        .extracting(Harness::data)
        .containsExactly("{\"meter\":\"m1\",\"avgValue\":70.0}");
    assertThat(overload.get(0).event().getExtension("causedby")).isEqualTo("r-80");
  }

  @Test
  void thresholdOverATimeWindowExample() throws Exception {
    h.createExample("threshold-time-window.json");
    reading("t-1", "m1", 90, 0);
    reading("t-2", "m1", 120, 2); // avg 105 > 100
    reading("t-3", "m2", 100, 5); // m2 avg 100: not above
    reading("t-4", "m1", 80, 15); // 90 and 120 left the 10 s window: avg 80
    // Esper re-evaluates a group when events leave its time window: at 10 s the 90 expires, leaving
    // 120 alone.
    List<RoutableEvent> out = settled("high-average", 4, "com.example.meter.high-average");
    assertThat(out)
        .extracting(Harness::data)
        .containsExactly(
            "{\"meter\":\"m1\",\"avgValue\":105.0,\"readings\":2}",
            "{\"meter\":\"m1\",\"avgValue\":120.0,\"readings\":1}");
    assertThat(out)
        .extracting(e -> e.event().getTime().toInstant())
        .containsExactly(T0.plusSeconds(2), T0.plusSeconds(10));
    assertThat(out)
        .extracting(e -> e.event().getExtension("causedby"))
        .containsExactly("t-1,t-2", "t-2");
  }

  @Test
  void sequenceExample() throws Exception {
    h.createExample("sequence.json");
    h.publish("o-1", "com.example.door.opened", "/doors", T0, "{\"door\": \"d1\"}");
    h.publish("o-2", "com.example.door.opened", "/doors", T0.plusSeconds(1), "{\"door\": \"d2\"}");
    h.publish(
        "a-1", "com.example.alarm.triggered", "/alarms", T0.plusSeconds(4), "{\"door\": \"d1\"}");
    h.publish(
        "a-2", "com.example.alarm.triggered", "/alarms", T0.plusSeconds(20), "{\"door\": \"d2\"}");
    List<RoutableEvent> out = settled("door-then-alarm", 4, "com.example.door.intrusion");
    assertThat(out)
        .extracting(Harness::data)
        .containsExactly(
            "{\"door\":\"d1\",\"openedId\":\"o-1\",\"alarmId\":\"a-1\",\"delayMillis\":4000}");
    assertThat(out.get(0).event().getExtension("causedby")).isEqualTo("o-1,a-1");
  }

  @Test
  void absenceExample() throws Exception {
    h.createExample("absence.json");
    h.publish("h-1", "com.example.heartbeat", "/devices/s1", T0, null);
    h.publish("h-2", "com.example.heartbeat", "/devices/s2", T0.plusSeconds(10), null);
    h.publish("h-3", "com.example.heartbeat", "/devices/s2", T0.plusSeconds(35), null);
    List<RoutableEvent> out = settled("heartbeat-missing", 3, "com.example.heartbeat.missing");
    assertThat(out)
        .extracting(Harness::data)
        .containsExactly(
            "{\"source\":\"/devices/s1\",\"lastHeartbeatId\":"
                + "\"h-1\",\"lastHeartbeatTime\":"
                + T0.toEpochMilli()
                + "}");
    assertThat(out.get(0).event().getExtension("causedby")).isEqualTo("h-1");
    assertThat(out.get(0).event().getTime().toInstant()).isEqualTo(T0.plusSeconds(30));
  }

  @Test
  void smartGridSubstationOverloadExample() throws Exception {
    h.createExample("smart-grid-substation-overload.json");
    String type = "com.example.grid.reading";
    String[][] readings = {
      {"g-1", "m1", "S1", "100"},
      {"g-2", "m2", "S1", "100"},
      {"g-3", "m4", "S2", "50"},
      {"g-4", "m3", "S1", "80"},
      {"g-5", "m1", "S1", "60"}
    };
    for (int i = 0; i < readings.length; i++) {
      String[] r = readings[i];
      h.publish(
          r[0],
          type,
          "/meters/" + r[1],
          T0.plusSeconds(60L * i),
          "{\"meter\": \"%s\", \"substation\": \"%s\", \"kw\": %s}".formatted(r[1], r[2], r[3]));
    }
    List<RoutableEvent> out =
        settled("substation-overload", 5, "com.example.grid.substation-overload");
    assertThat(out)
        .extracting(Harness::data)
        .containsExactly("{\"substation\":\"S1\",\"loadKw\":280.0,\"meters\":3}");
    assertThat(out.get(0).event().getExtension("causedby")).isEqualTo("g-1,g-2,g-4");
  }

  @Test
  void aLoopIsDeadLetteredOnceTheHopCountExceedsTheLimit() {
    h.close();
    h = new Harness(3);
    create(
        "echo",
        Map.of("X", "com.example.echo"),
        "select id as previous from X",
        "com.example.echo",
        null);
    h.publish("e-0", "com.example.echo", "/start", T0, null);
    await().atMost(Duration.ofSeconds(20)).until(() -> !h.memory.sent.isEmpty());
    List<RoutableEvent> echoes = h.routedOf("com.example.echo");
    assertThat(echoes).hasSize(4); // the original (hop 0) and derived hops 1, 2, 3
    assertThat(echoes)
        .extracting(e -> e.event().getExtension("hopcount"))
        .containsExactly(null, 3 - 2, 2, 3);
    assertThat(h.memory.sent).hasSize(1);
    assertThat(h.memory.sent.get(0).getExtension("hopcount")).isEqualTo(4);
    assertThat((String) h.memory.sent.get(0).getExtension("deadletterreason"))
        .contains("hop count 4 exceeds activity.detectors.max-hop-count=3")
        .contains("echo");
    assertThat(h.memory.sent.get(0).getExtension("deadlettertarget")).isEqualTo("detector:echo");
    assertThat(h.meters.get("activity.detectors.dead.lettered").counter().count()).isEqualTo(1);
  }

  @Test
  void onlyConsumedTypesEnterTheEngine() {
    create(
        "only-readings",
        Map.of("R", READING),
        "select * from R(data.value > 1000)",
        "x.y",
        ClockMode.EVENT_TIME);
    assertThat(h.engine.accepts(READING)).isTrue();
    assertThat(h.engine.accepts("com.example.other")).isFalse();
    h.publish("o-1", "com.example.other", "/o", T0, "{\"value\": 1}");
    h.publish("o-2", "com.example.other", "/o", T0, "{\"value\": 2}");
    reading("r-1", "m1", 1, 0);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> h.engine.stats("only-readings").eventsIn() == 1);
    assertThat(
            h.meters
                .get("activity.detectors.events.in")
                .tag("detector", "only-readings")
                .counter()
                .count())
        .isEqualTo(1);
    assertThat(
            h.meters
                .get("activity.detectors.processing")
                .tag("detector", "only-readings")
                .timer()
                .count())
        .isEqualTo(1);
    h.service.delete("only-readings");
    assertThat(h.engine.accepts(READING)).isFalse();
    assertThat(
            h.meters
                .find("activity.detectors.events.in")
                .tag("detector", "only-readings")
                .counter())
        .isNull();
  }

  @Test
  void processingTimeDetectorsFireOnTheWallClock() {
    create(
        "soon",
        Map.of("H", "com.example.heartbeat"),
        "select h.id as id from pattern [every h=H -> timer:interval(200 msec)]",
        "com.example.soon",
        null);
    h.publish("p-1", "com.example.heartbeat", "/d", java.time.Instant.now(), null);
    await().atMost(Duration.ofSeconds(10)).until(() -> h.routedOf("com.example.soon").size() == 1);
    RoutableEvent e = h.routedOf("com.example.soon").get(0);
    assertThat(e.event().getExtension("causedby")).isNull(); // fired by the clock, no event column
    assertThat(e.event().getExtension("hopcount")).isEqualTo(1);
  }

  @Test
  void derivedEventsViolatingTheEmittedTypesSchemaAreDeadLettered() {
    h.registry.create(
        "com.example.strict",
        null,
        null,
        Json.parse("{\"type\": \"object\", \"required\": [\"must\"]}", "schema"));
    create(
        "sloppy",
        Map.of("R", READING),
        "select data.meter as meter from R",
        "com.example.strict",
        null);
    reading("s-1", "m1", 1, 0);
    await().atMost(Duration.ofSeconds(10)).until(() -> h.memory.sent.size() == 1);
    assertThat((String) h.memory.sent.get(0).getExtension("deadletterreason"))
        .contains("invalid for type 'com.example.strict'")
        .contains("must");
  }

  @Test
  void storedDetectorsAreRedeployedOnStart() throws Exception {
    String db = "mem:restart-" + System.nanoTime();
    try (Harness first = new Harness(db, 8, 100)) {
      first.registerExampleTypes();
      first.service.create(
          "kept", Map.of("R", READING), VERBATIM, "com.example.kept", ClockMode.EVENT_TIME);
    }
    try (Harness second = new Harness(db, 8, 100)) {
      second.service.loadAll();
      assertThat(second.service.get("kept").state()).isEqualTo("deployed");
      assertThat(second.service.get("kept").definition().clock()).isEqualTo(ClockMode.EVENT_TIME);
      second.publish("k-1", READING, "/m", T0, "{\"meter\": \"m1\", \"value\": 99}");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> second.routedOf("com.example.kept").size() == 1);
    }
  }
}
