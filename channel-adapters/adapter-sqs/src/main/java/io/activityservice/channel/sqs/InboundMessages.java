package io.activityservice.channel.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.PlainMessages;
import io.cloudevents.CloudEvent;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * Turns SQS messages into CloudEvents: a structured-mode CloudEvent body is decoded as is; any
 * other body is wrapped by the shared {@link PlainMessages} rule (id = SQS MessageId, time =
 * SentTimestamp). The body is parsed once, whichever it is.
 */
final class InboundMessages {

  private final ChannelUri uri;
  private final InboundSettings settings;

  InboundMessages(ChannelUri uri, InboundSettings settings) {
    this.uri = uri;
    this.settings = settings;
  }

  /**
   * The event carried by {@code message}.
   *
   * @throws IllegalArgumentException if the body is not a CloudEvent and there is no default type
   */
  CloudEvent toEvent(Message message) {
    byte[] body =
        message.body() == null ? new byte[0] : message.body().getBytes(StandardCharsets.UTF_8);
    // One parse: the tree says whether the body is a structured CloudEvent, and is then either read
    // as the
    // event or kept as the plain message's JSON data.
    JsonNode tree = CloudEventJson.readTree(body);
    if (CloudEventJson.isStructured(tree)) {
      try {
        return CloudEventJson.fromTree(tree);
      } catch (IllegalArgumentException notACloudEvent) {
        // A JSON object with specversion that is no valid CloudEvent: a plain message like any
        // other.
      }
    }
    return PlainMessages.wrap(
        uri, settings, message.messageId(), body, null, sentTime(message), tree);
  }

  private static OffsetDateTime sentTime(Message message) {
    String sent = message.attributes().get(MessageSystemAttributeName.SENT_TIMESTAMP);
    if (sent == null) {
      return null;
    }
    try {
      return OffsetDateTime.ofInstant(Instant.ofEpochMilli(Long.parseLong(sent)), ZoneOffset.UTC);
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
