package io.activityservice.events.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.activityservice.events.json.Json;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.InvalidInputException.FieldError;
import io.cloudevents.CloudEvent;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CloudEventParserTest {

  private static final String VALID =
      """
      {"specversion": "1.0", "id": "e-1", "source": "/meters/7", "type": "com.example.meter.reading",
       "subject": "north", "time": "2026-11-21T18:00:00.5+01:00", "datacontenttype": "application/json",
       "traceparent": "00-abc-def-01", "data": {"meter": "m1", "value": 3.5}}""";

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static List<String> fields(Runnable r) {
    InvalidInputException e = catchThrowableOfType(InvalidInputException.class, r::run);
    assertThat(e).as("expected InvalidInputException").isNotNull();
    return e.errors().stream().map(FieldError::field).toList();
  }

  /** VALID with one attribute replaced ({@code null} removes it). */
  private static String with(String attribute, Object value) {
    Map<String, Object> m =
        new HashMap<>(Json.MAPPER.convertValue(Json.parse(VALID, "x"), Map.class));
    if (value == null) {
      m.remove(attribute);
    } else {
      m.put(attribute, value);
    }
    return Json.write(Json.tree(m));
  }

  @Test
  void structuredEventKeepsAttributesExtensionsAndData() {
    CloudEvent e = CloudEventParser.structured(bytes(VALID));

    assertThat(e.getId()).isEqualTo("e-1");
    assertThat(e.getSource()).isEqualTo(URI.create("/meters/7"));
    assertThat(e.getType()).isEqualTo("com.example.meter.reading");
    assertThat(e.getSubject()).isEqualTo("north");
    assertThat(e.getTime()).isEqualTo(OffsetDateTime.parse("2026-11-21T18:00:00.5+01:00"));
    assertThat(e.getExtension("traceparent")).isEqualTo("00-abc-def-01");
    assertThat(Json.parse(new String(e.getData().toBytes(), StandardCharsets.UTF_8), "data"))
        .isEqualTo(Json.parse("{\"meter\": \"m1\", \"value\": 3.5}", "data"));
  }

  @Test
  void structuredErrorsNameTheAttribute() {
    assertThat(fields(() -> CloudEventParser.structured(bytes(with("id", null)))))
        .containsExactly("id");
    assertThat(fields(() -> CloudEventParser.structured(bytes(with("id", "")))))
        .containsExactly("id");
    assertThat(fields(() -> CloudEventParser.structured(bytes(with("id", 17)))))
        .containsExactly("id");
    assertThat(fields(() -> CloudEventParser.structured(bytes(with("specversion", "0.3")))))
        .containsExactly("specversion");
    assertThat(fields(() -> CloudEventParser.structured(bytes(with("time", "yesterday")))))
        .containsExactly("time");
    assertThat(fields(() -> CloudEventParser.structured(bytes(with("source", "not a uri")))))
        .containsExactly("source");
  }

  @Test
  void structuredReportsEveryMissingAttribute() {
    String noIdNoType = "{\"specversion\": \"1.0\", \"source\": \"/s\"}";
    assertThat(fields(() -> CloudEventParser.structured(bytes(noIdNoType))))
        .containsExactly("id", "type");
  }

  @Test
  void bodyThatIsNotAnEventNamesBody() {
    assertThat(fields(() -> CloudEventParser.structured(bytes("{not json"))))
        .containsExactly("body");
    assertThat(fields(() -> CloudEventParser.structured(bytes("[]")))).containsExactly("body");
    assertThat(fields(() -> CloudEventParser.structured(new byte[0]))).containsExactly("body");
    assertThat(fields(() -> CloudEventParser.structured(bytes(VALID + " {}"))))
        .containsExactly("body");
  }

  @Test
  void batchParsesEveryEvent() {
    List<CloudEvent> events =
        CloudEventParser.batch(bytes("[" + VALID + "," + with("id", "e-2") + "]"));
    assertThat(events).extracting(CloudEvent::getId).containsExactly("e-1", "e-2");
  }

  @Test
  void batchErrorsArePrefixedWithTheIndexAndAllReported() {
    String batch =
        "["
            + VALID
            + ","
            + with("type", null)
            + ","
            + with("id", null)
            + ","
            + with("time", "x")
            + "]";
    assertThat(fields(() -> CloudEventParser.batch(bytes(batch))))
        .containsExactly("[1].type", "[2].id", "[3].time");
    assertThat(fields(() -> CloudEventParser.batch(bytes("[" + VALID + ", 5]"))))
        .containsExactly("[1]");
    assertThat(fields(() -> CloudEventParser.batch(bytes(VALID)))).containsExactly("body");
  }

  private static Map<String, String> headers() {
    Map<String, String> h = new HashMap<>();
    h.put("ce-specversion", "1.0");
    h.put("ce-id", "b-1");
    h.put("ce-source", "/meters/8");
    h.put("ce-type", "com.example.meter.reading");
    return h;
  }

  @Test
  void binaryEventTakesAttributesAndExtensionsFromHeaders() {
    Map<String, String> h = headers();
    h.put("ce-subject", "south");
    h.put("ce-time", "2026-11-21T18:00:00Z");
    h.put("ce-dataschema", "https://schemas.example.com/reading");
    h.put("ce-traceparent", "00-abc-def-01");
    h.put("ce-partitionkey", "m1");
    h.put("content-length", "27");

    CloudEvent e =
        CloudEventParser.binary(h, "application/json", bytes("{\"meter\":\"m1\",\"value\":1}"));

    assertThat(e.getId()).isEqualTo("b-1");
    assertThat(e.getSource()).isEqualTo(URI.create("/meters/8"));
    assertThat(e.getSubject()).isEqualTo("south");
    assertThat(e.getTime()).isEqualTo(OffsetDateTime.parse("2026-11-21T18:00:00Z"));
    assertThat(e.getDataSchema()).isEqualTo(URI.create("https://schemas.example.com/reading"));
    assertThat(e.getDataContentType()).isEqualTo("application/json");
    assertThat(e.getExtensionNames()).containsExactlyInAnyOrder("traceparent", "partitionkey");
    assertThat(e.getExtension("traceparent")).isEqualTo("00-abc-def-01");
    assertThat(e.getExtension("partitionkey")).isEqualTo("m1");
    assertThat(new String(e.getData().toBytes(), StandardCharsets.UTF_8))
        .isEqualTo("{\"meter\":\"m1\",\"value\":1}");
  }

  @Test
  void binaryErrorsNameTheHeader() {
    Map<String, String> noSource = headers();
    noSource.remove("ce-source");
    assertThat(fields(() -> CloudEventParser.binary(noSource, null, null)))
        .containsExactly("ce-source");

    Map<String, String> badSource = headers();
    badSource.put("ce-source", "has spaces in it");
    assertThat(fields(() -> CloudEventParser.binary(badSource, null, null)))
        .containsExactly("ce-source");

    Map<String, String> badVersion = headers();
    badVersion.put("ce-specversion", "0.3");
    assertThat(fields(() -> CloudEventParser.binary(badVersion, null, null)))
        .containsExactly("ce-specversion");

    Map<String, String> badTime = headers();
    badTime.put("ce-time", "noon");
    assertThat(fields(() -> CloudEventParser.binary(badTime, null, null)))
        .containsExactly("ce-time");

    Map<String, String> badExtension = headers();
    badExtension.put("ce-bad_name", "x");
    assertThat(fields(() -> CloudEventParser.binary(badExtension, null, null)))
        .containsExactly("ce-bad_name");

    Map<String, String> empty = new HashMap<>();
    assertThat(fields(() -> CloudEventParser.binary(empty, null, null)))
        .containsExactly("ce-specversion", "ce-id", "ce-source", "ce-type");
  }

  /** The HTTP binding's §3.1.3.2: values are percent-decoded; a stray {@code %} is kept. */
  @Test
  void binaryHeaderValuesArePercentDecoded() {
    Map<String, String> h = new HashMap<>();
    h.put("ce-specversion", "1.0");
    h.put("ce-id", "e-1");
    h.put("ce-source", "/meters/north");
    h.put("ce-type", "com.example.meter.reading");
    h.put("ce-subject", "Z%C3%A4hler%20%227%22%20at%20100%25");
    h.put("ce-region", "eu%20west");
    h.put("ce-note", "50% off");

    CloudEvent e = CloudEventParser.binary(h, null, null);

    assertThat(e.getSubject()).isEqualTo("Zähler \"7\" at 100%");
    assertThat(e.getExtension("region")).isEqualTo("eu west");
    assertThat(e.getExtension("note")).isEqualTo("50% off");
    assertThat(CloudEventParser.percentDecode("%C3")).as("not UTF-8: kept").isEqualTo("%C3");
  }
}
