package io.activityservice.perf.peer.camel;

import java.util.Map;

/**
 * Binary-mode JMS CloudEvent (the AMQP binding's JMS names: property {@code cloudEvents_x} for
 * attribute {@code x}, {@code contentType} for {@code datacontenttype}, data as the body) →
 * structured-mode JSON: what a JMS → SQS relay of CloudEvents has to write for consumers that read
 * structured events (the service's T5 does the same). Written by hand, without a JSON library,
 * because it only copies strings.
 */
public final class StructuredCloudEvents {

  /** JMS property prefix of CloudEvents attributes. */
  static final String PREFIX = "cloudEvents_";

  private StructuredCloudEvents() {}

  /**
   * The structured JSON of an event.
   *
   * @param headers the message's headers (other headers are ignored)
   * @param body the data as text; embedded as JSON when the content type is JSON, else as a string
   */
  public static String fromBinary(Map<String, Object> headers, String body) {
    StringBuilder json = new StringBuilder(body == null ? 256 : body.length() + 256).append('{');
    boolean first = true;
    for (Map.Entry<String, Object> h : headers.entrySet()) {
      if (!h.getKey().startsWith(PREFIX) || h.getValue() == null) {
        continue;
      }
      first = member(json, h.getKey().substring(PREFIX.length()), h.getValue(), first);
    }
    Object contentType = headers.get("contentType");
    if (contentType != null) {
      first = member(json, "datacontenttype", contentType.toString(), first);
    }
    if (body != null) {
      if (!first) {
        json.append(',');
      }
      json.append("\"data\":");
      if (contentType == null || contentType.toString().contains("json")) {
        json.append(body);
      } else {
        quote(json, body);
      }
    }
    return json.append('}').toString();
  }

  private static boolean member(StringBuilder json, String name, Object value, boolean first) {
    if (!first) {
      json.append(',');
    }
    quote(json, name);
    json.append(':');
    if (value instanceof Number || value instanceof Boolean) {
      json.append(value);
    } else {
      quote(json, value.toString());
    }
    return false;
  }

  static void quote(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
