package io.activityservice.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.jackson.JsonCloudEventData;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** The one structured-JSON encoding (the SDK's JsonFormat) and the parse-once helpers. */
class CloudEventJsonTest {

  /** An event whose time has zero seconds and whose data is not JSON (nor text). */
  static CloudEvent binaryEvent() {
    return CloudEventBuilder.v1()
        .withId("b-1")
        .withSource(URI.create("/t"))
        .withType("t")
        .withTime(OffsetDateTime.of(2026, 1, 2, 3, 4, 0, 0, ZoneOffset.UTC))
        .withData("application/octet-stream", new byte[] {(byte) 0xff, 0, 1, (byte) 0xfe, 'x'})
        .build();
  }

  private static String utf8(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  @Test
  void timeKeepsItsZeroSecondsAsRfc3339() {
    String json = utf8(CloudEventJson.encode(binaryEvent()));
    assertThat(json).contains("\"time\":\"2026-01-02T03:04:00Z\"");
  }

  @Test
  void nonJsonDataTravelsAsDataBase64AndRoundTrips() {
    CloudEvent sent = binaryEvent();
    JsonNode tree = CloudEventJson.readTree(CloudEventJson.encode(sent));
    assertThat(tree.has("data")).isFalse();
    assertThat(tree.get("data_base64").asText()).isEqualTo("/wAB/ng=");
    CloudEvent back = CloudEventJson.decode(CloudEventJson.encode(sent));
    assertThat(back.getData().toBytes()).isEqualTo(sent.getData().toBytes());
    assertThat(back.getTime()).isEqualTo(sent.getTime());
    assertThat(back).isEqualTo(sent);
  }

  @Test
  void aStructuredTreeBecomesTheEventWithoutChangingTheTree() {
    byte[] body =
        "{\"specversion\":\"1.0\",\"id\":\"1\",\"source\":\"/s\",\"type\":\"t\",\"data\":{\"v\":12345678901234567.891}}"
            .getBytes(StandardCharsets.UTF_8);
    JsonNode tree = CloudEventJson.readTree(body);
    String before = tree.toString();
    assertThat(CloudEventJson.isStructured(tree)).isTrue();
    CloudEvent event = CloudEventJson.fromTree(tree);
    assertThat(tree.toString()).isEqualTo(before);
    assertThat(event.getId()).isEqualTo("1");
    assertThat(event.getData()).isInstanceOf(JsonCloudEventData.class);
    assertThat(((JsonCloudEventData) event.getData()).getNode().get("v").decimalValue())
        .as("numbers are kept exactly, not rounded through double")
        .hasToString("12345678901234567.891");
    assertThat(utf8(CloudEventJson.encode(event))).contains("\"v\":12345678901234567.891");
  }

  @Test
  void treesThatAreNoCloudEventAreRefused() {
    assertThatThrownBy(
            () ->
                CloudEventJson.fromTree(
                    CloudEventJson.readTree("[1]".getBytes(StandardCharsets.UTF_8))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                CloudEventJson.fromTree(
                    CloudEventJson.readTree(
                        "{\"specversion\":\"1.0\",\"id\":\"1\"}".getBytes(StandardCharsets.UTF_8))))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void plainTextIsNoJsonWithoutRunningTheParser() {
    assertThat(CloudEventJson.readTree("order 42".getBytes(StandardCharsets.UTF_8))).isNull();
    assertThat(CloudEventJson.readTree("  {\"a\":1}".getBytes(StandardCharsets.UTF_8))).isNotNull();
    assertThat(CloudEventJson.readTree("-1".getBytes(StandardCharsets.UTF_8))).isNotNull();
    assertThat(CloudEventJson.readTree("{\"a\":1} x".getBytes(StandardCharsets.UTF_8))).isNull();
  }

  @Test
  void aPlainJsonBodyKeepsItsBytesAndItsTree() {
    byte[] body = "{ \"order\" : 1 }".getBytes(StandardCharsets.UTF_8);
    CloudEvent e =
        PlainMessages.wrap(
            ChannelUri.parse("sqs:q"), new InboundSettings("t", null, null), "m", body, null, null);
    assertThat(e.getData()).isInstanceOf(JsonBytesData.class);
    assertThat(e.getData().toBytes()).as("relayed byte for byte").isSameAs(body);
    assertThat(((JsonBytesData) e.getData()).getNode().get("order").asInt()).isEqualTo(1);
    assertThat(utf8(CloudEventJson.encode(e))).contains("\"data\":{\"order\":1}");
  }
}
