package io.activityservice.events.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.activityservice.events.problem.InvalidInputException;
import java.io.IOException;

/**
 * The one Jackson 2 mapper of the core (the CloudEvents SDK, Event Ruler and the JSON Schema
 * validator all speak Jackson 2). Thread-safe.
 */
public final class Json {

  public static final ObjectMapper MAPPER =
      new ObjectMapper()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private Json() {}

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

  /**
   * Whether {@link #MAPPER} would read these bytes as one JSON value ({@code readTree} without an
   * error; empty or blank input counts, as {@code readTree} gives a missing node for it), checked
   * without building the tree: the parser reads every token (strings decoded, numbers converted as
   * the tree would convert them), but no node and no string is allocated. Routing uses it to refuse
   * invalid JSON data at ingest without parsing data nobody reads.
   */
  public static boolean isValidValue(byte[] bytes) {
    try (JsonParser p = MAPPER.createParser(bytes)) {
      JsonToken t = p.nextToken();
      if (t == null) {
        return true;
      }
      int depth = 0;
      do {
        switch (t) {
          case START_OBJECT, START_ARRAY -> depth++;
          case END_OBJECT, END_ARRAY -> depth--;
          // Decoded, not skipped: the parser's skip does not check every UTF-8 sequence (a
          // truncated one passes),
          // and the length bound is checked when decoding (JsonValidityPropertiesTest).
          case VALUE_STRING -> p.getTextLength();
          case VALUE_NUMBER_INT -> p.getNumberType();
          case VALUE_NUMBER_FLOAT -> p.getDecimalValue(); // the tree reads floats as BigDecimal
          default -> {
            // field names, literals: the tokenizer has checked them
          }
        }
      } while (depth > 0 && (t = p.nextToken()) != null);
      return depth == 0
          && p.nextToken() == null; // trailing tokens fail like FAIL_ON_TRAILING_TOKENS
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * Reads JSON bytes into a tree, as {@link #MAPPER} does.
   *
   * @throws InvalidInputException naming {@code field} if they are not one JSON value
   */
  public static JsonNode read(byte[] bytes, String field, String reason) {
    try {
      return MAPPER.readTree(bytes);
    } catch (IOException | RuntimeException e) {
      // RuntimeException: e.g. a number the tree cannot hold as BigDecimal (exponent overflow)
      throw new InvalidInputException(field, reason);
    }
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
