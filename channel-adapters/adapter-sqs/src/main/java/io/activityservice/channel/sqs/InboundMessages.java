package io.activityservice.channel.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.channel.Acknowledgement;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.PlainMessages;
import io.activityservice.channel.TraceContext;
import io.cloudevents.CloudEvent;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
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
        return withTraceContext(CloudEventJson.fromTree(tree), message);
      } catch (IllegalArgumentException notACloudEvent) {
        // A JSON object with specversion that is no valid CloudEvent: a plain message like any
        // other.
      }
    }
    return withTraceContext(
        PlainMessages.wrap(uri, settings, message.messageId(), body, null, sentTime(message), tree),
        message);
  }

  /**
   * The event with the trace context of the message attributes {@code traceparent} / {@code
   * tracestate} when its body has none (a plain body, or a producer that sets only the attributes).
   */
  private static CloudEvent withTraceContext(CloudEvent event, Message message) {
    if (!message.hasMessageAttributes()) {
      return event;
    }
    return TraceContext.orFrom(
        event,
        stringAttribute(message, TraceContext.TRACEPARENT),
        stringAttribute(message, TraceContext.TRACESTATE));
  }

  private static String stringAttribute(Message message, String name) {
    MessageAttributeValue value = message.messageAttributes().get(name);
    return value == null ? null : value.stringValue();
  }

  private static OffsetDateTime sentTime(Message message) {
    long sent =
        ReceivedBatch.sentMillis(
            message.attributes().get(MessageSystemAttributeName.SENT_TIMESTAMP));
    return sent == Acknowledgement.NO_SENT_TIME
        ? null
        : OffsetDateTime.ofInstant(Instant.ofEpochMilli(sent), ZoneOffset.UTC);
  }
}
