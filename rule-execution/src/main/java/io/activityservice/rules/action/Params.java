package io.activityservice.rules.action;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.activityservice.events.json.Json;
import io.activityservice.rules.Event;
import io.activityservice.rules.EventAccess;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;

/**
 * Reads action parameters; a missing or malformed one is an {@link IllegalArgumentException} with a
 * fix-it message.
 */
final class Params {

  private Params() {}

  static String required(Map<String, Object> params, String name, String handler, String example) {
    Object v = params.get(name);
    if (v == null || v.toString().isBlank()) {
      throw new IllegalArgumentException(
          handler + " needs the parameter '" + name + "', e.g. " + example);
    }
    return v.toString();
  }

  static String optional(Map<String, Object> params, String name) {
    Object v = params.get(name);
    return v == null ? null : v.toString();
  }

  static int integer(Map<String, Object> params, String name, int fallback) {
    Object v = params.get(name);
    if (v == null) {
      return fallback;
    }
    if (v instanceof Number n) {
      return n.intValue();
    }
    try {
      return Integer.parseInt(v.toString().trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "parameter '" + name + "' must be an integer, e.g. 3; got '" + v + "'");
    }
  }

  /** A duration given as a number of milliseconds or ISO-8601 ({@code PT2S}). */
  static Duration duration(Map<String, Object> params, String name, Duration fallback) {
    Object v = params.get(name);
    if (v == null) {
      return fallback;
    }
    if (v instanceof Duration d) {
      return d;
    }
    if (v instanceof Number n) {
      return Duration.ofMillis(n.longValue());
    }
    try {
      return Duration.parse(v.toString().trim());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "parameter '" + name + "' must be milliseconds or ISO-8601, e.g. PT2S; got '" + v + "'");
    }
  }

  /**
   * Converts a parameter value to JSON; events become their structured CloudEvent JSON, copied: the
   * derived event must not share a tree with the routed event that subscribers receive.
   */
  static JsonNode json(Object value) {
    if (value instanceof Event e) {
      return EventAccess.routable(e).json().deepCopy();
    }
    if (value instanceof Map<?, ?> map) {
      ObjectNode node = Json.MAPPER.createObjectNode();
      map.forEach((k, v) -> node.set(String.valueOf(k), json(v)));
      return node;
    }
    if (value instanceof Collection<?> list) {
      ArrayNode node = Json.MAPPER.createArrayNode();
      list.forEach(v -> node.add(json(v)));
      return node;
    }
    return value == null ? Json.MAPPER.nullNode() : Json.tree(value);
  }
}
