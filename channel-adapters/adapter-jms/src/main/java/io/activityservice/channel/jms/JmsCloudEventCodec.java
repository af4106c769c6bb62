package io.activityservice.channel.jms;

import com.fasterxml.jackson.databind.JsonNode;
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
import jakarta.jms.BytesMessage;
import jakarta.jms.JMSException;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.ObjectMessage;
import jakarta.jms.Session;
import jakarta.jms.StreamMessage;
import jakarta.jms.TextMessage;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Maps CloudEvents to JMS messages and back, following the JMS-compatible naming of the CloudEvents
 * AMQP binding (the io.cloudevents SDK has no JMS binding module).
 *
 * <p><b>Binary mode</b> (what the adapter sends): each context attribute {@code a} travels as the
 * string property {@code cloudEvents_a} ({@code cloudEvents_id}, {@code cloudEvents_specversion},
 * {@code cloudEvents_type}, {@code cloudEvents_source}, {@code cloudEvents_subject}, {@code
 * cloudEvents_time} as RFC 3339, {@code cloudEvents_dataschema}); extensions likewise, integer and
 * boolean extensions as typed JMS properties. {@code datacontenttype} travels as the {@value
 * #CONTENT_TYPE} property (the name Spring's JMS header mapper uses). The data is the body: a
 * {@link TextMessage} for textual media types (text/*, JSON, XML), else a {@link BytesMessage}; an
 * event without data is a body-less {@link Message}.
 *
 * <p><b>Decoding</b> also accepts structured-mode bodies ({@code application/cloudevents+json}
 * content type, or any JSON object body with a {@code specversion} member) and wraps plain messages
 * by the shared rule of {@link PlainMessages} (id = JMS message id, time = JMS timestamp, content
 * type = the {@value #CONTENT_TYPE} property if set).
 *
 * <p>Stateless and thread-safe.
 */
public final class JmsCloudEventCodec {

  /** Prefix of the JMS properties that carry CloudEvents attributes. */
  public static final String PREFIX = "cloudEvents_";

  /** JMS property carrying {@code datacontenttype}. */
  public static final String CONTENT_TYPE = "contentType";

  /** Other content-type property names accepted on decoding, in order of preference. */
  private static final List<String> CONTENT_TYPE_ALIASES =
      List.of(
          CONTENT_TYPE, "content_type", "Content-Type", "content-type", PREFIX + "datacontenttype");

  private static final Set<String> ATTRIBUTES =
      Set.of(
          "specversion",
          "id",
          "source",
          "type",
          "subject",
          "time",
          "dataschema",
          "datacontenttype");

  /**
   * A binary-mode encoding that belongs to no session: the JMS properties and the body. It is
   * computed once per event ({@link #BINARY}) and turned into a message of each sender's session by
   * {@link #toMessage}. Shared by every send of one event: do not modify.
   *
   * @param properties the properties to set ({@code String}, {@code Integer} or {@code Boolean}
   *     values)
   * @param text the body of a {@link TextMessage}, or {@code null}
   * @param bytes the body of a {@link BytesMessage}, or {@code null}; both {@code null}: no body
   */
  public record Encoded(Map<String, Object> properties, String text, byte[] bytes) {}

  /** The binary-mode wire format, for {@link io.activityservice.channel.OutboundEvent#encoded}. */
  public static final WireFormat<Encoded> BINARY = JmsCloudEventCodec::encodeBinary;

  /**
   * Structured mode: the whole event as a text body, content type {@code
   * application/cloudevents+json}, no {@code cloudEvents_*} properties.
   */
  public static final WireFormat<Encoded> STRUCTURED =
      event ->
          new Encoded(
              Map.of(CONTENT_TYPE, CloudEventJson.CONTENT_TYPE),
              new String(CloudEventJson.encode(event), StandardCharsets.UTF_8),
              null);

  /**
   * The data alone ({@link DeliveryFormat#DATA}): a text message for textual content types, else a
   * bytes message, with only the {@value #CONTENT_TYPE} property — what a plain JMS consumer reads.
   */
  public static final WireFormat<Encoded> DATA = JmsCloudEventCodec::encodeData;

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

  /** Encodes {@code event} in binary mode as a message of {@code session}. */
  public Message encode(Session session, CloudEvent event) throws JMSException {
    return toMessage(session, encodeBinary(event));
  }

  /** A new message of {@code session} carrying an encoding; cheap (no serialization). */
  public Message toMessage(Session session, Encoded encoded) throws JMSException {
    Message message;
    if (encoded.text() != null) {
      message = session.createTextMessage(encoded.text());
    } else if (encoded.bytes() != null) {
      BytesMessage bytes = session.createBytesMessage();
      bytes.writeBytes(encoded.bytes());
      message = bytes;
    } else {
      message = session.createMessage();
    }
    for (Map.Entry<String, Object> property : encoded.properties().entrySet()) {
      message.setObjectProperty(property.getKey(), property.getValue());
    }
    return message;
  }

  private static Encoded encodeData(CloudEvent event) {
    String contentType = event.getDataContentType();
    Map<String, Object> properties =
        contentType == null ? Map.of() : Map.of(CONTENT_TYPE, contentType);
    if (event.getData() == null) {
      return new Encoded(properties, null, null);
    }
    byte[] data = event.getData().toBytes();
    if (isTextual(contentType) && PlainMessages.isUtf8(data)) {
      return new Encoded(properties, new String(data, StandardCharsets.UTF_8), null);
    }
    return new Encoded(properties, null, data);
  }

  private static Encoded encodeBinary(CloudEvent event) {
    byte[] data = event.getData() == null ? null : event.getData().toBytes();
    String contentType = event.getDataContentType();
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put(PREFIX + "specversion", event.getSpecVersion().toString());
    properties.put(PREFIX + "id", event.getId());
    properties.put(PREFIX + "source", event.getSource().toString());
    properties.put(PREFIX + "type", event.getType());
    putIfPresent(properties, "subject", event.getSubject());
    putIfPresent(
        properties, "time", event.getTime() == null ? null : Time.writeTime(event.getTime()));
    putIfPresent(
        properties,
        "dataschema",
        event.getDataSchema() == null ? null : event.getDataSchema().toString());
    if (contentType != null) {
      properties.put(CONTENT_TYPE, contentType);
    }
    for (String name : event.getExtensionNames()) {
      Object value = event.getExtension(name);
      if (value instanceof Integer || value instanceof Boolean) {
        properties.put(PREFIX + name, value); // typed JMS properties, for selectors
      } else if (value != null) {
        properties.put(PREFIX + name, CloudEventAttributes.text(value));
      }
    }
    Map<String, Object> fixed = Collections.unmodifiableMap(properties);
    if (data == null) {
      return new Encoded(fixed, null, null);
    }
    if (isTextual(contentType) && PlainMessages.isUtf8(data)) {
      return new Encoded(fixed, new String(data, StandardCharsets.UTF_8), null);
    }
    return new Encoded(fixed, null, data);
  }

  /**
   * Decodes a received message (binary mode, structured mode, or a plain message wrapped by the
   * {@link PlainMessages} rule with the defaults of {@code settings}).
   *
   * @param channel the inbound channel the message came from
   * @throws IllegalArgumentException if the message is not a valid CloudEvent and cannot be wrapped
   * @throws JMSException if the message cannot be read
   */
  public CloudEvent decode(Message message, ChannelUri channel, InboundSettings settings)
      throws JMSException {
    if (message.propertyExists(PREFIX + "specversion")) {
      return decodeBinary(message);
    }
    byte[] body = body(message);
    String contentType = contentType(message);
    // One parse: a body that may be JSON is read into a tree once, which is then either the
    // structured event or
    // the plain message's JSON data (never parsed again downstream).
    JsonNode tree = body != null && mayBeJson(contentType) ? CloudEventJson.readTree(body) : null;
    if (body != null && isStructured(contentType, tree)) {
      if (tree == null) {
        throw new IllegalArgumentException(
            "message "
                + message.getJMSMessageID()
                + " has content type "
                + contentType
                + " but its body is not a JSON CloudEvent");
      }
      return CloudEventJson.fromTree(tree);
    }
    OffsetDateTime time =
        message.getJMSTimestamp() > 0
            ? OffsetDateTime.ofInstant(
                Instant.ofEpochMilli(message.getJMSTimestamp()), ZoneOffset.UTC)
            : null;
    return PlainMessages.wrap(
        channel, settings, message.getJMSMessageID(), body, contentType, time, tree);
  }

  private static CloudEvent decodeBinary(Message message) throws JMSException {
    try {
      CloudEventBuilder builder =
          CloudEventBuilder.fromSpecVersion(
              SpecVersion.parse(message.getStringProperty(PREFIX + "specversion")));
      builder
          .withId(required(message, "id"))
          .withSource(URI.create(required(message, "source")))
          .withType(required(message, "type"));
      String subject = message.getStringProperty(PREFIX + "subject");
      if (subject != null) {
        builder.withSubject(subject);
      }
      String time = message.getStringProperty(PREFIX + "time");
      if (time != null) {
        builder.withTime(Time.parseTime(time));
      }
      String schema = message.getStringProperty(PREFIX + "dataschema");
      if (schema != null) {
        builder.withDataSchema(URI.create(schema));
      }
      for (Enumeration<?> names = message.getPropertyNames(); names.hasMoreElements(); ) {
        String property = (String) names.nextElement();
        if (property.startsWith(PREFIX)
            && !ATTRIBUTES.contains(property.substring(PREFIX.length()))) {
          addExtension(
              builder, property.substring(PREFIX.length()), message.getObjectProperty(property));
        }
      }
      String contentType = contentType(message);
      byte[] body = body(message);
      if (body != null) {
        builder.withDataContentType(contentType).withData(body);
      } else if (contentType != null) {
        builder.withDataContentType(contentType);
      }
      return builder.build();
    } catch (IllegalStateException | java.time.DateTimeException e) {
      throw new IllegalArgumentException(
          "invalid binary-mode CloudEvent in message "
              + message.getJMSMessageID()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  private static void addExtension(CloudEventBuilder builder, String name, Object value) {
    if (name.isEmpty()
        || !name.equals(name.toLowerCase(Locale.ROOT))
        || !name.chars().allMatch(Character::isLetterOrDigit)) {
      return; // not a CloudEvents extension name: a foreign property that happens to share the
      // prefix
    }
    if (value instanceof Boolean b) {
      builder.withExtension(name, b);
    } else if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
      builder.withExtension(name, ((Number) value).intValue());
    } else if (value instanceof Long l && l == l.intValue()) {
      builder.withExtension(name, l.intValue());
    } else if (value != null) {
      builder.withExtension(name, value.toString());
    }
  }

  private static String required(Message message, String attribute) throws JMSException {
    String value = message.getStringProperty(PREFIX + attribute);
    if (value == null || value.isEmpty()) {
      throw new IllegalArgumentException(
          "binary-mode message "
              + message.getJMSMessageID()
              + " lacks the required property "
              + PREFIX
              + attribute);
    }
    return value;
  }

  private static void putIfPresent(Map<String, Object> properties, String attribute, String value) {
    if (value != null) {
      properties.put(PREFIX + attribute, value);
    }
  }

  private static String contentType(Message message) throws JMSException {
    for (String name : CONTENT_TYPE_ALIASES) {
      Object value = message.getObjectProperty(name);
      if (value != null && !value.toString().isBlank()) {
        return value.toString();
      }
    }
    return null;
  }

  /** The body as bytes; {@code null} for a body-less message. */
  private static byte[] body(Message message) throws JMSException {
    if (message instanceof TextMessage text) {
      return text.getText() == null ? null : text.getText().getBytes(StandardCharsets.UTF_8);
    }
    if (message instanceof BytesMessage bytes) {
      bytes.reset();
      byte[] data = new byte[(int) bytes.getBodyLength()];
      bytes.readBytes(data);
      return data;
    }
    if (message instanceof MapMessage
        || message instanceof ObjectMessage
        || message instanceof StreamMessage) {
      throw new IllegalArgumentException(
          "message "
              + message.getJMSMessageID()
              + " is a "
              + message.getClass().getSimpleName()
              + "; only text, bytes and body-less messages are supported");
    }
    return null;
  }

  /**
   * Structured mode: the structured content type, or a JSON object with specversion when the type
   * allows JSON.
   */
  private static boolean isStructured(String contentType, JsonNode tree) {
    if (contentType != null && mediaType(contentType).equals(CloudEventJson.CONTENT_TYPE)) {
      return true;
    }
    return CloudEventJson.isStructured(tree);
  }

  /** Whether a body of this content type may be JSON: no content type, or a JSON media type. */
  private static boolean mayBeJson(String contentType) {
    return contentType == null || mediaType(contentType).endsWith("json");
  }

  private static boolean isTextual(String contentType) {
    if (contentType == null) {
      return false;
    }
    String media = mediaType(contentType);
    return media.startsWith("text/")
        || media.endsWith("/json")
        || media.endsWith("+json")
        || media.endsWith("/xml")
        || media.endsWith("+xml");
  }

  private static String mediaType(String contentType) {
    int semicolon = contentType.indexOf(';');
    return (semicolon < 0 ? contentType : contentType.substring(0, semicolon))
        .trim()
        .toLowerCase(Locale.ROOT);
  }
}
