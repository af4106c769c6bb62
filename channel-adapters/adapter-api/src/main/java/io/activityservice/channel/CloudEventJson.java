package io.activityservice.channel;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.format.EventDeserializationException;
import io.cloudevents.core.format.EventFormat;
import io.cloudevents.jackson.JsonFormat;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Structured-mode JSON encoding of CloudEvents (the {@code application/cloudevents+json} format),
 * shared by adapters whose transport carries one body per message (SQS, webhooks, Kafka).
 */
public final class CloudEventJson {

  /** Media type of a structured-mode CloudEvent. */
  public static final String CONTENT_TYPE = JsonFormat.CONTENT_TYPE;
  /** Media type of a batch of structured-mode CloudEvents. */
  public static final String BATCH_CONTENT_TYPE = "application/cloudevents-batch+json";

  private static final EventFormat FORMAT = new JsonFormat();

  /**
   * The structured-mode JSON wire format ({@link #encode(CloudEvent)}), shared by every channel that
   * sends structured JSON bodies (SQS, webhooks): {@code outboundEvent.encoded(STRUCTURED)}. The
   * bytes are shared: do not modify them.
   */
  public static final WireFormat<byte[]> STRUCTURED = CloudEventJson::encode;
  private static final ObjectMapper MAPPER =
      new ObjectMapper().registerModule(JsonFormat.getCloudEventJacksonModule());
  private static final ObjectReader STRICT_TREE = MAPPER.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private CloudEventJson() {
  }

  /** Serializes an event in structured mode. */
  public static byte[] encode(CloudEvent event) {
    return FORMAT.serialize(event);
  }

  /**
   * Parses a structured-mode event.
   *
   * @throws IllegalArgumentException if the bytes are not a valid CloudEvent
   */
  public static CloudEvent decode(byte[] json) {
    try {
      return FORMAT.deserialize(json);
    } catch (EventDeserializationException | IllegalStateException e) {
      throw new IllegalArgumentException(rootMessage(e), e);
    }
  }

  /**
   * Parses a JSON array of structured-mode events ({@code application/cloudevents-batch+json}).
   *
   * @throws IllegalArgumentException naming the index of the first invalid entry
   */
  public static List<CloudEvent> decodeBatch(byte[] json) {
    JsonNode root;
    try {
      root = MAPPER.readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("batch is not valid JSON: " + rootMessage(e), e);
    }
    if (root == null || !root.isArray()) {
      throw new IllegalArgumentException("a batch must be a JSON array of CloudEvents");
    }
    List<CloudEvent> events = new ArrayList<>(root.size());
    for (int i = 0; i < root.size(); i++) {
      try {
        events.add(MAPPER.treeToValue(root.get(i), CloudEvent.class));
      } catch (IOException | RuntimeException e) {
        throw new IllegalArgumentException("[" + i + "]: " + rootMessage(e), e);
      }
    }
    return events;
  }

  /**
   * Whether a body without a content type is a structured-mode event: a JSON object with a
   * {@code specversion} member.
   */
  public static boolean looksStructured(byte[] body) {
    JsonNode node = readTree(body);
    return node != null && node.isObject() && node.has("specversion");
  }

  /** The body as one complete JSON value, or {@code null} if it is not one. */
  static JsonNode readTree(byte[] body) {
    if (body == null || body.length == 0) {
      return null;
    }
    try {
      JsonNode node = STRICT_TREE.readTree(body);
      return node == null || node.isMissingNode() ? null : node;
    } catch (IOException e) {
      return null;
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage() == null ? e.toString() : t.getMessage();
  }
}
