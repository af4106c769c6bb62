package io.activityservice.app.web;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.temporal.Temporal;
import java.util.Arrays;
import java.util.Collection;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Plain-language names of the JSON a request field expects, for 400 answers: clients see {@code an
 * integer} or {@code an array of strings}, never the Java type the server binds it to.
 */
final class JsonTypes {

  /**
   * A qualified Java class name, possibly generic or nested ({@code
   * java.util.ArrayList<java.lang.String>}).
   */
  private static final Pattern CLASS_NAME =
      Pattern.compile("`?\\b(?:[a-z_][a-z0-9_]*\\.)+[A-Z][A-Za-z0-9_$]*(?:<[^>]*>)?(?:\\[\\])?`?");

  private JsonTypes() {}

  /**
   * What {@code type} means as JSON: {@code a string}, {@code an integer}, {@code a JSON object}...
   */
  static String describe(Class<?> type, tools.jackson.databind.exc.MismatchedInputException e) {
    if (type == String.class || type == Character.class || type == char.class) {
      return "a string";
    }
    if (type == Integer.class
        || type == int.class
        || type == Long.class
        || type == long.class
        || type == Short.class
        || type == short.class
        || type == java.math.BigInteger.class) {
      return "an integer";
    }
    if (Number.class.isAssignableFrom(type) || type == double.class || type == float.class) {
      return "a number";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "true or false";
    }
    if (type == Duration.class) {
      return "an ISO-8601 duration such as \"PT5S\"";
    }
    if (type == OffsetDateTime.class || Temporal.class.isAssignableFrom(type)) {
      return "an RFC 3339 timestamp such as \"2026-11-21T18:00:00Z\"";
    }
    if (type.isEnum()) {
      return "one of "
          + Arrays.stream(type.getEnumConstants())
              .map(c -> "\"" + c.toString().toLowerCase() + "\"")
              .collect(Collectors.joining(", "));
    }
    if (type.isArray() || Collection.class.isAssignableFrom(type)) {
      String message = e == null ? "" : String.valueOf(e.getOriginalMessage());
      return message.contains("<java.lang.String>") || type == String[].class
          ? "an array of strings"
          : "an array";
    }
    if (Map.class.isAssignableFrom(type)
        || type.isRecord()
        || type == Object.class
        || type.getName().startsWith("com.fasterxml.jackson.databind.")
        || type.getName().startsWith("tools.jackson.")) {
      return type == Object.class ? "a JSON value" : "a JSON object";
    }
    return "a value of another type";
  }

  /** A rejected value, quoted and bounded. */
  static String quote(Object value) {
    String text = String.valueOf(value);
    return "\"" + (text.length() > 64 ? text.substring(0, 64) + "…" : text) + "\"";
  }

  /** A parser message with any Java class name replaced by plain words. */
  static String withoutClassNames(String message) {
    return message == null
        ? "is not readable JSON"
        : CLASS_NAME.matcher(message).replaceAll("a value");
  }
}
