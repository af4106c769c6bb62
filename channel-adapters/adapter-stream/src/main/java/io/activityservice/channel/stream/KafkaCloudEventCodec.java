package io.activityservice.channel.stream;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.CloudEventAttributes;
import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.DeliveryFormat;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.PlainMessages;
import io.activityservice.channel.WireFormat;
import io.cloudevents.CloudEvent;
import io.cloudevents.SpecVersion;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.types.Time;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The CloudEvents <a
 * href="https://github.com/cloudevents/spec/blob/v1.0.2/cloudevents/bindings/kafka-protocol-binding.md">
 * Kafka protocol binding</a> on the binder's {@code Message<byte[]>} model.
 *
 * <p>Outbound is binary mode: every attribute and extension becomes a {@code ce_<name>} header
 * (UTF-8 text), {@code datacontenttype} becomes the {@code content-type} header and the value is
 * the data. Inbound accepts binary mode, structured mode ({@code content-type:
 * application/cloudevents+json}) and plain records, which are wrapped by the shared {@link
 * PlainMessages} rule (id = {@code <topic>-<partition>-<offset>}, time = record timestamp, content
 * type = the {@code content-type} header).
 *
 * <p>Header values are raw {@code byte[]} so the binder's header mapper writes them unchanged (it
 * would JSON-quote {@code String}s); inbound values may be {@code byte[]} or {@code String}.
 */
public final class KafkaCloudEventCodec {

  /** Prefix of CloudEvents attribute headers. */
  public static final String PREFIX = "ce_";

  /** Header carrying {@code datacontenttype} (binary mode) or the structured format. */
  public static final String CONTENT_TYPE = "content-type";

  private KafkaCloudEventCodec() {}

  /**
   * A record to produce, without its key (the key is the send's partition key, see {@link
   * io.activityservice.channel.OutboundEvent}). Shared by every send of one event: do not modify.
   *
   * @param headers Kafka headers, names as in the binding, values UTF-8
   * @param value the event data, empty when the event has none
   */
  public record Encoded(Map<String, byte[]> headers, byte[] value) {}

  /** The binary-mode wire format, for {@link io.activityservice.channel.OutboundEvent#encoded}. */
  public static final WireFormat<Encoded> BINARY = KafkaCloudEventCodec::encode;

  /**
   * Structured mode: the value is the whole event as JSON, {@code content-type:
   * application/cloudevents+json}, no {@code ce_*} headers.
   */
  public static final WireFormat<Encoded> STRUCTURED =
      event ->
          new Encoded(
              Map.of(CONTENT_TYPE, utf8(CloudEventJson.CONTENT_TYPE)),
              CloudEventJson.encode(event));

  /**
   * The data alone ({@link DeliveryFormat#DATA}): the value, with only the {@code content-type}
   * header (when the event has a content type) and no {@code ce_*} headers.
   */
  public static final WireFormat<Encoded> DATA =
      event ->
          new Encoded(
              event.getDataContentType() == null
                  ? Map.of()
                  : Map.of(CONTENT_TYPE, utf8(event.getDataContentType())),
              event.getData() == null ? new byte[0] : event.getData().toBytes());

  /** The wire format of a delivery format ({@code null}: binary mode, the default). */
  public static WireFormat<Encoded> wireFormat(DeliveryFormat format) {
    if (format == null) {
      return BINARY;
    }
    return switch (format) {
      case STRUCTURED -> STRUCTURED;
      case BINARY -> BINARY;
      case DATA -> DATA;
    };
  }

  /** Encodes an event in binary mode. */
  public static Encoded encode(CloudEvent event) {
    Map<String, byte[]> headers = new LinkedHashMap<>();
    CloudEventAttributes.asText(event).forEach((name, value) -> put(headers, name, value));
    if (event.getDataContentType() != null) {
      headers.put(CONTENT_TYPE, utf8(event.getDataContentType()));
    }
    byte[] value = event.getData() == null ? new byte[0] : event.getData().toBytes();
    return new Encoded(java.util.Collections.unmodifiableMap(headers), value);
  }

  /**
   * Decodes a consumed record.
   *
   * @param headers the record's headers (values {@code byte[]} or {@code String}); other entries
   *     are ignored
   * @param value the record value, may be {@code null} or empty
   * @param origin topic-partition-offset, the id given to a plain record
   * @param topic the topic of the inbound channel ({@code kafka:<topic>} is a plain record's source
   *     when the settings have no default source)
   * @param timestamp record timestamp in epoch millis, the time given to a plain record, or {@code
   *     null}
   * @throws IllegalArgumentException if the record is not a valid CloudEvent and the settings have
   *     no default type to wrap it with
   */
  public static CloudEvent decode(
      Map<String, ?> headers,
      byte[] value,
      String origin,
      String topic,
      Long timestamp,
      InboundSettings settings) {
    String contentType = header(headers, CONTENT_TYPE);
    if (contentType != null
        && contentType.toLowerCase(Locale.ROOT).startsWith(CloudEventJson.CONTENT_TYPE)) {
      return CloudEventJson.decode(value == null ? new byte[0] : value);
    }
    String specVersion = header(headers, PREFIX + "specversion");
    if (specVersion != null) {
      return decodeBinary(headers, value, specVersion, contentType);
    }
    OffsetDateTime time =
        timestamp != null && timestamp >= 0
            ? OffsetDateTime.ofInstant(Instant.ofEpochMilli(timestamp), ZoneOffset.UTC)
            : null;
    return PlainMessages.wrap(
        new ChannelUri(StreamChannelAdapter.SCHEME, topic),
        settings,
        origin,
        value,
        contentType,
        time);
  }

  private static CloudEvent decodeBinary(
      Map<String, ?> headers, byte[] value, String specVersion, String contentType) {
    try {
      CloudEventBuilder builder = CloudEventBuilder.fromSpecVersion(SpecVersion.parse(specVersion));
      for (Map.Entry<String, ?> entry : headers.entrySet()) {
        String key = entry.getKey();
        if (!key.startsWith(PREFIX) || key.length() == PREFIX.length()) {
          continue;
        }
        String name = key.substring(PREFIX.length()).toLowerCase(Locale.ROOT);
        String text = text(entry.getValue());
        if (text == null || name.equals("specversion")) {
          continue;
        }
        switch (name) {
          case "time" -> builder.withTime(Time.parseTime(text));
          case "source" -> builder.withSource(URI.create(text));
          case "dataschema" -> builder.withDataSchema(URI.create(text));
          case "datacontenttype" -> builder.withDataContentType(text);
          default -> builder.withContextAttribute(name, text);
        }
      }
      if (contentType != null) {
        builder.withDataContentType(contentType);
      }
      if (value != null && (value.length > 0 || contentType != null)) {
        builder.withData(value);
      }
      return builder.build();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("invalid binary-mode CloudEvent: " + e.getMessage(), e);
    }
  }

  private static void put(Map<String, byte[]> headers, String attribute, String value) {
    headers.put(PREFIX + attribute, utf8(value));
  }

  private static String header(Map<String, ?> headers, String name) {
    Object exact = headers.get(name);
    if (exact != null) {
      return text(exact);
    }
    for (Map.Entry<String, ?> entry : headers.entrySet()) {
      if (entry.getKey().equalsIgnoreCase(name)) {
        return text(entry.getValue());
      }
    }
    return null;
  }

  private static String text(Object value) {
    if (value == null) {
      return null;
    }
    return value instanceof byte[] bytes
        ? new String(bytes, StandardCharsets.UTF_8)
        : value.toString();
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
