package io.activityservice.rules.compile;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.drools.drl.parser.DrlParser;
import org.junit.jupiter.api.Test;
import org.kie.internal.builder.conf.LanguageLevelOption;

class TypeExtractorTest {

  @Test
  void constraintForms() {
    assertThat(TypeExtractor.typesOf("type == \"a\"")).containsExactly("a");
    assertThat(TypeExtractor.typesOf("\"a\" == type")).containsExactly("a");
    assertThat(TypeExtractor.typesOf("getType() == 'a'")).containsExactly("a");
    assertThat(TypeExtractor.typesOf("type == \"a\" || type == \"b\""))
        .containsExactlyInAnyOrder("a", "b");
    assertThat(TypeExtractor.typesOf("(type == \"a\" || this.type == \"b\")"))
        .containsExactlyInAnyOrder("a", "b");
    assertThat(TypeExtractor.typesOf("type in (\"a\", \"b, c\")"))
        .containsExactlyInAnyOrder("a", "b, c");
    assertThat(TypeExtractor.typesOf("type == \"a\" && number(\"v\") > 3")).containsExactly("a");
    assertThat(TypeExtractor.typesOf("type == \"a\" || number(\"v\") > 3")).isNull();
    assertThat(TypeExtractor.typesOf("type != \"a\"")).isNull();
    assertThat(TypeExtractor.typesOf("subtype == \"a\"")).isNull();
  }

  @Test
  void unionOverRulesAndNestedPatterns() throws Exception {
    EventTypes t =
        extract(
            """
        rule a when Event(type == "x") then end
        rule b when
          $e : Event(type == "y")
          not Event(type == "z", this after $e)
          Number() from accumulate(Event(type in ("w1", "w2")) over window:time(1m), count(1))
        then end
        """);
    assertThat(t).isEqualTo(EventTypes.of(Set.of("x", "y", "z", "w1", "w2")));
  }

  @Test
  void anUntypedEventPatternMeansEveryType() throws Exception {
    assertThat(
            extract(
                "rule a when Event(type == \"x\") then end rule b when Event(number(\"v\") > 1) then end"))
        .isEqualTo(EventTypes.ALL);
    assertThat(extract("rule a when Object() then end")).isEqualTo(EventTypes.ALL);
    assertThat(extract("declare Foo end rule a when Foo() then end")).isEqualTo(EventTypes.ALL);
  }

  private static EventTypes extract(String drl) throws Exception {
    return TypeExtractor.extract(new DrlParser(LanguageLevelOption.DRL6).parse(false, drl));
  }
}
