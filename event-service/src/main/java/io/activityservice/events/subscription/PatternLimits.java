package io.activityservice.events.subscription;

/**
 * Bounds on what one subscription pattern and CESQL filter may cost, checked when they are compiled
 * (subscriptions, the live tail, the pattern tester, archives), never per event. Each bound refused
 * is a 400 that names it.
 *
 * @param maxDepth deepest nesting of objects and arrays in a pattern (default 16)
 * @param maxSubRules sub-patterns a pattern expands into: Event Ruler turns every {@code $or} into
 *     one sub-pattern per branch, and sibling {@code $or} groups multiply (default 256)
 * @param maxWildcards {@code wildcard} and {@code anything-but wildcard} matchers in one pattern
 *     (default 8)
 * @param maxWildcardComplexity Event Ruler's complexity of the pattern's wildcard matchers (how
 *     many wildcard states a worst-case value keeps alive at once; {@code
 *     MachineComplexityEvaluator}), default 8: {@code /meters/*} is 2, {@code /m/*}{@code /x/*} 4,
 *     {@code *a*a*a} 6
 * @param maxWildcardSubscriptionsPerOwner subscriptions with wildcard matchers one owner may hold
 *     (default 20)
 * @param maxFilterLength characters in a CESQL filter (default 4096)
 * @param maxFilterDepth parentheses and function calls nested in a CESQL filter (default 32)
 * @param maxFilterOperators operators in a CESQL filter ({@code AND}, {@code =}, {@code NOT},
 *     {@code +}...; each nests the parsed expression one level deeper), default 128
 */
public record PatternLimits(
    int maxDepth,
    int maxSubRules,
    int maxWildcards,
    int maxWildcardComplexity,
    int maxWildcardSubscriptionsPerOwner,
    int maxFilterLength,
    int maxFilterDepth,
    int maxFilterOperators) {

  /** The defaults. */
  public static final PatternLimits DEFAULT = new PatternLimits(16, 256, 8, 8, 20, 4096, 32, 128);

  /**
   * @throws IllegalArgumentException naming the setting ({@code activity.patterns.*}) and a
   *     sensible value
   */
  public PatternLimits {
    require(maxDepth, 2, 64, "max-depth", 16);
    require(maxSubRules, 1, 10_000, "max-sub-rules", 256);
    require(maxWildcards, 0, 100, "max-wildcards", 8);
    require(maxWildcardComplexity, 1, 1_000, "max-wildcard-complexity", 8);
    require(
        maxWildcardSubscriptionsPerOwner, 0, 100_000, "max-wildcard-subscriptions-per-owner", 20);
    require(maxFilterLength, 16, 1_000_000, "max-filter-length", 4096);
    require(maxFilterDepth, 1, 200, "max-filter-depth", 32);
    require(maxFilterOperators, 1, 500, "max-filter-operators", 128);
  }

  private static void require(int value, int min, int max, String name, int example) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          "activity.patterns."
              + name
              + " must be between "
              + min
              + " and "
              + max
              + " (was "
              + value
              + "), e.g. "
              + example);
    }
  }
}
