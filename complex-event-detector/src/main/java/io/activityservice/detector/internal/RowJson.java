package io.activityservice.detector.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.Map;

/**
 * Turns a row's columns into JSON without a mapper round trip, keeping doubles as doubles ({@code
 * 70.0}, not {@code 7E+1}). Values the engine hands over are maps, collections, strings, numbers,
 * booleans or null; anything else is written as its string.
 */
final class RowJson {

  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private RowJson() {}

  static JsonNode tree(Object value) {
    if (value == null) {
      return F.nullNode();
    }
    if (value instanceof Map<?, ?> m) {
      ObjectNode o = F.objectNode();
      m.forEach((k, v) -> o.set(String.valueOf(k), tree(v)));
      return o;
    }
    if (value instanceof Collection<?> c) {
      ArrayNode a = F.arrayNode(c.size());
      c.forEach(v -> a.add(tree(v)));
      return a;
    }
    if (value instanceof Object[] arr) {
      ArrayNode a = F.arrayNode(arr.length);
      for (Object v : arr) {
        a.add(tree(v));
      }
      return a;
    }
    if (value instanceof String s) {
      return F.textNode(s);
    }
    if (value instanceof Double d) {
      return d.isNaN() || d.isInfinite() ? F.nullNode() : F.numberNode(d);
    }
    if (value instanceof Float f) {
      return F.numberNode(f.doubleValue());
    }
    if (value instanceof Long
        || value instanceof Integer
        || value instanceof Short
        || value instanceof Byte) {
      return F.numberNode(((Number) value).longValue());
    }
    if (value instanceof BigDecimal b) {
      return F.numberNode(b);
    }
    if (value instanceof BigInteger b) {
      return F.numberNode(b);
    }
    if (value instanceof Boolean b) {
      return F.booleanNode(b);
    }
    return F.textNode(String.valueOf(value));
  }
}
