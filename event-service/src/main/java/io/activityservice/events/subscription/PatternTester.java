package io.activityservice.events.subscription;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.activityservice.events.json.Json;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.problem.InvalidInputException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Tells whether a subscription's pattern and CESQL filter would match an event, and why not. The
 * answer comes from the routing code itself (a {@link SubscriptionIndex} holding just this pattern
 * and filter); the reason comes from testing each field of the pattern on its own the same way, so
 * it names the fields whose matchers the event fails.
 */
public final class PatternTester {

  /** Most pattern fields tested one by one; a larger pattern is still matched whole. */
  static final int MAX_FIELDS = 200;

  /**
   * One pattern field the event fails on its own.
   *
   * @param field dotted path in the event, e.g. {@code data.value}; a {@code $or} group is named
   *     {@code data.$or}
   * @param expected the pattern's matchers for it
   * @param actual what the event has there, or {@code null} if it has nothing there
   */
  public record Mismatch(String field, JsonNode expected, JsonNode actual) {}

  /**
   * The result.
   *
   * @param matches whether a subscription with this pattern and filter receives the event
   * @param patternMatches whether the pattern matches (true without a pattern)
   * @param filterMatches whether the filter passes, or {@code null} without a filter or when the
   *     pattern failed (routing evaluates the filter only where the pattern matched)
   * @param reason one sentence for people
   * @param mismatches the pattern fields the event fails, each on its own (empty when it matches)
   */
  public record Outcome(
      boolean matches,
      boolean patternMatches,
      Boolean filterMatches,
      String reason,
      List<Mismatch> mismatches) {}

  private record Field(String path, List<String> segments, JsonNode matchers) {}

  private PatternTester() {}

  /**
   * Tests a pattern and filter against an event.
   *
   * @param pattern an Event Ruler pattern, or {@code null}/empty for every event
   * @param filter a CESQL expression, or {@code null}/blank for none
   * @throws InvalidInputException naming {@code pattern} or {@code filter} when either does not
   *     compile
   */
  public static Outcome test(JsonNode pattern, String filter, RoutableEvent event) {
    return test(pattern, filter, event, PatternLimits.DEFAULT);
  }

  /**
   * Tests a pattern and filter against an event, within {@code limits} (as a subscription's).
   *
   * @throws InvalidInputException naming {@code pattern} or {@code filter} when either does not
   *     compile or exceeds a bound
   */
  public static Outcome test(
      JsonNode pattern, String filter, RoutableEvent event, PatternLimits limits) {
    CesqlFilter cesql = entry("pattern-test", pattern, filter, limits).filter();
    boolean hasPattern = SubscriptionIndex.hasPattern(pattern);
    boolean patternMatches = !hasPattern || matches(pattern, event);
    if (!patternMatches) {
      List<Mismatch> mismatches = mismatches(pattern, event);
      String reason =
          mismatches.isEmpty()
              ? "does not match: each field of the pattern matches on its own, but not together (inside an array of "
                  + "objects every field must match within the same element)"
              : "does not match: "
                  + mismatches.stream()
                      .map(PatternTester::describe)
                      .collect(Collectors.joining("; "));
      return new Outcome(false, false, null, reason, mismatches);
    }
    String matched =
        hasPattern ? "the pattern matches" : "there is no pattern, so every event matches";
    if (cesql == null) {
      return new Outcome(true, true, null, "matches: " + matched, List.of());
    }
    String whyNot = cesql.whyNot(event.event());
    if (whyNot != null) {
      return new Outcome(
          false, true, false, "does not match: " + matched + ", but " + whyNot, List.of());
    }
    return new Outcome(
        true, true, true, "matches: " + matched + " and the filter is true", List.of());
  }

  /**
   * A validated pattern and filter as an index entry under {@code id}, for indexes of other things
   * than subscriptions (e.g. event streams), which then match exactly as a subscription with this
   * pattern and filter.
   *
   * @throws InvalidInputException naming {@code pattern} or {@code filter} when either does not
   *     compile
   */
  public static SubscriptionIndex.Entry entry(String id, JsonNode pattern, String filter) {
    return entry(id, pattern, filter, PatternLimits.DEFAULT);
  }

  /**
   * As {@link #entry(String, JsonNode, String)}, within {@code limits}.
   *
   * @throws InvalidInputException naming {@code pattern} or {@code filter}
   */
  public static SubscriptionIndex.Entry entry(
      String id, JsonNode pattern, String filter, PatternLimits limits) {
    CompiledPattern.compile(pattern, limits);
    CesqlFilter cesql =
        filter == null || filter.isBlank() ? null : CesqlFilter.compile(filter.trim(), limits);
    return new SubscriptionIndex.Entry(
        new Subscription(
            id,
            id,
            pattern,
            cesql == null ? null : cesql.text(),
            "none:" + id,
            RetryPolicy.DEFAULT,
            null,
            null),
        cesql,
        null,
        null);
  }

  /** The routing code's answer for a pattern alone. */
  private static boolean matches(JsonNode pattern, RoutableEvent event) {
    SubscriptionIndex index = new SubscriptionIndex();
    index.add(
        new SubscriptionIndex.Entry(
            new Subscription(
                "pattern-test",
                "pattern test",
                pattern,
                null,
                "none:pattern-test",
                RetryPolicy.DEFAULT,
                null,
                null),
            null,
            null,
            null));
    return !index.match(event.event(), event.json()).isEmpty();
  }

  private static List<Mismatch> mismatches(JsonNode pattern, RoutableEvent event) {
    List<Field> fields = new ArrayList<>();
    collect(pattern, "", List.of(), fields);
    List<Mismatch> out = new ArrayList<>();
    for (Field f : fields.subList(0, Math.min(fields.size(), MAX_FIELDS))) {
      boolean ok;
      try {
        ok = matches(only(f), event);
      } catch (IllegalArgumentException e) {
        continue; // a fragment Event Ruler will not take on its own (the whole pattern compiled):
        // no verdict
      }
      if (!ok) {
        out.add(new Mismatch(f.path(), f.matchers(), valueAt(event.json(), f.segments())));
      }
    }
    return out;
  }

  /** Leaves of the pattern: arrays of matchers, and {@code $or} groups taken whole. */
  private static void collect(
      JsonNode node, String prefix, List<String> segments, List<Field> out) {
    Iterator<Map.Entry<String, JsonNode>> it = node.properties().iterator();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      String path = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
      List<String> next = new ArrayList<>(segments);
      next.add(e.getKey());
      if (e.getValue().isObject() && !e.getKey().equals("$or")) {
        collect(e.getValue(), path, next, out);
      } else {
        out.add(new Field(path, next, e.getValue()));
      }
    }
  }

  /** A pattern with just this field, nested as in the original. */
  private static JsonNode only(Field f) {
    ObjectNode root = Json.MAPPER.createObjectNode();
    ObjectNode at = root;
    List<String> s = f.segments();
    for (int i = 0; i < s.size() - 1; i++) {
      at = at.putObject(s.get(i));
    }
    at.set(s.get(s.size() - 1), f.matchers());
    return root;
  }

  /** What the event has at a path; values inside arrays of objects are collected into an array. */
  static JsonNode valueAt(JsonNode json, List<String> segments) {
    JsonNode at = json;
    for (int i = 0; i < segments.size(); i++) {
      String segment = segments.get(i);
      if (segment.equals("$or")) {
        return at;
      }
      if (at == null || at.isNull() || at.isMissingNode()) {
        return null;
      }
      if (at.isArray()) {
        ArrayNode values = Json.MAPPER.createArrayNode();
        for (JsonNode element : at) {
          JsonNode v = valueAt(element, segments.subList(i, segments.size()));
          if (v != null) {
            values.add(v);
          }
        }
        return values.isEmpty() ? null : values;
      }
      at = at.get(segment);
    }
    return at == null || at.isMissingNode() ? null : at;
  }

  private static String describe(Mismatch m) {
    String wants = Json.write(m.expected());
    if (m.field().endsWith("$or")) {
      return m.field() + ": none of the alternatives matches; the pattern wants one of " + wants;
    }
    return m.actual() == null
        ? m.field() + " is absent from the event; the pattern wants " + wants
        : m.field() + " is " + Json.write(m.actual()) + "; the pattern wants " + wants;
  }
}
