package io.activityservice.events.routing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.JsonBytesData;
import io.activityservice.channel.PlainMessages;
import io.activityservice.events.ingest.CloudEventParser;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.jackson.JsonCloudEventData;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The JSON view patterns and schemas see is the event as the one structured-JSON encoder (the SDK's
 * JsonFormat) writes it, and JSON data that arrived parsed is not parsed again.
 */
class RoutableEventTest {

  private static final OffsetDateTime ZERO_SECONDS = OffsetDateTime.of(2026, 1, 2, 3, 4, 0, 0, ZoneOffset.UTC);

  private static CloudEventBuilder base(String id) {
    return CloudEventBuilder.v1().withId(id).withSource(URI.create("/s")).withType("com.example.t")
        .withTime(ZERO_SECONDS).withSubject("sub").withExtension("n", 7).withExtension("flag", true)
        .withExtension("label", "x");
  }

  private static JsonNode encoded(CloudEvent e) {
    return CloudEventJson.readTree(CloudEventJson.encode(e));
  }

  @Test
  void theViewIsWhatTheStructuredEncoderWrites() {
    List<CloudEvent> events = List.of(
        base("json").withData("application/json", "{\"v\":1.5,\"a\":[1,2]}".getBytes(StandardCharsets.UTF_8)).build(),
        base("text").withData("text/plain", "héllo".getBytes(StandardCharsets.UTF_8)).build(),
        base("binary").withData("application/octet-stream", new byte[] {(byte) 0xff, 0, 1}).build(),
        base("none").build(),
        base("plusjson").withData("application/problem+json", "[true]".getBytes(StandardCharsets.UTF_8)).build());
    for (CloudEvent e : events) {
      assertThat(RoutableEvent.of(e).json()).as(e.getId()).isEqualTo(encoded(e));
    }
  }

  /** Every JSON media type is JSON to patterns and schemas, also those the SDK's JsonFormat writes as base64. */
  @Test
  void vendorJsonDataIsJsonInTheView() {
    RoutableEvent r = RoutableEvent.of(base("vendor")
        .withData("application/vnd.acme+json", "[true]".getBytes(StandardCharsets.UTF_8)).build());
    assertThat(r.dataIsJson()).isTrue();
    assertThat(r.json().get("data").get(0).asBoolean()).isTrue();
  }

  @Test
  void timeKeepsZeroSecondsAndBinaryDataIsBase64() {
    RoutableEvent r = RoutableEvent.of(base("b").withData("application/octet-stream", new byte[] {1, 2, 3}).build());
    assertThat(r.json().get("time").asText()).isEqualTo("2026-01-02T03:04:00Z");
    assertThat(r.json().has("data")).isFalse();
    assertThat(r.json().get("data_base64").asText()).isEqualTo("AQID");
    assertThat(r.dataIsJson()).isFalse();
    assertThat(r.data()).isNull();
  }

  @Test
  void jsonDataThatArrivedParsedIsUsedAsParsed() {
    byte[] body = "{\"order\":1}".getBytes(StandardCharsets.UTF_8);
    CloudEvent plain = PlainMessages.wrap(ChannelUri.parse("sqs:q"), new InboundSettings("t", null, null), "m-1",
        body, null, ZERO_SECONDS);
    RoutableEvent r = RoutableEvent.of(plain);
    assertThat(r.data()).isSameAs(((JsonBytesData) plain.getData()).getNode());
    assertThat(r.json().get("data")).isSameAs(r.data());

    CloudEvent structured = CloudEventParser.structured(("{\"specversion\":\"1.0\",\"id\":\"1\",\"source\":\"/s\","
        + "\"type\":\"t\",\"time\":\"2026-01-02T03:04:00Z\",\"data\":{\"v\":2}}").getBytes(StandardCharsets.UTF_8));
    RoutableEvent s = RoutableEvent.of(structured);
    assertThat(s.data()).isSameAs(((JsonCloudEventData) structured.getData()).getNode());
    assertThat(s.json().get("time").asText()).isEqualTo("2026-01-02T03:04:00Z");
    assertThat(s.json()).isEqualTo(encoded(structured));
  }
}
