package io.activityservice.events.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.activityservice.events.problem.InvalidInputException;

/**
 * The one Jackson 2 mapper of the core (the CloudEvents SDK, Event Ruler and the JSON Schema
 * validator all speak Jackson 2). Thread-safe.
 */
public final class Json {

  public static final ObjectMapper MAPPER = new ObjectMapper()
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private Json() {
  }

  /** Parses stored or user JSON; {@code field} names the input in the error. */
  public static JsonNode parse(String text, String field) {
    try {
      return MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      throw new InvalidInputException(field, "is not valid JSON: " + e.getOriginalMessage());
    }
  }

  /** Converts a value (maps, lists, numbers…) from the web layer into a tree. */
  public static JsonNode tree(Object value) {
    return value == null ? null : MAPPER.valueToTree(value);
  }

  /** Serializes a tree compactly. */
  public static String write(JsonNode node) {
    try {
      return node == null ? null : MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
