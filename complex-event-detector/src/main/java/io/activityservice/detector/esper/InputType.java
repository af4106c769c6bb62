package io.activityservice.detector.esper;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.events.json.Json;
import io.activityservice.events.model.HopCount;
import io.activityservice.events.model.RoutableEvent;
import io.cloudevents.CloudEvent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Esper Map event type of one CloudEvents type, derived once from the registry's JSON Schema,
 * and the matching converter from events to {@link InputEvent}s. With an object schema, {@code
 * data} is a nested Map type: {@code number} -> Double, {@code integer} -> Long, {@code string} ->
 * String, {@code boolean} -> Boolean, objects with {@code properties} -> nested Map types, arrays
 * of those -> arrays ({@code Double[]}...), anything else -> Object. Without a schema {@code data}
 * is a plain {@code java.util.Map}: properties are read with {@code data('value')} or {@code
 * data.value?} and are untyped (cast them for arithmetic: {@code cast(data('value'), double)}).
 * Maps and lists of a converted event are unmodifiable ({@link InputEvent}).
 */
final class InputType {

  /** Untyped input: data is a java.util.Map. */
  static final InputType UNTYPED = new InputType(null);

  private final Map<String, Object> definition;
  private final Node data;

  /** How one schema node maps to a Java value. */
  private sealed interface Node permits Scalar, ObjectNode, ArrayNode, AnyNode {}

  private enum ScalarKind {
    DOUBLE,
    LONG,
    STRING,
    BOOLEAN
  }

  private record Scalar(ScalarKind kind) implements Node {}

  private record ObjectNode(Map<String, Node> properties) implements Node {}

  private record ArrayNode(Node items) implements Node {}

  private record AnyNode() implements Node {}

  private static final AnyNode ANY = new AnyNode();

  InputType(JsonNode schema) {
    Node d = schema == null ? null : node(schema, 0);
    this.data = d instanceof ObjectNode ? d : null;
    definition = new LinkedHashMap<>();
    definition.put("id", String.class);
    definition.put("source", String.class);
    definition.put("type", String.class);
    definition.put("subject", String.class);
    definition.put("time", Long.class);
    definition.put("hopcount", Integer.class);
    definition.put("extensions", Map.class);
    definition.put("data", data == null ? Map.class : esperType(data));
  }

  /** The Esper Map event type definition (property name to class or nested definition). */
  Map<String, Object> definition() {
    return definition;
  }

  boolean typed() {
    return data != null;
  }

  /** Converts one event; called on an engine thread. */
  InputEvent convert(RoutableEvent routable) {
    CloudEvent e = routable.event();
    HashMap<String, Object> m = new HashMap<>(16);
    m.put("id", e.getId());
    m.put("source", e.getSource().toString());
    m.put("type", e.getType());
    m.put("subject", e.getSubject());
    m.put("time", e.getTime() == null ? null : e.getTime().toInstant().toEpochMilli());
    Map<String, Object> ext = new HashMap<>();
    int hop = 0;
    for (String name : e.getExtensionNames()) {
      Object v = e.getExtension(name);
      Object plain =
          v instanceof Number || v instanceof Boolean || v instanceof String
              ? v
              : String.valueOf(v);
      ext.put(name, plain);
      if (name.equals(HopCount.EXTENSION)) {
        hop = HopCount.parse(plain);
      }
    }
    m.put("extensions", Collections.unmodifiableMap(ext));
    m.put(HopCount.EXTENSION, hop);
    JsonNode json = routable.data();
    m.put("data", json == null ? null : data == null ? plain(json) : value(data, json));
    return new InputEvent(m);
  }

  // ---- schema -> nodes

  private static Node node(JsonNode schema, int depth) {
    if (schema == null || !schema.isObject() || depth > 16) {
      return ANY;
    }
    String type = typeOf(schema.get("type"));
    if (type == null && schema.has("properties")) {
      type = "object";
    }
    if (type == null) {
      return ANY;
    }
    return switch (type) {
      case "number" -> new Scalar(ScalarKind.DOUBLE);
      case "integer" -> new Scalar(ScalarKind.LONG);
      case "string" -> new Scalar(ScalarKind.STRING);
      case "boolean" -> new Scalar(ScalarKind.BOOLEAN);
      case "object" -> {
        JsonNode props = schema.get("properties");
        if (props == null || !props.isObject() || props.isEmpty()) {
          yield ANY;
        }
        Map<String, Node> p = new LinkedHashMap<>();
        props.properties().forEach(en -> p.put(en.getKey(), node(en.getValue(), depth + 1)));
        yield new ObjectNode(p);
      }
      case "array" -> new ArrayNode(node(schema.get("items"), depth + 1));
      default -> ANY;
    };
  }

  /** "number", or the one non-null type of ["number", "null"]; null if absent or ambiguous. */
  private static String typeOf(JsonNode type) {
    if (type == null) {
      return null;
    }
    if (type.isTextual()) {
      return type.asText();
    }
    if (type.isArray()) {
      String found = null;
      for (JsonNode t : type) {
        if (!"null".equals(t.asText())) {
          if (found != null) {
            return null;
          }
          found = t.asText();
        }
      }
      return found;
    }
    return null;
  }

  private static Object esperType(Node n) {
    if (n instanceof Scalar s) {
      return switch (s.kind()) {
        case DOUBLE -> Double.class;
        case LONG -> Long.class;
        case STRING -> String.class;
        case BOOLEAN -> Boolean.class;
      };
    }
    if (n instanceof ObjectNode o) {
      Map<String, Object> def = new LinkedHashMap<>();
      o.properties().forEach((k, v) -> def.put(k, esperType(v)));
      return def;
    }
    if (n instanceof ArrayNode a && a.items() instanceof Scalar s) {
      return switch (s.kind()) {
        case DOUBLE -> Double[].class;
        case LONG -> Long[].class;
        case STRING -> String[].class;
        case BOOLEAN -> Boolean[].class;
      };
    }
    return n instanceof ArrayNode ? Object[].class : Object.class;
  }

  // ---- JSON -> values

  private static Object value(Node n, JsonNode json) {
    if (json == null || json.isNull() || json.isMissingNode()) {
      return null;
    }
    if (n instanceof Scalar s) {
      return switch (s.kind()) {
        case DOUBLE -> json.isNumber() ? json.doubleValue() : null;
        case LONG -> json.isIntegralNumber() || json.isNumber() ? json.longValue() : null;
        case STRING ->
            json.isTextual()
                ? json.textValue()
                : json.isValueNode() ? json.asText() : Json.write(json);
        case BOOLEAN -> json.isBoolean() ? json.booleanValue() : null;
      };
    }
    if (n instanceof ObjectNode o) {
      if (!json.isObject()) {
        return null;
      }
      Map<String, Object> m = new HashMap<>();
      json.properties()
          .forEach(
              en -> {
                Node child = o.properties().get(en.getKey());
                m.put(
                    en.getKey(),
                    child == null ? plain(en.getValue()) : value(child, en.getValue()));
              });
      return Collections.unmodifiableMap(m);
    }
    if (n instanceof ArrayNode a) {
      if (!json.isArray()) {
        return null;
      }
      Object[] out =
          a.items() instanceof Scalar s
              ? switch (s.kind()) {
                case DOUBLE -> new Double[json.size()];
                case LONG -> new Long[json.size()];
                case STRING -> new String[json.size()];
                case BOOLEAN -> new Boolean[json.size()];
              }
              : new Object[json.size()];
      for (int i = 0; i < out.length; i++) {
        out[i] = value(a.items(), json.get(i));
      }
      return out;
    }
    return plain(json);
  }

  /** Untyped conversion: numbers as Long (integral) or Double, objects as Maps, arrays as Lists. */
  static Object plain(JsonNode json) {
    if (json == null || json.isNull()) {
      return null;
    }
    if (json.isIntegralNumber()) {
      return json.canConvertToLong() ? (Object) json.longValue() : json.doubleValue();
    }
    if (json.isNumber()) {
      return json.doubleValue();
    }
    if (json.isBoolean()) {
      return json.booleanValue();
    }
    if (json.isTextual()) {
      return json.textValue();
    }
    if (json.isObject()) {
      Map<String, Object> m = new HashMap<>();
      json.properties().forEach(en -> m.put(en.getKey(), plain(en.getValue())));
      return Collections.unmodifiableMap(m);
    }
    if (json.isArray()) {
      List<Object> l = new ArrayList<>(json.size());
      json.forEach(v -> l.add(plain(v)));
      return Collections.unmodifiableList(l);
    }
    return json.asText();
  }
}
