package io.activityservice.events.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.events.json.Json;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.support.JsonArbitraries;
import io.cloudevents.CloudEvent;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * Properties of the CloudEvent parser (HTTP ingest): whatever arrives, the parser returns a valid
 * event or throws {@link InvalidInputException} naming at least one field; no other exception
 * escapes (which would be a 500).
 */
class CloudEventParserPropertiesTest {

  private static final List<String> ATTRIBUTES =
      List.of(
          "specversion",
          "id",
          "source",
          "type",
          "subject",
          "time",
          "datacontenttype",
          "dataschema",
          "data",
          "data_base64",
          "traceparent",
          "Ext",
          "x-y",
          "");

  @Property(tries = 1000)
  void arbitraryBytesInStructuredMode(@ForAll byte[] body) {
    outcome(() -> List.of(CloudEventParser.structured(body)));
  }

  @Property(tries = 1000)
  void arbitraryTextInBatchMode(@ForAll("jsonishText") String body) {
    outcome(() -> CloudEventParser.batch(body.getBytes(StandardCharsets.UTF_8)));
  }

  @Property(tries = 2000)
  void eventLikeObjectsInStructuredMode(@ForAll("eventLike") Map<String, Object> event) {
    byte[] body = json(event);
    outcome(() -> List.of(CloudEventParser.structured(body)));
  }

  @Property(tries = 1000)
  void eventLikeObjectsInBatchMode(@ForAll("batches") List<Object> batch) {
    byte[] body = json(batch);
    outcome(() -> CloudEventParser.batch(body));
  }

  @Property(tries = 2000)
  void arbitraryHeadersInBinaryMode(
      @ForAll("ceHeaders") Map<String, String> headers,
      @ForAll("contentTypes") String contentType,
      @ForAll byte[] body) {
    outcome(() -> List.of(CloudEventParser.binary(headers, contentType, body)));
  }

  static byte[] json(Object value) {
    try {
      return Json.MAPPER.writeValueAsBytes(value);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A valid result has the required attributes; a refusal names fields; nothing else may happen.
   */
  private static void outcome(Supplier<List<CloudEvent>> parse) {
    try {
      List<CloudEvent> events = parse.get();
      for (CloudEvent e : events) {
        assertThat(e.getId()).isNotBlank();
        assertThat(e.getSource()).isNotNull();
        assertThat(e.getType()).isNotBlank();
        assertThat(e.getSpecVersion().toString()).isEqualTo("1.0");
      }
      Statistics.label("outcome").collect("valid");
    } catch (InvalidInputException e) {
      assertThat(e.errors()).isNotEmpty();
      assertThat(e.errors()).allSatisfy(fe -> assertThat(fe.field()).isNotBlank());
      Statistics.label("outcome").collect("invalid");
    }
  }

  @Provide
  Arbitrary<String> jsonishText() {
    Arbitrary<String> tokens =
        Arbitraries.of(
            "[",
            "]",
            "{",
            "}",
            ",",
            ":",
            "\"",
            "\"specversion\"",
            "\"1.0\"",
            "\"id\"",
            "\"source\"",
            "\"type\"",
            "\"x\"",
            "null",
            "true",
            "1",
            "-0.5e9",
            " ",
            "\\u0000",
            "\"/a b\"");
    return Arbitraries.oneOf(
        Arbitraries.strings().ofMaxLength(200),
        tokens.list().ofMaxSize(40).map(l -> String.join("", l)));
  }

  @Provide
  Arbitrary<Map<String, Object>> eventLike() {
    Arbitrary<String> names =
        Arbitraries.oneOf(Arbitraries.of(ATTRIBUTES), Arbitraries.strings().ofMaxLength(25));
    return Combinators.combine(
            Arbitraries.maps(names, JsonArbitraries.jsonValue(2)).ofMaxSize(12),
            Arbitraries.of(true, false))
        .as(
            (generated, complete) -> {
              Map<String, Object> m = new LinkedHashMap<>(generated);
              if (complete) {
                // Half of the events get every required attribute, so the deeper checks (URI, time,
                // extensions,
                // data) are reached too.
                m.putIfAbsent("specversion", "1.0");
                m.putIfAbsent("id", "e-1");
                m.putIfAbsent("source", "/s");
                m.putIfAbsent("type", "t");
              }
              return m;
            });
  }

  @Provide
  Arbitrary<List<Object>> batches() {
    return Arbitraries.oneOf(eventLike().map(m -> (Object) m), JsonArbitraries.jsonValue(1))
        .list()
        .ofMaxSize(5);
  }

  @Provide
  Arbitrary<Map<String, String>> ceHeaders() {
    Arbitrary<String> names =
        Arbitraries.oneOf(
            Arbitraries.of(ATTRIBUTES).map(a -> "ce-" + a.toLowerCase()),
            Arbitraries.strings().ofMaxLength(22).map(s -> "ce-" + s));
    Arbitrary<String> values =
        Arbitraries.oneOf(
            Arbitraries.strings().ofMaxLength(40),
            Arbitraries.of(
                "1.0",
                "0.3",
                "/a",
                "http://x/y",
                "urn:a:b",
                "2026-11-21T18:00:00Z",
                "2026-13-01T00:00:00",
                " ",
                "%",
                "a b",
                "::"));
    return Combinators.combine(
            Arbitraries.maps(names, values).ofMaxSize(10), Arbitraries.of(true, false))
        .as(
            (m, complete) -> {
              Map<String, String> h = new LinkedHashMap<>(m);
              if (complete) {
                h.putIfAbsent("ce-specversion", "1.0");
                h.putIfAbsent("ce-id", "e-1");
                h.putIfAbsent("ce-source", "/s");
                h.putIfAbsent("ce-type", "t");
              }
              return h;
            });
  }

  @Provide
  Arbitrary<String> contentTypes() {
    return Arbitraries.oneOf(
            Arbitraries.of(
                "application/json",
                "text/plain; charset=utf-8",
                "application/xml",
                "multipart/form-data",
                ""),
            Arbitraries.strings().ofMaxLength(30))
        .injectNull(0.1);
  }
}
