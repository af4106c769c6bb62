package io.activityservice.app.rules;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/** Helpers of the rule API tests: examples from rule-execution/examples, JSON quoting, events. */
final class RuleTestSupport {

  private RuleTestSupport() {}

  /** An example's DRL with its placeholder webhook base replaced. */
  static String example(String file, String webhookBase) {
    try {
      return Files.readString(Path.of("..", "rule-execution", "examples", file))
          .replace("http://127.0.0.1:9999", webhookBase);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A JSON string literal. */
  static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> b.append(c);
      }
    }
    return b.append('"').toString();
  }

  static String rule(String name, String drl) {
    return "{\"name\": " + quote(name) + ", \"drl\": " + quote(drl) + "}";
  }

  static String event(String id, String type, OffsetDateTime time, String data) {
    return """
        {"specversion": "1.0", "id": "%s", "source": "/tests/rules", "type": "%s", "time": "%s",
         "datacontenttype": "application/json", "data": %s}"""
        .formatted(
            id,
            type,
            time.withOffsetSameInstant(ZoneOffset.UTC).truncatedTo(ChronoUnit.MILLIS),
            data);
  }
}
