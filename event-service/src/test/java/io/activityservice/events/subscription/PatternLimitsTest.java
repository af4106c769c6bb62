package io.activityservice.events.subscription;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.activityservice.events.json.Json;
import io.activityservice.events.problem.InvalidInputException;
import org.junit.jupiter.api.Test;

/**
 * Issue 19: the cost of a pattern or filter is bounded when it is compiled, with a 400 that says
 * which bound.
 */
class PatternLimitsTest {

  private static CompiledPattern compile(String pattern) {
    return CompiledPattern.compile(Json.parse(pattern, "pattern"), PatternLimits.DEFAULT);
  }

  /**
   * 15 sibling $or groups of two: 32,768 sub-patterns; refused from the tree before Event Ruler
   * expands it.
   */
  static String orBomb(int groups) {
    StringBuilder sb = new StringBuilder("{\"type\": [\"com.example.t\"]");
    for (int i = 0; i < groups; i++) {
      sb.append(", \"f").append(i).append("\": {\"$or\": [{\"a\": [\"1\"]}, {\"b\": [\"2\"]}]}");
    }
    return sb.append('}').toString();
  }

  @Test
  void orExpansionIsCountedBeforeEventRulerExpandsIt() {
    assertThat(CompiledPattern.subRuleCount(Json.parse(orBomb(3), "p"), 1_000_000)).isEqualTo(8);
    assertThat(CompiledPattern.subRuleCount(Json.parse(orBomb(15), "p"), Long.MAX_VALUE))
        .isEqualTo(32_768);
    assertThat(compile(orBomb(8)).subRules()).hasSize(256);
    long start = System.nanoTime();
    assertThatThrownBy(() -> compile(orBomb(15)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith(
            "pattern: expands into more than 256 sub-patterns (activity.patterns.max-sub-rules)");
    assertThatThrownBy(() -> compile(orBomb(60)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("max-sub-rules");
    // Generous: refusing is a tree walk (Event Ruler itself needs seconds and hundreds of MB for 15
    // groups).
    assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(2_000);
    // Nested $or inside branches counts too: 2 branches, each with a group of 2 -> 4.
    assertThat(
            compile(
                    "{\"$or\": [{\"a\": [1], \"$or\": [{\"b\": [1]}, {\"c\": [1]}]},"
                        + " {\"d\": [1], \"$or\": [{\"e\": [1]}, {\"f\": [1]}]}]}")
                .subRules())
        .hasSize(4);
  }

  @Test
  void nestingDepthIsBounded() {
    String deep = "{\"data\": ".repeat(20) + "{\"v\": [1]}" + "}".repeat(20);
    assertThatThrownBy(() -> compile(deep))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("pattern: is nested more than 16 levels deep (activity.patterns.max-depth)");
    compile("{\"data\": {\"a\": {\"b\": {\"c\": [1]}}}}");
  }

  @Test
  void wildcardsOnlyOnAttributesAndWithinTheirComplexity() {
    assertThat(compile("{\"source\": [{\"wildcard\": \"/meters/*/reading\"}]}").wildcards())
        .isTrue();
    assertThat(compile("{\"source\": [{\"prefix\": \"/meters/\"}]}").wildcards()).isFalse();
    assertThatThrownBy(() -> compile("{\"data\": {\"text\": [{\"wildcard\": \"*a*\"}]}}"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("wildcard matcher on data.text");
    assertThatThrownBy(() -> compile("{\"source\": [{\"wildcard\": \"" + "*a".repeat(25) + "\"}]}"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("activity.patterns.max-wildcard-complexity");
    StringBuilder many = new StringBuilder("{\"source\": [");
    for (int i = 0; i < 9; i++) {
      many.append(i == 0 ? "" : ", ").append("{\"wildcard\": \"/s").append(i).append("/*\"}");
    }
    assertThatThrownBy(() -> compile(many + "]}"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "pattern: has 9 wildcard matchers; at most 8 (activity.patterns.max-wildcards)");
  }

  @Test
  void cesqlFiltersNestedThousandsDeepAre400NotStackOverflows() {
    for (String deep :
        new String[] {
          "(".repeat(2_500) + "true" + ")".repeat(2_500),
          "NOT ".repeat(1_000) + "true",
          "true" + " AND true".repeat(300),
          "ABS(".repeat(600) + "1" + ")".repeat(600) + " = 1"
        }) {
      assertThatThrownBy(() -> CesqlFilter.compile(deep))
          .as(deep.substring(0, 20))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageStartingWith("filter: ")
          .hasMessageContaining("activity.patterns.max-filter-");
    }
    assertThat(
            CesqlFilter.compile(
                    "(source LIKE '/meters/%' AND NOT (subject = 'x(((')) OR type IN ('a', 'b')")
                .text())
        .startsWith("(source");
    assertThatThrownBy(() -> CesqlFilter.compile("x".repeat(5_000)))
        .hasMessageContaining("max-filter-length");
    // Within bounds, a filter with a small stack still gives a 400, never an Error.
    assertThat(CesqlFilter.compile("(".repeat(32) + "true" + ")".repeat(32)).text()).isNotEmpty();
  }

  @Test
  void settingsAreValidatedWithTheirNames() {
    assertThatThrownBy(() -> new PatternLimits(0, 256, 8, 8, 20, 4096, 32, 128))
        .hasMessage("activity.patterns.max-depth must be between 2 and 64 (was 0), e.g. 16");
    assertThatThrownBy(() -> new PatternLimits(16, 256, 8, 8, 20, 4096, 32, 100_000))
        .hasMessageContaining("activity.patterns.max-filter-operators");
  }
}
