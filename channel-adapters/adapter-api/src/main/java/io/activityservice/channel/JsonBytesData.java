package io.activityservice.channel;

import com.fasterxml.jackson.databind.JsonNode;
import io.cloudevents.jackson.JsonCloudEventData;
import java.util.Objects;

/**
 * JSON data known both as the bytes a message carried and as their parsed tree, so that the body is
 * parsed once: the router matches and validates the tree ({@link #getNode()}), while every encoding
 * relays the original bytes unchanged ({@link #toBytes()}; the SDK's plain {@link
 * JsonCloudEventData} would serialize the tree again on every call).
 *
 * <p>Equal to another {@code JsonBytesData} with an equal tree, like {@link JsonCloudEventData}.
 * Immutable: neither the bytes nor the tree may be modified.
 */
public final class JsonBytesData extends JsonCloudEventData {

  private final byte[] bytes;

  @SuppressWarnings("deprecation") // the SDK's only constructor a subclass can call
  private JsonBytesData(JsonNode node, byte[] bytes) {
    super(node);
    this.bytes = bytes;
  }

  /**
   * Wraps JSON bytes and their parsed tree.
   *
   * @param node the tree {@code bytes} parse to
   * @param bytes the JSON text, UTF-8; shared, not copied
   */
  public static JsonBytesData of(JsonNode node, byte[] bytes) {
    return new JsonBytesData(
        Objects.requireNonNull(node, "node"), Objects.requireNonNull(bytes, "bytes"));
  }

  /** The original bytes (shared: do not modify). */
  @Override
  public byte[] toBytes() {
    return bytes;
  }
}
