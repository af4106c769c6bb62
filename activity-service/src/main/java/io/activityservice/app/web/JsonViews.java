package io.activityservice.app.web;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.events.json.Json;

/** Converts core JSON trees (Jackson 2) into plain maps and lists the web layer serializes. */
final class JsonViews {

  private JsonViews() {}

  /** An epoch-millisecond time as an RFC 3339 UTC timestamp, or {@code null}. */
  static java.time.OffsetDateTime time(Long epochMillis) {
    return epochMillis == null
        ? null
        : java.time.OffsetDateTime.ofInstant(
            java.time.Instant.ofEpochMilli(epochMillis), java.time.ZoneOffset.UTC);
  }

  static Object plain(JsonNode node) {
    return node == null || node.isNull() ? null : Json.MAPPER.convertValue(node, Object.class);
  }
}
