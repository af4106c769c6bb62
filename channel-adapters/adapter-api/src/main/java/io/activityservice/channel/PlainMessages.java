package io.activityservice.channel;

import com.fasterxml.jackson.databind.JsonNode;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * The one rule by which every inbound adapter turns a plain message (one that carries no
 * CloudEvent: no binary-mode attributes, no structured-mode body) into a CloudEvent, using the
 * inbound channel's {@link InboundSettings}:
 *
 * <ul>
 *   <li>{@code type} = {@link InboundSettings#defaultType()}; without one the message is refused;
 *   <li>{@code source} = {@link InboundSettings#defaultSource()}, else the channel URI (e.g. {@code
 *       jms:queue:orders});
 *   <li>{@code id} = the transport's message id (JMS message id, SQS MessageId, Kafka {@code
 *       <topic>-<partition>-<offset>}), or a random UUID if the transport has none;
 *   <li>{@code time} = the transport's timestamp when known (JMS timestamp, SQS SentTimestamp,
 *       Kafka record timestamp);
 *   <li>{@code data} = the body; {@code datacontenttype} = the content type the transport gives,
 *       else {@code application/json} if the body parses as JSON, else {@code text/plain} if it is
 *       UTF-8 text, else {@code application/octet-stream}. An empty body gives an event without
 *       data.
 * </ul>
 *
 * No extensions are added. A JSON body is parsed once: its tree travels with the data ({@link
 * JsonBytesData}), so the router does not parse it again. Stateless.
 */
public final class PlainMessages {

  private PlainMessages() {}

  /**
   * Wraps a plain message.
   *
   * @param channel the inbound channel the message came from
   * @param settings its settings ({@code defaultType}, {@code defaultSource})
   * @param messageId the transport's message id, or {@code null}
   * @param body the message body, or {@code null}
   * @param contentType the content type the transport gives, or {@code null}
   * @param time the transport's timestamp, or {@code null}
   * @throws IllegalArgumentException if the channel has no {@code defaultType}, saying how to set
   *     one
   */
  public static CloudEvent wrap(
      ChannelUri channel,
      InboundSettings settings,
      String messageId,
      byte[] body,
      String contentType,
      OffsetDateTime time) {
    boolean json =
        body != null && body.length > 0 && (contentType == null || isJsonType(contentType));
    return wrap(
        channel,
        settings,
        messageId,
        body,
        contentType,
        time,
        json ? CloudEventJson.readTree(body) : null);
  }

  /**
   * Wraps a plain message whose body the adapter has already parsed (to tell whether it is a
   * structured-mode event), so that it is not parsed again.
   *
   * @param parsedBody {@link CloudEventJson#readTree(byte[]) the body's tree}, or {@code null} if
   *     the body is not JSON
   * @see #wrap(ChannelUri, InboundSettings, String, byte[], String, OffsetDateTime)
   */
  public static CloudEvent wrap(
      ChannelUri channel,
      InboundSettings settings,
      String messageId,
      byte[] body,
      String contentType,
      OffsetDateTime time,
      JsonNode parsedBody) {
    if (settings.defaultType() == null || settings.defaultType().isBlank()) {
      throw new IllegalArgumentException(
          "message "
              + messageId
              + " on "
              + channel
              + " is not a CloudEvent and the"
              + " inbound channel has no defaultType to wrap it with; set defaultType (and optionally defaultSource)"
              + " on the inbound channel, e.g. POST /api/v1/channels {\"uri\": \""
              + channel
              + "\", \"defaultType\": \"com.example.legacy\"}");
    }
    URI source =
        settings.defaultSource() != null
            ? settings.defaultSource()
            : URI.create(channel.toString());
    CloudEventBuilder event =
        CloudEventBuilder.v1()
            .withId(
                messageId != null && !messageId.isEmpty()
                    ? messageId
                    : UUID.randomUUID().toString())
            .withType(settings.defaultType())
            .withSource(source);
    if (time != null) {
      event.withTime(time);
    }
    if (body != null && body.length > 0) {
      String type =
          contentType != null
              ? contentType
              : parsedBody != null
                  ? "application/json"
                  : isUtf8(body) ? "text/plain" : "application/octet-stream";
      if (parsedBody != null && isJsonType(type)) {
        event.withDataContentType(type).withData(JsonBytesData.of(parsedBody, body));
      } else {
        event.withData(type, body);
      }
    } else if (contentType != null) {
      event.withDataContentType(contentType);
    }
    return event.build();
  }

  /** The content type the rule gives a body without one: JSON, UTF-8 text, or bytes. */
  public static String contentTypeOf(byte[] body) {
    if (isJson(body)) {
      return "application/json";
    }
    return isUtf8(body) ? "text/plain" : "application/octet-stream";
  }

  /** Whether the body is one complete JSON value. */
  public static boolean isJson(byte[] body) {
    return CloudEventJson.readTree(body) != null;
  }

  /**
   * Whether a content type is JSON: {@code application/json}, {@code text/json} or {@code +json}.
   */
  static boolean isJsonType(String contentType) {
    int semicolon = contentType.indexOf(';');
    String media =
        (semicolon < 0 ? contentType : contentType.substring(0, semicolon))
            .trim()
            .toLowerCase(java.util.Locale.ROOT);
    return media.equals("application/json") || media.equals("text/json") || media.endsWith("+json");
  }

  /** Whether the bytes are valid UTF-8. */
  public static boolean isUtf8(byte[] data) {
    try {
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(data));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }
}
