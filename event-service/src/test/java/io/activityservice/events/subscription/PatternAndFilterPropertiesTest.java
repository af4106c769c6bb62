package io.activityservice.events.subscription;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.events.json.Json;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.support.JsonArbitraries;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * Properties of subscription input validation: an arbitrary event pattern or CESQL filter is either
 * accepted or refused with {@link InvalidInputException} naming {@code pattern} / {@code filter};
 * no other exception escapes.
 */
class PatternAndFilterPropertiesTest {

  private static final List<String> PATTERN_WORDS =
      List.of(
          "type",
          "source",
          "subject",
          "data",
          "id",
          "prefix",
          "suffix",
          "anything-but",
          "numeric",
          "exists",
          "equals-ignore-case",
          "wildcard",
          "cidr",
          "$or",
          "",
          "*");

  @Property(tries = 2000)
  void arbitraryPatterns(@ForAll("patterns") Object pattern) {
    JsonNode tree = Json.tree(pattern);
    try {
      SubscriptionService.checkPattern(tree);
      Statistics.label("outcome").collect("valid");
    } catch (InvalidInputException e) {
      assertThat(e.errors())
          .extracting(InvalidInputException.FieldError::field)
          .containsOnly("pattern");
      Statistics.label("outcome").collect("invalid");
    }
  }

  @Property(tries = 2000)
  void arbitraryFilters(@ForAll("filters") String filter) {
    try {
      CesqlFilter compiled = CesqlFilter.compile(filter);
      assertThat(compiled.text()).isEqualTo(filter);
      Statistics.label("outcome").collect("valid");
    } catch (InvalidInputException e) {
      assertThat(e.errors())
          .extracting(InvalidInputException.FieldError::field)
          .containsOnly("filter");
      Statistics.label("outcome").collect("invalid");
    }
  }

  @Provide
  Arbitrary<Object> patterns() {
    Arbitrary<String> keys =
        Arbitraries.oneOf(Arbitraries.of(PATTERN_WORDS), Arbitraries.strings().ofMaxLength(12));
    Arbitrary<Object> leaf = JsonArbitraries.jsonValue(1);
    Arbitrary<Object> matcher = Arbitraries.maps(keys, leaf).ofMaxSize(2).map(m -> (Object) m);
    Arbitrary<Object> values =
        Arbitraries.oneOf(
            leaf, Arbitraries.oneOf(leaf, matcher).list().ofMaxSize(4).map(l -> (Object) l));
    Arbitrary<Object> level1 = Arbitraries.maps(keys, values).ofMaxSize(4).map(m -> (Object) m);
    Arbitrary<Object> level2 =
        Arbitraries.maps(keys, Arbitraries.oneOf(values, level1)).ofMaxSize(4).map(m -> (Object) m);
    return Arbitraries.oneOf(level2, level1, leaf, Arbitraries.just(Map.of()).map(m -> (Object) m));
  }

  @Provide
  Arbitrary<String> filters() {
    Arbitrary<String> tokens =
        Arbitraries.of(
            "type",
            "source",
            "subject",
            "data",
            "myext",
            "=",
            "!=",
            "<>",
            "<",
            ">=",
            "AND",
            "OR",
            "NOT",
            "XOR",
            "LIKE",
            "IN",
            "EXISTS",
            "(",
            ")",
            ",",
            "'a'",
            "'%b_'",
            "\"x\"",
            "1",
            "-2147483649",
            "99999999999999999999",
            "TRUE",
            "false",
            "ABS(",
            "LENGTH(",
            "CONCAT(",
            "UPPER(",
            "INT(",
            "BOOL(",
            "STRING(",
            "SUBSTRING(",
            "IS_INT(",
            "+",
            "-",
            "*",
            "/",
            "%",
            " ",
            "''",
            "'",
            "\\",
            ".",
            "[");
    return Arbitraries.oneOf(
        Arbitraries.strings().ofMaxLength(60),
        tokens.list().ofMaxSize(16).map(l -> String.join(" ", l)),
        tokens.list().ofMaxSize(16).map(l -> String.join("", l)));
  }
}
