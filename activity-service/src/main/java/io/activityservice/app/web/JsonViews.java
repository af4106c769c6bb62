package io.activityservice.app.web;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.events.json.Json;

/** Converts core JSON trees (Jackson 2) into plain maps and lists the web layer serializes. */
final class JsonViews {

  private JsonViews() {
  }

  static Object plain(JsonNode node) {
    return node == null || node.isNull() ? null : Json.MAPPER.convertValue(node, Object.class);
  }
}
