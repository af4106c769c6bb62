package io.activityservice.events.scope;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.events.problem.ForbiddenException;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.subscription.CompiledPattern;
import io.activityservice.events.subscription.PatternLimits;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.event.ruler.MatchType;
import software.amazon.event.ruler.Patterns;
import software.amazon.event.ruler.ValuePatterns;

/**
 * The event types a publisher may publish or a subscriber may subscribe to: a list of patterns,
 * each an exact type ({@code com.example.meter.reading}) or a prefix ending in {@code *} ({@code
 * com.example.meter.*} matches every type that starts with {@code com.example.meter.}); {@code *}
 * alone matches every type. Immutable.
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
   * @throws InvalidInputException naming {@code field[i]} for a blank pattern, whitespace, a {@code
   *     *} that is not last, or more than 100 patterns
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

  /**
   * The valid patterns among {@code patterns}, the others ignored (claims of a token issued
   * elsewhere).
   */
  public static TypeScope lenient(Collection<String> patterns) {
    if (patterns == null) {
      return NONE;
    }
    return new TypeScope(
        patterns.stream()
            .filter(p -> problem(p) == null)
            .map(String::trim)
            .distinct()
            .limit(MAX_PATTERNS)
            .toList());
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

  /** Whether every type {@code other} allows, this scope allows too. */
  public boolean covers(TypeScope other) {
    if (all) {
      return true;
    }
    if (other.all) {
      return false;
    }
    return other.exact.stream().allMatch(this::allows)
        && other.prefixes.stream().allMatch(this::coversPrefix);
  }

  /**
   * Checks that a caller with this scope may replace or delete a definition (rule set, detector)
   * whose author had {@code authorScope}: only if everything that author could use lies within this
   * scope, so a scoped author cannot take over, or remove, what another team (or an admin)
   * deployed.
   *
   * @throws ForbiddenException naming {@code field} otherwise
   */
  public void requireCovers(TypeScope authorScope, String field, String what) {
    if (!covers(authorScope)) {
      throw new ForbiddenException(
          field,
          what
              + " was deployed by an author whose event types ("
              + authorScope
              + ") reach beyond yours ("
              + this
              + "); ask that team or an admin");
    }
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
   * Checks that a subscription {@code pattern} only matches types in scope; see {@link
   * #requireSubscribable( CompiledPattern)}. Compiles it with the default {@link PatternLimits}.
   *
   * @throws ForbiddenException naming {@code pattern} when it can reach a type outside the scope
   * @throws InvalidInputException naming {@code pattern} when it does not compile
   */
  public void requireSubscribable(JsonNode pattern) {
    requireSubscribable(CompiledPattern.compile(pattern, PatternLimits.DEFAULT));
  }

  /**
   * Checks that a compiled pattern only matches types in scope. The decision is made on every
   * sub-pattern Event Ruler will run (each {@code $or} branch, nested ones included): each must
   * constrain {@code type}, and every matcher of its {@code type} must only match types in scope:
   * an exact type in scope, a {@code prefix} the scope covers, or a {@code wildcard} whose text
   * before its first {@code *} is such a prefix (or which has no {@code *} and is a type in scope).
   * Matchers whose reach cannot be bounded by the scope ({@code anything-but}, {@code exists},
   * {@code suffix}, {@code equals-ignore-case}, numbers, CIDR) are refused for scoped credentials.
   *
   * @throws ForbiddenException naming {@code pattern} otherwise
   */
  public void requireSubscribable(CompiledPattern pattern) {
    if (all) {
      return;
    }
    String example =
        "e.g. {\"type\": [\""
            + (exact.isEmpty()
                ? (prefixes.isEmpty() ? "com.example.type" : prefixes.get(0) + "…")
                : exact.iterator().next())
            + "\"]}";
    if (pattern.matchesEverything()) {
      throw new ForbiddenException(
          "pattern",
          "must pin \"type\" to event types your credentials may read (" + this + "), " + example);
    }
    List<Map<String, List<Patterns>>> subRules = pattern.subRules();
    for (int i = 0; i < subRules.size(); i++) {
      String where =
          subRules.size() == 1
              ? "the pattern"
              : "$or alternative " + (i + 1) + " of " + subRules.size();
      List<Patterns> type = subRules.get(i).get("type");
      if (type == null) {
        throw new ForbiddenException(
            "pattern",
            "must pin \"type\" to event types your credentials may read ("
                + this
                + ") in every $or alternative; "
                + where
                + " does not constrain type, "
                + example);
      }
      for (Patterns matcher : type) {
        String why = outside(matcher);
        if (why != null) {
          throw new ForbiddenException("pattern", where + ": " + why);
        }
      }
    }
  }

  /**
   * Checks a live-tail pattern: the tail filters every event by its type against the scope anyway,
   * so a sub-pattern without {@code type} is fine; but a sub-pattern whose {@code type} matchers
   * reach beyond the scope asks for events the caller may not read, and is refused as a
   * subscription would be.
   *
   * @throws ForbiddenException naming {@code pattern}
   */
  public void requireReadable(CompiledPattern pattern) {
    if (all) {
      return;
    }
    List<Map<String, List<Patterns>>> subRules = pattern.subRules();
    for (int i = 0; i < subRules.size(); i++) {
      List<Patterns> type = subRules.get(i).get("type");
      if (type == null) {
        continue;
      }
      String where =
          subRules.size() == 1
              ? "the pattern"
              : "$or alternative " + (i + 1) + " of " + subRules.size();
      for (Patterns matcher : type) {
        String why = outside(matcher);
        if (why != null) {
          throw new ForbiddenException("pattern", where + ": " + why);
        }
      }
    }
  }

  /**
   * The matcher's value text; Patterns.pattern() (null unless overridden) is deprecated in favour
   * of this one.
   */
  private static String patternText(Patterns matcher) {
    return matcher instanceof ValuePatterns values ? values.pattern() : null;
  }

  /** Why a matcher of {@code type} may reach beyond the scope, or null if it cannot. */
  private String outside(Patterns matcher) {
    MatchType kind = matcher.type();
    if (kind == MatchType.EXACT) {
      String quoted = patternText(matcher);
      if (quoted.length() < 2
          || quoted.charAt(0) != '"'
          || quoted.charAt(quoted.length() - 1) != '"') {
        return "type matcher "
            + quoted
            + " is not allowed with scoped credentials: event types are strings";
      }
      String type = quoted.substring(1, quoted.length() - 1);
      return allows(type)
          ? null
          : "type " + type + " is outside the event types your credentials may read (" + this + ")";
    }
    if (kind == MatchType.PREFIX) {
      String prefix = unquoteStart(patternText(matcher));
      return coversPrefix(prefix)
          ? null
          : "type prefix "
              + prefix
              + " reaches beyond the event types your credentials may read ("
              + this
              + ")";
    }
    if (kind == MatchType.WILDCARD) {
      String text = unquoteStart(patternText(matcher));
      if (text.endsWith("\"")) {
        text = text.substring(0, text.length() - 1);
      }
      StringBuilder literal = new StringBuilder();
      boolean star = false;
      for (int i = 0; i < text.length(); i++) {
        char c = text.charAt(i);
        if (c == '\\' && i + 1 < text.length()) {
          literal.append(text.charAt(++i));
        } else if (c == '*') {
          star = true;
          break;
        } else {
          literal.append(c);
        }
      }
      String fixed = literal.toString();
      boolean inside = star ? !fixed.isEmpty() && coversPrefix(fixed) : allows(fixed);
      return inside
          ? null
          : "type wildcard "
              + text
              + " reaches beyond the event types your credentials may read ("
              + this
              + "): the text before its first * must be a prefix within them";
    }
    return "type matcher "
        + describe(kind)
        + " is not allowed with scoped credentials: it can match types outside "
        + this
        + "; use exact types, {\"prefix\": \"…\"} or {\"wildcard\": \"…\"} starting with a prefix within them";
  }

  private static String unquoteStart(String pattern) {
    return pattern.startsWith("\"") ? pattern.substring(1) : pattern;
  }

  /**
   * The pattern-language name of a matcher kind, for messages (never an internal class or enum
   * name).
   */
  private static String describe(MatchType kind) {
    return switch (kind) {
      case ANYTHING_BUT,
          ANYTHING_BUT_IGNORE_CASE,
          ANYTHING_BUT_PREFIX,
          ANYTHING_BUT_SUFFIX,
          ANYTHING_BUT_WILDCARD ->
          "anything-but";
      case EXISTS, ABSENT -> "exists";
      case SUFFIX, SUFFIX_EQUALS_IGNORE_CASE -> "suffix";
      case EQUALS_IGNORE_CASE -> "equals-ignore-case";
      case PREFIX_EQUALS_IGNORE_CASE -> "prefix with equals-ignore-case";
      case NUMERIC_EQ, NUMERIC_RANGE -> "numeric or cidr";
      default -> kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    };
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
