package io.activityservice.channel.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.DeliveryFormat;
import io.activityservice.channel.InboundSettings;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaCloudEventCodecTest {

  private static final OffsetDateTime TIME =
      OffsetDateTime.of(2026, 1, 2, 3, 4, 5, 0, ZoneOffset.UTC);

  private static CloudEventBuilder event() {
    return CloudEventBuilder.v1()
        .withId("e-1")
        .withSource(URI.create("/orders"))
        .withType("com.example.order.created")
        .withSubject("order-42")
        .withTime(TIME)
        .withDataSchema(URI.create("https://example.com/order.json"))
        .withExtension("sequence", 7)
        .withDataContentType("application/json")
        .withData("{\"n\":1}".getBytes(StandardCharsets.UTF_8));
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  @Test
  void dataFormatIsTheValueWithOnlyItsContentType() {
    CloudEvent sent = event().build();
    KafkaCloudEventCodec.Encoded record =
        KafkaCloudEventCodec.wireFormat(DeliveryFormat.DATA).encode(sent);

    assertThat(record.headers().keySet()).containsExactly(KafkaCloudEventCodec.CONTENT_TYPE);
    assertThat(record.value()).isEqualTo(sent.getData().toBytes());
  }

  @Test
  void structuredFormatRoundTripsThroughTheDecoder() {
    CloudEvent sent = event().build();
    KafkaCloudEventCodec.Encoded record =
        KafkaCloudEventCodec.wireFormat(DeliveryFormat.STRUCTURED).encode(sent);

    assertThat(record.headers().keySet()).containsExactly(KafkaCloudEventCodec.CONTENT_TYPE);
    CloudEvent got =
        KafkaCloudEventCodec.decode(
            record.headers(), record.value(), "t-0-1", "t", null, InboundSettings.strict());
    assertThat(got.getId()).isEqualTo(sent.getId());
    assertThat(got.getSubject()).isEqualTo("order-42");
    assertThat(text(got.getData().toBytes())).isEqualTo("{\"n\":1}");
  }

  @Test
  void encodesBinaryModeHeadersAndValue() {
    KafkaCloudEventCodec.Encoded record = KafkaCloudEventCodec.encode(event().build());

    Map<String, byte[]> h = record.headers();
    assertThat(text(h.get("ce_specversion"))).isEqualTo("1.0");
    assertThat(text(h.get("ce_id"))).isEqualTo("e-1");
    assertThat(text(h.get("ce_source"))).isEqualTo("/orders");
    assertThat(text(h.get("ce_type"))).isEqualTo("com.example.order.created");
    assertThat(text(h.get("ce_subject"))).isEqualTo("order-42");
    assertThat(text(h.get("ce_time"))).isEqualTo("2026-01-02T03:04:05Z");
    assertThat(text(h.get("ce_dataschema"))).isEqualTo("https://example.com/order.json");
    assertThat(text(h.get("ce_sequence"))).isEqualTo("7");
    assertThat(text(h.get("content-type"))).isEqualTo("application/json");
    assertThat(h).doesNotContainKey("ce_datacontenttype");
    assertThat(text(record.value())).isEqualTo("{\"n\":1}");
  }

  @Test
  void timeKeepsItsZeroSecondsAsRfc3339() {
    CloudEvent sent =
        CloudEventBuilder.v1()
            .withId("1")
            .withSource(URI.create("/s"))
            .withType("t")
            .withTime(java.time.OffsetDateTime.parse("2026-01-02T03:04:00Z"))
            .build();
    KafkaCloudEventCodec.Encoded record = KafkaCloudEventCodec.encode(sent);
    assertThat(new String(record.headers().get("ce_time"), StandardCharsets.UTF_8))
        .isEqualTo("2026-01-02T03:04:00Z");
  }

  @Test
  void eventWithoutDataHasAnEmptyValueAndNoContentType() {
    CloudEvent bare =
        CloudEventBuilder.v1().withId("1").withSource(URI.create("/s")).withType("t").build();
    KafkaCloudEventCodec.Encoded record = KafkaCloudEventCodec.encode(bare);
    assertThat(record.value()).isEmpty();
    assertThat(record.headers()).doesNotContainKey("content-type");
  }

  @Test
  void binaryRoundTripKeepsAttributesExtensionsAndData() {
    CloudEvent sent = event().build();
    KafkaCloudEventCodec.Encoded record = KafkaCloudEventCodec.encode(sent);

    CloudEvent got =
        KafkaCloudEventCodec.decode(
            record.headers(), record.value(), "t-0-1", "t", 1L, InboundSettings.strict());

    assertThat(got.getId()).isEqualTo("e-1");
    assertThat(got.getSource()).isEqualTo(sent.getSource());
    assertThat(got.getType()).isEqualTo(sent.getType());
    assertThat(got.getSubject()).isEqualTo("order-42");
    assertThat(got.getTime()).isEqualTo(TIME);
    assertThat(got.getDataSchema()).isEqualTo(sent.getDataSchema());
    assertThat(got.getDataContentType()).isEqualTo("application/json");
    assertThat(got.getExtension("sequence")).hasToString("7");
    assertThat(text(got.getData().toBytes())).isEqualTo("{\"n\":1}");
  }

  @Test
  void acceptsStringHeaderValuesAndIgnoresOtherHeaders() {
    Map<String, Object> headers = new HashMap<>();
    headers.put("ce_specversion", "1.0");
    headers.put("ce_id", "s-1");
    headers.put("ce_source", "/s");
    headers.put("ce_type", "t");
    headers.put("Content-Type", "text/plain");
    headers.put("kafka_offset", 5L);
    headers.put("traceparent", "00-abc");

    CloudEvent got =
        KafkaCloudEventCodec.decode(
            headers,
            "hi".getBytes(StandardCharsets.UTF_8),
            "t-0-5",
            "t",
            null,
            InboundSettings.strict());

    assertThat(got.getId()).isEqualTo("s-1");
    assertThat(got.getDataContentType()).isEqualTo("text/plain");
    assertThat(got.getExtensionNames()).isEmpty();
    assertThat(text(got.getData().toBytes())).isEqualTo("hi");
  }

  @Test
  void decodesStructuredMode() {
    CloudEvent sent = event().build();
    Map<String, Object> headers =
        Map.of(
            "content-type",
            "application/cloudevents+json; charset=UTF-8".getBytes(StandardCharsets.UTF_8));

    CloudEvent got =
        KafkaCloudEventCodec.decode(
            headers, CloudEventJson.encode(sent), "t-0-1", "t", null, InboundSettings.strict());

    assertThat(got.getId()).isEqualTo("e-1");
    assertThat(got.getSubject()).isEqualTo("order-42");
    assertThat(text(got.getData().toBytes())).isEqualToIgnoringWhitespace("{\"n\":1}");
  }

  @Test
  void wrapsPlainRecordsWithTheDefaults() {
    InboundSettings settings =
        new InboundSettings("com.example.legacy", URI.create("/legacy"), Map.of());
    Map<String, Object> headers =
        Map.of("content-type", "text/plain".getBytes(StandardCharsets.UTF_8));

    CloudEvent got =
        KafkaCloudEventCodec.decode(
            headers,
            "raw".getBytes(StandardCharsets.UTF_8),
            "orders-2-17",
            "orders",
            TIME.toInstant().toEpochMilli(),
            settings);

    assertThat(got.getId()).isEqualTo("orders-2-17");
    assertThat(got.getType()).isEqualTo("com.example.legacy");
    assertThat(got.getSource()).isEqualTo(URI.create("/legacy"));
    assertThat(got.getTime()).isEqualTo(TIME);
    assertThat(got.getDataContentType()).isEqualTo("text/plain");
    assertThat(text(got.getData().toBytes())).isEqualTo("raw");

    InboundSettings noSource = new InboundSettings("com.example.legacy", null, Map.of());
    assertThat(
            KafkaCloudEventCodec.decode(
                    Map.of(), new byte[0], "orders-0-1", "orders", null, noSource)
                .getSource())
        .isEqualTo(URI.create("kafka:orders"));
  }

  @Test
  void rejectsPlainRecordsWithoutDefaultsAndInvalidEvents() {
    assertThatThrownBy(
            () ->
                KafkaCloudEventCodec.decode(
                    Map.of(),
                    "x".getBytes(StandardCharsets.UTF_8),
                    "t-0-1",
                    "t",
                    null,
                    InboundSettings.strict()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("defaultType");

    Map<String, Object> missingId =
        Map.of("ce_specversion", "1.0", "ce_source", "/s", "ce_type", "t");
    assertThatThrownBy(
            () ->
                KafkaCloudEventCodec.decode(
                    missingId, new byte[0], "t-0-1", "t", null, InboundSettings.strict()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("binary-mode");

    Map<String, Object> structured = Map.of("content-type", CloudEventJson.CONTENT_TYPE);
    assertThatThrownBy(
            () ->
                KafkaCloudEventCodec.decode(
                    structured,
                    "{}".getBytes(StandardCharsets.UTF_8),
                    "t-0-1",
                    "t",
                    null,
                    InboundSettings.strict()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
