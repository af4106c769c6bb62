package io.activityservice.app.config;

import io.activityservice.events.subscription.PatternLimits;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Bounds on subscription patterns and CESQL filters ({@code activity.patterns.*}), checked when a
 * pattern is compiled (subscriptions, the live tail, the pattern tester), never per event; a
 * pattern beyond one is a 400 naming the bound. The defaults are those of {@link
 * PatternLimits#DEFAULT} (a test checks that they agree); invalid values stop the start-up with a
 * message naming the setting.
 *
 * @param maxDepth nesting of objects and arrays in a pattern
 * @param maxSubRules sub-patterns after {@code $or} expansion
 * @param maxWildcards wildcard matchers per pattern
 * @param maxWildcardComplexity Event Ruler complexity of a pattern's wildcards
 * @param maxWildcardSubscriptionsPerOwner subscriptions with wildcards per owner
 * @param maxFilterLength characters of a CESQL filter
 * @param maxFilterDepth nested parentheses and function calls in a filter
 * @param maxFilterOperators operators in a filter
 */
@ConfigurationProperties("activity.patterns")
public record PatternProperties(
    @DefaultValue("16") Integer maxDepth,
    @DefaultValue("256") Integer maxSubRules,
    @DefaultValue("8") Integer maxWildcards,
    @DefaultValue("8") Integer maxWildcardComplexity,
    @DefaultValue("20") Integer maxWildcardSubscriptionsPerOwner,
    @DefaultValue("4096") Integer maxFilterLength,
    @DefaultValue("32") Integer maxFilterDepth,
    @DefaultValue("128") Integer maxFilterOperators) {

  public PatternProperties {
    new PatternLimits(
        maxDepth,
        maxSubRules,
        maxWildcards,
        maxWildcardComplexity,
        maxWildcardSubscriptionsPerOwner,
        maxFilterLength,
        maxFilterDepth,
        maxFilterOperators); // validates at start-up
  }

  /** The bounds. */
  public PatternLimits limits() {
    return new PatternLimits(
        maxDepth,
        maxSubRules,
        maxWildcards,
        maxWildcardComplexity,
        maxWildcardSubscriptionsPerOwner,
        maxFilterLength,
        maxFilterDepth,
        maxFilterOperators);
  }
}
