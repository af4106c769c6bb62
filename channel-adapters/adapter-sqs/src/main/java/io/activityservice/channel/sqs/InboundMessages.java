package io.activityservice.channel.sqs;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.InboundSettings;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * Turns SQS messages into CloudEvents: a structured-mode CloudEvent body is decoded as is; any other
 * body is wrapped with the channel's {@link InboundSettings#defaultType()} and
 * {@link InboundSettings#defaultSource()} (id = SQS message id, time = sent time, data = the body,
 * {@code application/json} if it parses as JSON, else {@code text/plain}).
 */
final class InboundMessages {

  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .disable(JsonParser.Feature.AUTO_CLOSE_SOURCE);

  private final InboundSettings settings;
  private final URI fallbackSource;

  InboundMessages(ChannelUri uri, InboundSettings settings) {
    this.settings = settings;
    this.fallbackSource = settings.defaultSource() != null ? settings.defaultSource()
        : URI.create(uri.toString());
  }

  /**
   * The event carried by {@code message}.
   *
   * @throws IllegalArgumentException if the body is not a CloudEvent and there is no default type
   */
  CloudEvent toEvent(Message message) {
    byte[] body = message.body() == null ? new byte[0] : message.body().getBytes(StandardCharsets.UTF_8);
    try {
      return CloudEventJson.decode(body);
    } catch (IllegalArgumentException | IllegalStateException notACloudEvent) {
      if (settings.defaultType() == null) {
        throw new IllegalArgumentException(notACloudEvent.getMessage(), notACloudEvent);
      }
      CloudEventBuilder event = CloudEventBuilder.v1()
          .withId(message.messageId())
          .withType(settings.defaultType())
          .withSource(fallbackSource)
          .withData(isJson(body) ? "application/json" : "text/plain", body);
      String sent = message.attributes().get(MessageSystemAttributeName.SENT_TIMESTAMP);
      if (sent != null) {
        try {
          event.withTime(OffsetDateTime.ofInstant(Instant.ofEpochMilli(Long.parseLong(sent)), ZoneOffset.UTC));
        } catch (NumberFormatException ignored) {
          // no time then
        }
      }
      return event.build();
    }
  }

  static boolean isJson(byte[] body) {
    if (body.length == 0) {
      return false;
    }
    try {
      return JSON.readTree(body) != null;
    } catch (IOException e) {
      return false;
    }
  }
}
