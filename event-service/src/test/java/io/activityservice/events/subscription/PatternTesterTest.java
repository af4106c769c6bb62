package io.activityservice.events.subscription;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.activityservice.events.json.Json;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.support.Events;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pattern tester's verdicts agree with routing, and its reasons name the failing fields. */
class PatternTesterTest {

  private static final String READING = "com.example.meter.reading";

  private static RoutableEvent reading(Object value) {
    return Events.routable(READING, Map.of("meter", "m1", "value", value));
  }

  private static PatternTester.Outcome test(String pattern, String filter, RoutableEvent event) {
    return PatternTester.test(
        pattern == null ? null : Json.parse(pattern, "pattern"), filter, event);
  }

  @Test
  void matchingPatternAndFilter() {
    PatternTester.Outcome o =
        test(
            """
        {"type": ["com.example.meter.reading"], "data": {"value": [{"numeric": [">", 100]}]}}""",
            "source LIKE '/test/%'",
            reading(150));
    assertThat(o.matches()).isTrue();
    assertThat(o.patternMatches()).isTrue();
    assertThat(o.filterMatches()).isTrue();
    assertThat(o.reason()).isEqualTo("matches: the pattern matches and the filter is true");
    assertThat(o.mismatches()).isEmpty();
  }

  @Test
  void nestedFieldThatFailsIsNamedWithTheEventsValue() {
    PatternTester.Outcome o =
        test(
            """
        {"type": ["com.example.meter.reading"], "data": {"meter": ["m1"], "value": [{"numeric": [">", 100]}]}}""",
            null,
            reading(50));
    assertThat(o.matches()).isFalse();
    assertThat(o.patternMatches()).isFalse();
    assertThat(o.filterMatches()).isNull();
    assertThat(o.mismatches())
        .extracting(PatternTester.Mismatch::field)
        .containsExactly("data.value");
    assertThat(o.mismatches().get(0).actual().asInt()).isEqualTo(50);
    assertThat(o.reason())
        .isEqualTo(
            "does not match: data.value is 50; the pattern wants [{\"numeric\":[\">\",100]}]");
  }

  @Test
  void everyFailingFieldIsNamedAndAbsentFieldsSaySo() {
    PatternTester.Outcome o =
        test(
            """
        {"type": ["com.example.other"], "subject": ["s1"], "data": {"meter": ["m1"]}}""",
            null,
            reading(1));
    assertThat(o.mismatches())
        .extracting(PatternTester.Mismatch::field)
        .containsExactly("type", "subject");
    assertThat(o.reason())
        .contains(
            "type is \"com.example.meter.reading\"; the pattern wants [\"com.example.other\"]")
        .contains("subject is absent from the event");
  }

  @Test
  void orGroupIsReportedWhole() {
    PatternTester.Outcome o =
        test(
            """
        {"$or": [{"subject": ["a"]}, {"data": {"meter": ["m2"]}}]}""",
            null,
            reading(1));
    assertThat(o.matches()).isFalse();
    assertThat(o.mismatches()).extracting(PatternTester.Mismatch::field).containsExactly("$or");
    assertThat(o.reason()).contains("$or: none of the alternatives matches");
    assertThat(
            test(
                    """
        {"$or": [{"subject": ["a"]}, {"data": {"meter": ["m1"]}}]}""",
                    null,
                    reading(1))
                .matches())
        .isTrue();
  }

  @Test
  void fieldsThatMatchOnlyInDifferentArrayElementsAreExplained() {
    RoutableEvent order =
        Events.routable(
            "com.example.order",
            Map.of("items", List.of(Map.of("sku", "a", "qty", 1), Map.of("sku", "b", "qty", 5))));
    PatternTester.Outcome o =
        test(
            """
        {"data": {"items": {"sku": ["a"], "qty": [5]}}}""",
            null,
            order);
    assertThat(o.matches()).isFalse();
    assertThat(o.mismatches()).isEmpty();
    assertThat(o.reason()).contains("not together");
    assertThat(
            test(
                    """
        {"data": {"items": {"sku": ["b"], "qty": [5]}}}""",
                    null,
                    order)
                .matches())
        .isTrue();
  }

  @Test
  void filterThatIsFalseOrFailsIsExplained() {
    PatternTester.Outcome falseFilter =
        test("{\"type\": [\"com.example.meter.reading\"]}", "source = '/elsewhere'", reading(1));
    assertThat(falseFilter.matches()).isFalse();
    assertThat(falseFilter.patternMatches()).isTrue();
    assertThat(falseFilter.filterMatches()).isFalse();
    assertThat(falseFilter.reason())
        .isEqualTo("does not match: the pattern matches, but the filter evaluates to false");

    PatternTester.Outcome failing = test(null, "subject = 'x'", reading(1));
    assertThat(failing.matches()).isFalse();
    assertThat(failing.reason())
        .startsWith(
            "does not match: there is no pattern, so every event matches, but the"
                + " filter could not be evaluated on this event: ")
        .contains("Missing attribute subject");
  }

  @Test
  void noPatternMatchesEveryEvent() {
    PatternTester.Outcome o = test("{}", null, reading(1));
    assertThat(o.matches()).isTrue();
    assertThat(o.reason()).isEqualTo("matches: there is no pattern, so every event matches");
  }

  @Test
  void invalidPatternOrFilterNamesTheField() {
    InvalidInputException pattern =
        catchThrowableOfType(
            InvalidInputException.class,
            () -> test("{\"type\": \"not-an-array\"}", null, reading(1)));
    assertThat(pattern.errors().get(0).field()).isEqualTo("pattern");
    InvalidInputException filter =
        catchThrowableOfType(
            InvalidInputException.class, () -> test(null, "subject = = 'x'", reading(1)));
    assertThat(filter.errors().get(0).field()).isEqualTo("filter");
  }

  @Test
  void verdictsOfEventRulerMatchers() {
    // value -1, 10, 15, 20 against each pattern
    Map<String, List<Boolean>> expected =
        Map.of(
            "{\"data\": {\"value\": [{\"numeric\": [\">=\", 10, \"<\", 20]}]}}",
            List.of(false, true, true, false),
            "{\"data\": {\"meter\": [{\"prefix\": \"m\"}]}, \"type\": [{\"anything-but\": [\"x\"]}]}",
            List.of(true, true, true, true),
            "{\"type\": [{\"anything-but\": [\"com.example.meter.reading\"]}]}",
            List.of(false, false, false, false),
            "{\"data\": {\"value\": [{\"numeric\": [\"<\", 0]}]}}",
            List.of(true, false, false, false));
    int[] values = {-1, 10, 15, 20};
    expected.forEach(
        (pattern, verdicts) -> {
          for (int i = 0; i < values.length; i++) {
            PatternTester.Outcome o = test(pattern, null, reading(values[i]));
            assertThat(o.matches()).as(pattern + " on " + values[i]).isEqualTo(verdicts.get(i));
            assertThat(o.mismatches().isEmpty()).as(o.reason()).isEqualTo(verdicts.get(i));
          }
        });
  }
}
