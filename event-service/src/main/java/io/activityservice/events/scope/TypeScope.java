package io.activityservice.events.scope;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.events.problem.ForbiddenException;
import io.activityservice.events.problem.InvalidInputException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The event types a publisher may publish or a subscriber may subscribe to: a list of patterns, each an exact
 * type ({@code com.example.meter.reading}) or a prefix ending in {@code *} ({@code com.example.meter.*} matches
 * every type that starts with {@code com.example.meter.}); {@code *} alone matches every type. Immutable.
 */
public final class TypeScope {

  /** Every type. */
  public static final TypeScope ALL = new TypeScope(List.of("*"));
  /** No type. */
  public static final TypeScope NONE = new TypeScope(List.of());

  private static final int MAX_PATTERNS = 100;

  private final List<String> patterns;
  private final Set<String> exact = new LinkedHashSet<>();
  private final List<String> prefixes = new ArrayList<>();
  private final boolean all;

  private TypeScope(List<String> patterns) {
    this.patterns = List.copyOf(patterns);
    boolean any = false;
    for (String p : this.patterns) {
      if (p.endsWith("*")) {
        String prefix = p.substring(0, p.length() - 1);
        any |= prefix.isEmpty();
        prefixes.add(prefix);
      } else {
        exact.add(p);
      }
    }
    this.all = any;
  }

  /**
   * Validated patterns as a client gave them.
   *
   * @throws InvalidInputException naming {@code field[i]} for a blank pattern, whitespace, a {@code *} that is
   *                               not last, or more than 100 patterns
   */
  public static TypeScope of(Collection<String> patterns, String field) {
    if (patterns == null || patterns.isEmpty()) {
      return NONE;
    }
    if (patterns.size() > MAX_PATTERNS) {
      throw new InvalidInputException(field, "at most " + MAX_PATTERNS + " event-type patterns");
    }
    List<String> clean = new ArrayList<>();
    int i = 0;
    for (String p : patterns) {
      String why = problem(p);
      if (why != null) {
        throw new InvalidInputException(field + "[" + i + "]", why);
      }
      clean.add(p.trim());
      i++;
    }
    return new TypeScope(clean.stream().distinct().toList());
  }

  /** The valid patterns among {@code patterns}, the others ignored (claims of a token issued elsewhere). */
  public static TypeScope lenient(Collection<String> patterns) {
    if (patterns == null) {
      return NONE;
    }
    return new TypeScope(patterns.stream().filter(p -> problem(p) == null).map(String::trim).distinct()
        .limit(MAX_PATTERNS).toList());
  }

  private static String problem(String p) {
    if (p == null || p.isBlank()) {
      return "must not be blank; use an event type, a prefix ending in * (com.example.meter.*) or * for every type";
    }
    String t = p.trim();
    if (t.length() > 255) {
      return "at most 255 characters";
    }
    if (t.chars().anyMatch(Character::isWhitespace)) {
      return "must not contain whitespace";
    }
    int star = t.indexOf('*');
    if (star >= 0 && star != t.length() - 1) {
      return "* may only end a pattern, e.g. com.example.meter.*";
    }
    return null;
  }

  /** Whether {@code type} is in scope. */
  public boolean allows(String type) {
    if (all) {
      return true;
    }
    if (type == null) {
      return false;
    }
    if (exact.contains(type)) {
      return true;
    }
    for (String prefix : prefixes) {
      if (type.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  /** Whether every type starting with {@code prefix} is in scope. */
  public boolean coversPrefix(String prefix) {
    if (all) {
      return true;
    }
    for (String p : prefixes) {
      if (prefix.startsWith(p)) {
        return true;
      }
    }
    return false;
  }

  /** Whether this scope allows every type. */
  public boolean isAll() {
    return all;
  }

  /** Whether it allows no type. */
  public boolean isEmpty() {
    return patterns.isEmpty();
  }

  /** The patterns, as given. */
  public List<String> patterns() {
    return patterns;
  }

  /**
   * Checks that a subscription {@code pattern} only matches types in scope: its top-level {@code type} must be
   * a list of exact types and {@code {"prefix": "..."}} matchers that all lie in scope (everything else in an
   * Event Ruler pattern, {@code $or} included, is ANDed with that {@code type}, so it can only narrow it).
   *
   * @throws ForbiddenException naming {@code pattern} otherwise
   */
  public void requireSubscribable(JsonNode pattern) {
    if (all) {
      return;
    }
    String example = "e.g. {\"type\": [\"" + (exact.isEmpty() ? (prefixes.isEmpty() ? "com.example.type"
        : prefixes.get(0) + "…") : exact.iterator().next()) + "\"]}";
    JsonNode type = pattern == null || !pattern.isObject() ? null : pattern.get("type");
    if (type == null || !type.isArray() || type.isEmpty()) {
      throw new ForbiddenException("pattern", "must pin \"type\" to event types your credentials may read ("
          + this + "), " + example);
    }
    for (JsonNode matcher : type) {
      if (matcher.isTextual()) {
        if (!allows(matcher.asText())) {
          throw new ForbiddenException("pattern", "type " + matcher.asText()
              + " is outside the event types your credentials may read (" + this + ")");
        }
      } else if (matcher.isObject() && matcher.size() == 1 && matcher.path("prefix").isTextual()) {
        String prefix = matcher.get("prefix").asText();
        if (!coversPrefix(prefix)) {
          throw new ForbiddenException("pattern", "type prefix " + prefix
              + " reaches beyond the event types your credentials may read (" + this + ")");
        }
      } else {
        throw new ForbiddenException("pattern", "type matcher " + matcher + " is not allowed with scoped"
            + " credentials: use exact types or {\"prefix\": \"…\"} within " + this);
      }
    }
  }

  @Override
  public String toString() {
    return patterns.isEmpty() ? "no event types" : String.join(", ", patterns);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TypeScope other && other.patterns.equals(patterns);
  }

  @Override
  public int hashCode() {
    return patterns.hashCode();
  }
}
