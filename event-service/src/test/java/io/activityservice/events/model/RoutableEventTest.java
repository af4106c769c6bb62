package io.activityservice.events.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.JsonBytesData;
import io.activityservice.channel.PlainMessages;
import io.activityservice.events.ingest.CloudEventParser;
import io.activityservice.events.problem.InvalidInputException;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.jackson.JsonCloudEventData;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The JSON view patterns and schemas see is the event as the one structured-JSON encoder (the SDK's
 * JsonFormat) writes it, and JSON data that arrived parsed is not parsed again.
 */
class RoutableEventTest {

  private static final OffsetDateTime ZERO_SECONDS =
      OffsetDateTime.of(2026, 1, 2, 3, 4, 0, 0, ZoneOffset.UTC);

  private static CloudEventBuilder base(String id) {
    return CloudEventBuilder.v1()
        .withId(id)
        .withSource(URI.create("/s"))
        .withType("com.example.t")
        .withTime(ZERO_SECONDS)
        .withSubject("sub")
        .withExtension("n", 7)
        .withExtension("flag", true)
        .withExtension("label", "x");
  }

  private static JsonNode encoded(CloudEvent e) {
    return CloudEventJson.readTree(CloudEventJson.encode(e));
  }

  @Test
  void theViewIsWhatTheStructuredEncoderWrites() {
    List<CloudEvent> events =
        List.of(
            base("json")
                .withData(
                    "application/json", "{\"v\":1.5,\"a\":[1,2]}".getBytes(StandardCharsets.UTF_8))
                .build(),
            base("text").withData("text/plain", "héllo".getBytes(StandardCharsets.UTF_8)).build(),
            base("binary")
                .withData("application/octet-stream", new byte[] {(byte) 0xff, 0, 1})
                .build(),
            base("none").build(),
            base("plusjson")
                .withData("application/problem+json", "[true]".getBytes(StandardCharsets.UTF_8))
                .build());
    for (CloudEvent e : events) {
      assertThat(RoutableEvent.of(e).json()).as(e.getId()).isEqualTo(encoded(e));
    }
  }

  /**
   * Every JSON media type is JSON to patterns and schemas, also those the SDK's JsonFormat writes
   * as base64.
   */
  @Test
  void vendorJsonDataIsJsonInTheView() {
    RoutableEvent r =
        RoutableEvent.of(
            base("vendor")
                .withData("application/vnd.acme+json", "[true]".getBytes(StandardCharsets.UTF_8))
                .build());
    assertThat(r.dataIsJson()).isTrue();
    assertThat(r.json().get("data").get(0).asBoolean()).isTrue();
  }

  @Test
  void timeKeepsZeroSecondsAndBinaryDataIsBase64() {
    RoutableEvent r =
        RoutableEvent.of(
            base("b").withData("application/octet-stream", new byte[] {1, 2, 3}).build());
    assertThat(r.json().get("time").asText()).isEqualTo("2026-01-02T03:04:00Z");
    assertThat(r.json().has("data")).isFalse();
    assertThat(r.json().get("data_base64").asText()).isEqualTo("AQID");
    assertThat(r.dataIsJson()).isFalse();
    assertThat(r.data()).isNull();
  }

  @Test
  void jsonDataThatArrivedParsedIsUsedAsParsed() {
    byte[] body = "{\"order\":1}".getBytes(StandardCharsets.UTF_8);
    CloudEvent plain =
        PlainMessages.wrap(
            ChannelUri.parse("sqs:q"),
            new InboundSettings("t", null, null),
            "m-1",
            body,
            null,
            ZERO_SECONDS);
    RoutableEvent r = RoutableEvent.of(plain);
    assertThat(r.data()).isSameAs(((JsonBytesData) plain.getData()).getNode());
    assertThat(r.json().get("data")).isSameAs(r.data());

    CloudEvent structured =
        CloudEventParser.structured(
            ("{\"specversion\":\"1.0\",\"id\":\"1\",\"source\":\"/s\","
                    + "\"type\":\"t\",\"time\":\"2026-01-02T03:04:00Z\",\"data\":{\"v\":2}}")
                .getBytes(StandardCharsets.UTF_8));
    RoutableEvent s = RoutableEvent.of(structured);
    assertThat(s.data()).isSameAs(((JsonCloudEventData) structured.getData()).getNode());
    assertThat(s.json().get("time").asText()).isEqualTo("2026-01-02T03:04:00Z");
    assertThat(s.json()).isEqualTo(encoded(structured));
  }

  /**
   * Data whose content type says JSON but which is not is refused when the event is created, parsed
   * or not.
   */
  @Test
  void jsonDataThatIsNotJsonIsRefusedWhetherParsedNowOrLater() {
    CloudEvent bad =
        base("bad")
            .withData("application/json", "{\"v\": ".getBytes(StandardCharsets.UTF_8))
            .build();
    for (boolean parseNow : new boolean[] {false, true}) {
      assertThatThrownBy(() -> RoutableEvent.of(bad, parseNow))
          .as("parse now: " + parseNow)
          .isInstanceOf(InvalidInputException.class)
          .satisfies(
              e ->
                  assertThat(((InvalidInputException) e).errors().get(0).field())
                      .isEqualTo("data"));
    }
  }

  /** Parsed later or now, the data and the view are the same. */
  @Test
  void lazyAndEagerEventsReadTheSame() {
    CloudEvent e =
        base("lazy")
            .withData(
                "application/json", "{\"v\":1.50,\"a\":[1,2]}".getBytes(StandardCharsets.UTF_8))
            .build();
    RoutableEvent lazy = RoutableEvent.of(e, false);
    RoutableEvent eager = RoutableEvent.of(e, true);
    assertThat(lazy.data()).isEqualTo(eager.data());
    assertThat(lazy.data()).as("parsed once").isSameAs(lazy.data());
    assertThat(lazy.json()).isEqualTo(eager.json()).isEqualTo(encoded(e));
    assertThat(lazy.json().get("data")).isSameAs(lazy.data());
  }

  /**
   * A view with some members is the whole view restricted to them, data included only when asked
   * for.
   */
  @Test
  void aViewHoldsJustTheMembersAsked() {
    CloudEvent e =
        base("view")
            .withData("application/json", "{\"v\":2}".getBytes(StandardCharsets.UTF_8))
            .build();
    ObjectNode whole = RoutableEvent.of(e).json();
    for (Set<String> members :
        List.of(
            Set.of("type"),
            Set.of("type", "source", "n", "flag"),
            Set.of("time", "label"),
            Set.of("data", "subject"),
            Set.of("data_base64", "missing"))) {
      ObjectNode view = RoutableEvent.of(e).view(members);
      ObjectNode expected = whole.deepCopy();
      expected.retain(members);
      assertThat(view).as(members.toString()).isEqualTo(expected);
    }
    RoutableEvent binary =
        RoutableEvent.of(base("b").withData("application/octet-stream", new byte[] {1, 2}).build());
    assertThat(binary.view(Set.of("data_base64")).get("data_base64").asText()).isEqualTo("AQI=");
  }

  /**
   * Event Ruler reads members as quoted strings (unescaped) or literals: the flat values say the
   * same.
   */
  @Test
  void rulerValuesAreAsRulerReadsTheView() {
    RoutableEvent r = RoutableEvent.of(base("rv").build());
    assertThat(r.rulerValue("type")).isEqualTo("\"com.example.t\"");
    assertThat(r.rulerValue("n")).isEqualTo("7");
    assertThat(r.rulerValue("flag")).isEqualTo("true");
    assertThat(r.rulerValue("time")).isEqualTo("\"2026-01-02T03:04:00Z\"");
    assertThat(r.rulerValue("nothing")).isNull();
  }

  @Test
  void theTimeIsFormattedOnce() {
    RoutableEvent r = RoutableEvent.of(base("t").build());
    assertThat(r.time()).isEqualTo("2026-01-02T03:04:00Z").isSameAs(r.time());
    assertThat(r.json().get("time").asText()).isSameAs(r.time());
  }
}
