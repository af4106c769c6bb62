package io.activityservice.rules;

import com.fasterxml.jackson.databind.JsonNode;

/** Walks a dotted path ({@code a.b.0.c}) through JSON without allocating or compiling anything. */
final class DataPath {

  private DataPath() {}

  /** The node at the path, or {@code null} when any step is missing. */
  static JsonNode find(JsonNode root, String path) {
    if (root == null || path == null || path.isEmpty()) {
      return null;
    }
    JsonNode node = root;
    int start = 0;
    int length = path.length();
    while (node != null && start <= length) {
      int dot = path.indexOf('.', start);
      int end = dot < 0 ? length : dot;
      node = step(node, path, start, end);
      if (dot < 0) {
        return node;
      }
      start = dot + 1;
    }
    return node;
  }

  private static JsonNode step(JsonNode node, String path, int start, int end) {
    if (node.isObject()) {
      return node.get(path.substring(start, end));
    }
    if (node.isArray()) {
      int index = index(path, start, end);
      return index < 0 ? null : node.get(index);
    }
    return null;
  }

  private static int index(String path, int start, int end) {
    if (start == end || end - start > 9) {
      return -1;
    }
    int value = 0;
    for (int i = start; i < end; i++) {
      char c = path.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }
}
