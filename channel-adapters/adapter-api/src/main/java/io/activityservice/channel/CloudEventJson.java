package io.activityservice.channel;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.format.EventFormat;
import io.cloudevents.jackson.JsonFormat;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Structured-mode JSON encoding of CloudEvents (the {@code application/cloudevents+json} format),
 * shared by adapters whose transport carries one body per message (SQS, webhooks, Kafka), and the
 * one place bodies are read as JSON.
 *
 * <p>Encoding is the CloudEvents SDK's {@link JsonFormat} everywhere: {@code time} in RFC 3339 with
 * seconds ({@code 2026-01-02T03:04:00Z}), JSON data as a JSON value, other data as {@code
 * data_base64}. Decoding reads numbers with a fraction as {@link java.math.BigDecimal}, so data is
 * relayed exactly as it came (no rounding through {@code double}).
 *
 * <p>Parse once: {@link #readTree(byte[])} reads a body into a tree; {@link
 * #isStructured(JsonNode)} tells from the tree whether it is a structured-mode event (no second
 * parse), and {@link #fromTree(JsonNode)} turns the tree into the event, while a plain JSON body
 * keeps its tree as the event's data ({@link JsonBytesData}).
 */
public final class CloudEventJson {

  /** Media type of a structured-mode CloudEvent. */
  public static final String CONTENT_TYPE = JsonFormat.CONTENT_TYPE;

  /** Media type of a batch of structured-mode CloudEvents. */
  public static final String BATCH_CONTENT_TYPE = "application/cloudevents-batch+json";

  private static final EventFormat FORMAT = new JsonFormat();

  /**
   * The structured-mode JSON wire format ({@link #encode(CloudEvent)}), shared by every channel
   * that sends structured JSON bodies (SQS, webhooks): {@code outboundEvent.encoded(STRUCTURED)}.
   * The bytes are shared: do not modify them.
   */
  public static final WireFormat<byte[]> STRUCTURED = CloudEventJson::encode;

  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          .registerModule(JsonFormat.getCloudEventJacksonModule())
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
  private static final ObjectReader STRICT_TREE =
      MAPPER.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private CloudEventJson() {}

  /** Serializes an event in structured mode (the SDK's {@link JsonFormat}). */
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
      return MAPPER.readValue(json, CloudEvent.class);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(rootMessage(e), e);
    }
  }

  /**
   * The event a structured-mode JSON tree describes, read by the SDK's deserializer from the tree
   * (the bytes are not parsed again). The tree is not modified.
   *
   * @throws IllegalArgumentException if the tree is not a valid CloudEvent
   */
  public static CloudEvent fromTree(JsonNode tree) {
    if (tree == null || !tree.isObject()) {
      throw new IllegalArgumentException("a structured-mode CloudEvent must be a JSON object");
    }
    try {
      CloudEvent event = MAPPER.treeToValue(tree, CloudEvent.class);
      if (event == null) {
        throw new IllegalArgumentException("a structured-mode CloudEvent must be a JSON object");
      }
      return event;
    } catch (IOException | RuntimeException e) {
      if (e instanceof IllegalArgumentException iae && iae.getCause() == null) {
        throw iae;
      }
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
        events.add(fromTree(root.get(i)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("[" + i + "]: " + e.getMessage(), e);
      }
    }
    return events;
  }

  /**
   * Whether a body without a content type is a structured-mode event: a JSON object with a {@code
   * specversion} member. Adapters that go on to decode or wrap the body use {@link
   * #readTree(byte[])} and {@link #isStructured(JsonNode)} instead, so the body is parsed once.
   */
  public static boolean looksStructured(byte[] body) {
    return isStructured(readTree(body));
  }

  /**
   * Whether a parsed body is a structured-mode event: a JSON object with a {@code specversion}
   * member.
   */
  public static boolean isStructured(JsonNode tree) {
    return tree != null && tree.isObject() && tree.has("specversion");
  }

  /**
   * The body as one complete JSON value, or {@code null} if it is not one (empty, not JSON, or
   * followed by more text). Bodies that cannot start a JSON value (e.g. plain text) are refused by
   * their first character, without running the parser.
   */
  public static JsonNode readTree(byte[] body) {
    if (body == null || !mayStartJson(body)) {
      return null;
    }
    try {
      JsonNode node = STRICT_TREE.readTree(body);
      return node == null || node.isMissingNode() ? null : node;
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * Whether the first non-blank byte can start a JSON value: an object, array, string, number or
   * literal.
   */
  private static boolean mayStartJson(byte[] body) {
    for (byte b : body) {
      switch (b) {
        case ' ', '\t', '\r', '\n' -> {
          continue;
        }
        case '{', '[', '"', '-', 't', 'f', 'n' -> {
          return true;
        }
        default -> {
          return b >= '0' && b <= '9';
        }
      }
    }
    return false;
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage() == null ? e.toString() : t.getMessage();
  }
}
