package io.activityservice.events.subscription;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.events.json.Json;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import software.amazon.event.ruler.JsonRuleCompiler;

/**
 * The top-level members of the event's JSON view that the patterns in one Event Ruler machine read
 * ({@code type}, {@code source}, {@code data} for {@code data.meter}…), counted per pattern so they
 * can be removed again. Event Ruler ignores every member no rule names, so a view with only these
 * members matches exactly as the whole view does: routing builds just that ({@link
 * io.activityservice.events.model.RoutableEvent#view}) and parses the data only when some pattern
 * reads it. Not thread-safe: the owner changes it under its own lock and publishes {@link
 * #members()}.
 */
public final class PatternFields {

  private final Map<String, Integer> counts = new HashMap<>();
  private volatile Set<String> members = Set.of();

  /** The members read by the patterns added so far (immutable). */
  public Set<String> members() {
    return members;
  }

  /** Whether some pattern reads the data ({@code data.*}, {@code data} or {@code data_base64}). */
  public boolean readsData() {
    Set<String> m = members;
    return m.contains("data") || m.contains("data_base64");
  }

  /** Counts the members a pattern reads. */
  public void add(JsonNode pattern) {
    for (String member : of(pattern)) {
      counts.merge(member, 1, Integer::sum);
    }
    publish();
  }

  /** Forgets a pattern added before. */
  public void remove(JsonNode pattern) {
    for (String member : of(pattern)) {
      counts.computeIfPresent(member, (k, n) -> n <= 1 ? null : n - 1);
    }
    publish();
  }

  private void publish() {
    members = Set.copyOf(counts.keySet());
  }

  /**
   * The top-level members a pattern reads, from the field paths Event Ruler's own compiler gives it
   * (one per constrained field, {@code $or} branches expanded): the part of each path before its
   * first dot.
   */
  static Set<String> of(JsonNode pattern) {
    Set<String> out = new TreeSet<>();
    List<Map<String, List<software.amazon.event.ruler.Patterns>>> rules;
    try {
      rules = JsonRuleCompiler.compile(Json.write(pattern));
    } catch (IOException e) {
      throw new IllegalArgumentException("pattern does not compile: " + e.getMessage(), e);
    }
    for (Map<String, ?> rule : rules) {
      for (String path : rule.keySet()) {
        int dot = path.indexOf('.');
        out.add(dot < 0 ? path : path.substring(0, dot));
      }
    }
    return out;
  }
}
