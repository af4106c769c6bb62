package io.activityservice.rules.compile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.rules.TestEvents;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RuleCompilerTest {

  static final String VERBATIM =
      """
      rule "high reading"
      when
        $e : Event( type == "com.example.meter.reading", number("value") > 90 )
      then
        actions.run("webhook", Map.of("url", "http://127.0.0.1:9999/hook", "event", $e));
      end
      """;

  final RuleCompiler compiler = new RuleCompiler(Duration.ofMinutes(10));

  @Test
  void theIssuesRuleCompilesVerbatimAndIsTyped() {
    CompiledRule r = compiler.compile("high", VERBATIM);
    assertThat(r.types()).isEqualTo(EventTypes.of(Set.of("com.example.meter.reading")));
    assertThat(r.kieBase().getKiePackage("io.activityservice.rules.deployed").getRules())
        .extracting(org.kie.api.definition.rule.Rule::getName)
        .containsExactly("high reading");
  }

  @Test
  void theExamplesCompile() {
    for (String file :
        new String[] {"smart-grid-overload.drl", "inventory-reorder.drl", "failed-logins.drl"}) {
      assertThat(compiler.compile(file, TestEvents.example(file)).types().all()).as(file).isFalse();
    }
  }

  @Test
  void syntaxErrorNamesTheUsersLine() {
    InvalidInputException e =
        refused(
            """
        rule "r"
        when
          $e : Event( type == "a"
        then
        end
        """);
    assertThat(e.errors().get(0).field()).isEqualTo("drl");
    assertThat(e.errors().get(0).reason())
        .startsWith("line 4: ")
        .contains("Line 4:0")
        .contains("'then'");
  }

  @Test
  void unknownPropertyNamesTheUsersLine() {
    InvalidInputException e =
        refused(
            """
        rule "r"
        when
          $e : Event( type == "a", nosuch > 3 )
        then
          actions.run("log", Map.of());
        end
        """);
    assertThat(e.errors().get(0).reason())
        .startsWith("line 3: ")
        .contains("nosuch")
        .doesNotContain("[Line:");
  }

  @Test
  void consequenceErrorNamesTheConsequencesLine() {
    // Passes the guard (allowed calls only) but not the Java compiler: Drools reports the line of
    // 'then'.
    InvalidInputException e =
        refused(
            """
        // a comment

        rule "r"
        when
          $e : Event( type == "a" )
        then
          int n = $e.getType();
        end
        """);
    assertThat(e.errors().get(0).reason())
        .startsWith("line 6: in the consequence")
        .contains("String");
  }

  @Test
  void blankDrlIsRefused() {
    assertThat(refused(" ").errors().get(0).reason()).contains("is required");
  }

  @Test
  void aUserDeclarationOfEventReplacesTheDefault() {
    CompiledRule r =
        compiler.compile(
            "own",
            """
        declare Event @role(event) @timestamp(time) @expires(1m) end
        rule "r" when Event(type == "a") then end
        """);
    assertThat(r.types().types()).containsExactly("a");
  }

  private InvalidInputException refused(String drl) {
    return catchThrowableOfType(InvalidInputException.class, () -> compiler.compile("bad", drl));
  }
}
