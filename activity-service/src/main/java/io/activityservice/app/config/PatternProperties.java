package io.activityservice.app.config;

import io.activityservice.events.subscription.PatternLimits;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Bounds on subscription patterns and CESQL filters ({@code activity.patterns.*}), checked when a pattern is
 * compiled (subscriptions, the live tail, the pattern tester), never per event; a pattern beyond one is a 400 naming
 * the bound. Omitted values take the defaults of {@link PatternLimits#DEFAULT}; invalid ones stop the start-up with a
 * message naming the setting.
 *
 * @param maxDepth                         nesting of objects and arrays in a pattern (16)
 * @param maxSubRules                      sub-patterns after {@code $or} expansion (256)
 * @param maxWildcards                     wildcard matchers per pattern (8)
 * @param maxWildcardComplexity            Event Ruler complexity of a pattern's wildcards (8)
 * @param maxWildcardSubscriptionsPerOwner subscriptions with wildcards per owner (20)
 * @param maxFilterLength                  characters of a CESQL filter (4096)
 * @param maxFilterDepth                   nested parentheses and function calls in a filter (32)
 * @param maxFilterOperators               operators in a filter (128)
 */
@ConfigurationProperties("activity.patterns")
public record PatternProperties(Integer maxDepth, Integer maxSubRules, Integer maxWildcards,
                                Integer maxWildcardComplexity, Integer maxWildcardSubscriptionsPerOwner,
                                Integer maxFilterLength, Integer maxFilterDepth, Integer maxFilterOperators) {

  public PatternProperties {
    limits(maxDepth, maxSubRules, maxWildcards, maxWildcardComplexity, maxWildcardSubscriptionsPerOwner,
        maxFilterLength, maxFilterDepth, maxFilterOperators); // validates at start-up
  }

  /** The bounds, defaults filled in. */
  public PatternLimits limits() {
    return limits(maxDepth, maxSubRules, maxWildcards, maxWildcardComplexity, maxWildcardSubscriptionsPerOwner,
        maxFilterLength, maxFilterDepth, maxFilterOperators);
  }

  private static PatternLimits limits(Integer maxDepth, Integer maxSubRules, Integer maxWildcards,
                                      Integer maxWildcardComplexity, Integer maxWildcardSubscriptionsPerOwner,
                                      Integer maxFilterLength, Integer maxFilterDepth, Integer maxFilterOperators) {
    PatternLimits d = PatternLimits.DEFAULT;
    return new PatternLimits(or(maxDepth, d.maxDepth()), or(maxSubRules, d.maxSubRules()),
        or(maxWildcards, d.maxWildcards()), or(maxWildcardComplexity, d.maxWildcardComplexity()),
        or(maxWildcardSubscriptionsPerOwner, d.maxWildcardSubscriptionsPerOwner()),
        or(maxFilterLength, d.maxFilterLength()), or(maxFilterDepth, d.maxFilterDepth()),
        or(maxFilterOperators, d.maxFilterOperators()));
  }

  private static int or(Integer value, int otherwise) {
    return value == null ? otherwise : value;
  }
}
