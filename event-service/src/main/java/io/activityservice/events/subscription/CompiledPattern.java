package io.activityservice.events.subscription;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.events.json.Json;
import io.activityservice.events.problem.InvalidInputException;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.event.ruler.GenericMachine;
import software.amazon.event.ruler.JsonRuleCompiler;
import software.amazon.event.ruler.MachineComplexityEvaluator;
import software.amazon.event.ruler.MatchType;
import software.amazon.event.ruler.Patterns;

/**
 * An event pattern as Event Ruler will run it: the list of sub-patterns its compiler expands it
 * into (one per {@code $or} branch, sibling groups multiplied), each a map from a field path
 * ({@code type}, {@code data.value}) to the matchers of that field. Authorisation ({@link
 * io.activityservice.events.scope.TypeScope}) and cost bounds ({@link PatternLimits}) are decided
 * on this, never on the pattern's text or one top-level field.
 *
 * <p>Checks, in order, each a 400 naming {@code pattern} and the bound: nesting depth and the
 * number of sub-patterns (computed from the tree <em>before</em> Event Ruler expands anything, so
 * an expansion bomb costs nothing); a field constrained both outside and inside a {@code $or}
 * branch (Event Ruler would let the branch <em>replace</em> the outer constraint instead of ANDing
 * it, so such patterns are refused with a hint how to write them); wildcard matchers only on
 * top-level fields (CloudEvents attributes and extensions, whose length ingest bounds) and within
 * the count and Event Ruler complexity bounds.
 *
 * @param json the pattern as given, or {@code null} for "every event"
 * @param subRules the compiled sub-patterns; empty for "every event"
 * @param wildcards whether any sub-pattern has a wildcard matcher (counted per owner)
 */
public record CompiledPattern(
    JsonNode json, List<Map<String, List<Patterns>>> subRules, boolean wildcards) {

  /** The pattern that matches every event (none, or {@code {}}). */
  public static final CompiledPattern EVERY_EVENT = new CompiledPattern(null, List.of(), false);

  private static final Pattern DUPLICATE_PATH =
      Pattern.compile("Path `([^`]*)` cannot be allowed multiple times");
  private static final String OR = "$or";

  /** Whether it matches every event. */
  public boolean matchesEverything() {
    return subRules.isEmpty();
  }

  /**
   * Checks and compiles a pattern.
   *
   * @throws InvalidInputException naming {@code pattern}
   */
  public static CompiledPattern compile(JsonNode pattern, PatternLimits limits) {
    if (pattern == null || pattern.isNull()) {
      return EVERY_EVENT;
    }
    if (!pattern.isObject()) {
      throw new InvalidInputException(
          "pattern", "must be a JSON object, e.g. {\"type\": [\"com.example.meter.reading\"]}");
    }
    if (pattern.isEmpty()) {
      return EVERY_EVENT;
    }
    int depth = depth(pattern, 1, limits.maxDepth() + 1);
    if (depth > limits.maxDepth()) {
      throw new InvalidInputException(
          "pattern",
          "is nested more than "
              + limits.maxDepth()
              + " levels deep (activity.patterns.max-depth)");
    }
    long expansion = subRuleCount(pattern, limits.maxSubRules() + 1L);
    if (expansion > limits.maxSubRules()) {
      throw new InvalidInputException(
          "pattern",
          "expands into more than "
              + limits.maxSubRules()
              + " sub-patterns (activity.patterns.max-sub-rules): each $or adds one per branch, and $or groups side by side"
              + " multiply (3 groups of 2 branches are 8); list alternative values in one field's array instead, e.g."
              + " {\"source\": [\"/a\", \"/b\"]}");
    }
    List<Map<String, List<Patterns>>> subRules;
    try {
      // Without overriding: a field set both outside and inside a $or branch is an error instead of
      // being replaced.
      subRules = JsonRuleCompiler.compile(Json.write(pattern), false);
    } catch (IOException | RuntimeException e) {
      throw invalid(e);
    }
    boolean wildcards = checkWildcards(subRules, limits);
    return new CompiledPattern(pattern, List.copyOf(subRules), wildcards);
  }

  private static InvalidInputException invalid(Exception e) {
    String error = String.valueOf(e.getMessage());
    int cut = error.indexOf("\n at [Source");
    error = (cut < 0 ? error : error.substring(0, cut)).trim();
    Matcher duplicate = DUPLICATE_PATH.matcher(error);
    if (duplicate.find()) {
      return new InvalidInputException(
          "pattern",
          "constrains "
              + duplicate.group(1)
              + " both outside and inside a"
              + " $or branch (or in two nested $or groups); fields of a pattern are ANDed, but Event Ruler would let the"
              + " branch replace the other constraint, so such patterns are refused: keep "
              + duplicate.group(1)
              + " in one place, e.g. {\"type\": [\"a\"], \"$or\": [{\"source\": [\"s\"]}, {\"subject\": [\"x\"]}]}, or"
              + " repeat the full constraint in every branch");
    }
    return new InvalidInputException("pattern", "is not a valid event pattern: " + error);
  }

  /** Depth of nested objects and arrays, counting stops at {@code stop}. */
  private static int depth(JsonNode node, int level, int stop) {
    if (level >= stop || !node.isContainerNode()) {
      return level;
    }
    int max = level;
    for (JsonNode child : node) {
      if (child.isContainerNode()) {
        max = Math.max(max, depth(child, level + 1, stop));
        if (max >= stop) {
          return max;
        }
      }
    }
    return max;
  }

  /**
   * How many sub-patterns Event Ruler's compiler makes of an object: fields multiply, a {@code $or}
   * sums its branches (saturating at {@code cap}).
   */
  static long subRuleCount(JsonNode object, long cap) {
    long count = 1;
    var fields = object.properties().iterator();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      long factor = 1;
      if (field.getKey().equals(OR) && field.getValue().isArray()) {
        factor = 0;
        for (JsonNode branch : field.getValue()) {
          if (branch.isObject()) {
            factor = Math.min(cap, factor + subRuleCount(branch, cap));
          }
        }
        factor = Math.max(factor, 1);
      } else if (field.getValue().isObject()) {
        factor = subRuleCount(field.getValue(), cap);
      }
      count = Math.min(cap, count * factor);
    }
    return count;
  }

  /** Wildcard placement, count and complexity; whether there are any. */
  private static boolean checkWildcards(
      List<Map<String, List<Patterns>>> subRules, PatternLimits limits) {
    Set<Patterns> distinct = new HashSet<>();
    GenericMachine<String> machine = null;
    int i = 0;
    for (Map<String, List<Patterns>> rule : subRules) {
      boolean has = false;
      for (Map.Entry<String, List<Patterns>> field : rule.entrySet()) {
        for (Patterns p : field.getValue()) {
          if (isWildcard(p)) {
            if (field.getKey().contains(".")
                || field.getKey().equals("data")
                || field.getKey().equals("data_base64")) {
              throw new InvalidInputException(
                  "pattern",
                  "has a wildcard matcher on "
                      + field.getKey()
                      + ": wildcards"
                      + " are allowed only on CloudEvents attributes and extensions (top-level fields such as source or"
                      + " subject, whose length ingest bounds), since their cost grows with the length of the value;"
                      + " use prefix, suffix or equals-ignore-case on data fields");
            }
            distinct.add(p);
            has = true;
          }
        }
      }
      if (has) {
        if (machine == null) {
          machine = GenericMachine.<String>builder().build();
        }
        machine.addPatternRule("w" + i++, rule);
      }
    }
    if (distinct.size() > limits.maxWildcards()) {
      throw new InvalidInputException(
          "pattern",
          "has "
              + distinct.size()
              + " wildcard matchers; at most "
              + limits.maxWildcards()
              + " (activity.patterns.max-wildcards)");
    }
    if (machine == null) {
      return false;
    }
    int complexity =
        machine.evaluateComplexity(
            new MachineComplexityEvaluator(limits.maxWildcardComplexity() + 1));
    if (complexity > limits.maxWildcardComplexity()) {
      throw new InvalidInputException(
          "pattern",
          "its wildcard matchers are too complex: Event Ruler's complexity"
              + " measure is over "
              + limits.maxWildcardComplexity()
              + " (activity.patterns.max-wildcard-complexity);"
              + " use fewer * per matcher and avoid repeating the text that follows a *, e.g. /meters/* or /m/*/reading");
    }
    return true;
  }

  static boolean isWildcard(Patterns p) {
    return p.type() == MatchType.WILDCARD || p.type() == MatchType.ANYTHING_BUT_WILDCARD;
  }

  /** The field paths the sub-patterns constrain (for tests and messages). */
  public Set<String> fields() {
    Set<String> out = new HashSet<>();
    subRules.forEach(r -> out.addAll(r.keySet()));
    return out;
  }
}
