package io.activityservice.events.scope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.activityservice.events.json.Json;
import io.activityservice.events.problem.ForbiddenException;
import io.activityservice.events.problem.InvalidInputException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Event-type scopes: pure logic. */
class TypeScopeTest {

  @Test
  void exactTypesAndTrailingStarPrefixes() {
    TypeScope scope =
        TypeScope.of(List.of("com.example.meter.*", "org.acme.invoice"), "eventTypes");
    assertThat(scope.allows("com.example.meter.reading")).isTrue();
    assertThat(scope.allows("com.example.meter.")).isTrue();
    assertThat(scope.allows("com.example.meters")).isFalse();
    assertThat(scope.allows("org.acme.invoice")).isTrue();
    assertThat(scope.allows("org.acme.invoice.paid")).isFalse();
    assertThat(scope.allows(null)).isFalse();
    assertThat(scope.coversPrefix("com.example.meter.gas.")).isTrue();
    assertThat(scope.coversPrefix("com.example.")).isFalse();
    assertThat(scope.coversPrefix("org.acme.invoice"))
        .as("an exact type covers no prefix")
        .isFalse();
    assertThat(TypeScope.of(List.of("*"), "t").allows("anything")).isTrue();
    assertThat(TypeScope.of(List.of(), "t").allows("anything")).isFalse();
    assertThat(scope.toString()).isEqualTo("com.example.meter.*, org.acme.invoice");
  }

  @Test
  void invalidPatternsAre400NamingTheEntry() {
    for (String bad : new String[] {" ", "com.*.reading", "a b", "x".repeat(256)}) {
      assertThatThrownBy(() -> TypeScope.of(List.of("ok", bad), "eventTypes"))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageStartingWith("eventTypes[1]:");
    }
    assertThat(TypeScope.lenient(List.of("ok.*", "bad*x", " ")).patterns()).containsExactly("ok.*");
  }

  @Test
  void subscriptionPatternsMustPinTypeWithinTheScope() {
    TypeScope scope = TypeScope.of(List.of("com.example.meter.*"), "eventTypes");
    scope.requireSubscribable(
        Json.parse("{\"type\": [\"com.example.meter.reading\"], \"data\": {\"v\": [1]}}", "p"));
    scope.requireSubscribable(
        Json.parse(
            "{\"type\": [{\"prefix\": \"com.example.meter.gas\"}],"
                + " \"$or\": [{\"subject\": [\"x\"]}, {\"source\": [\"/y\"]}]}",
            "p"));
    for (String bad :
        new String[] {
          "{}",
          "{\"source\": [\"/x\"]}",
          "{\"type\": [\"com.example.other\"]}",
          "{\"type\": [{\"prefix\": \"com.\"}]}",
          "{\"type\": [{\"equals-ignore-case\": \"com.example.meter.x\"}]}",
          "{\"type\": [12]}"
        }) {
      assertThatThrownBy(() -> scope.requireSubscribable(Json.parse(bad, "p")))
          .as(bad)
          .isInstanceOf(ForbiddenException.class)
          .satisfies(e -> assertThat(((ForbiddenException) e).field()).isEqualTo("pattern"));
    }
    for (String invalid :
        new String[] {"[]", "{\"type\": [{\"prefix\": \"com.example.meter.\", \"x\": 1}]}"}) {
      assertThatThrownBy(() -> scope.requireSubscribable(Json.parse(invalid, "p")))
          .as(invalid)
          .isInstanceOf(InvalidInputException.class)
          .hasMessageStartingWith("pattern:");
    }
    assertThatThrownBy(
            () -> scope.requireSubscribable((com.fasterxml.jackson.databind.JsonNode) null))
        .isInstanceOf(ForbiddenException.class);
    TypeScope.ALL.requireSubscribable((com.fasterxml.jackson.databind.JsonNode) null);
  }

  /**
   * Issue 19: the decision is made on every sub-pattern Event Ruler runs, $or branches included.
   */
  @Test
  void everyOrBranchIsCheckedOnTheCompiledPattern() {
    TypeScope scope = TypeScope.of(List.of("com.a.*"), "eventTypes");
    // Widening attempts: each reaches com.b.* in some branch, or cannot be bounded by the scope.
    for (String bad :
        new String[] {
          "{\"$or\": [{\"type\": [\"com.a.x\"]}, {\"type\": [\"com.b.y\"]}]}",
          "{\"$or\": [{\"type\": [\"com.a.x\"]}, {\"source\": [\"x\"]}]}",
          "{\"$or\": [{\"type\": [\"com.a.x\"]}, {\"$or\": [{\"type\": [\"com.a.y\"]}, {\"type\": [\"com.b.z\"]}]}]}",
          "{\"type\": [{\"anything-but\": \"com.a.x\"}]}",
          "{\"type\": [{\"anything-but\": {\"prefix\": \"com.b.\"}}]}",
          "{\"type\": [{\"wildcard\": \"*\"}]}",
          "{\"type\": [{\"wildcard\": \"com.*\"}]}",
          "{\"type\": [{\"wildcard\": \"com.b.*\"}]}",
          "{\"type\": [{\"equals-ignore-case\": \"COM.A.X\"}]}",
          "{\"type\": [{\"prefix\": {\"equals-ignore-case\": \"com.a.\"}}]}",
          "{\"type\": [{\"suffix\": \".x\"}]}",
          "{\"type\": [{\"exists\": true}]}",
          "{\"type\": [\"com.a.x\", {\"exists\": true}]}",
          "{\"type\": [\"10.0.0.0/24\"]}",
          "{\"type\": [{\"cidr\": \"10.0.0.0/24\"}]}",
          "{\"type\": [{\"numeric\": [\">\", 0]}]}",
          "{\"type\": [{\"prefix\": \"com.\"}]}"
        }) {
      assertThatThrownBy(() -> scope.requireSubscribable(Json.parse(bad, "p")))
          .as(bad)
          .isInstanceOf(ForbiddenException.class)
          .satisfies(e -> assertThat(((ForbiddenException) e).field()).isEqualTo("pattern"))
          .satisfies(
              e ->
                  assertThat(e.getMessage()).doesNotContain("VP:", "MatchType", "software.amazon"));
    }
    // Narrowing within the scope is fine, however it is written.
    for (String ok :
        new String[] {
          "{\"$or\": [{\"type\": [\"com.a.x\"]}, {\"type\": [{\"prefix\": \"com.a.y\"}]}]}",
          "{\"type\": [\"com.a.x\"], \"$or\": [{\"source\": [\"s\"]}, {\"subject\": [\"x\"]}]}",
          "{\"$or\": [{\"type\": [\"com.a.x\"], \"source\": [\"s\"]}, {\"type\": [\"com.a.y\"]}]}",
          "{\"type\": [{\"wildcard\": \"com.a.*.created\"}]}",
          "{\"type\": [{\"wildcard\": \"com.a.x\"}]}"
        }) {
      scope.requireSubscribable(Json.parse(ok, "p"));
    }
  }

  /**
   * What Event Ruler does by itself (the reason for the refusal below): a field constrained outside
   * and inside a {@code $or} branch is replaced by the branch, not ANDed, and which one wins
   * depends on the order of the keys.
   */
  @Test
  void eventRulerLetsAnOrBranchReplaceAnOuterConstraintSoSuchPatternsAreRefused() throws Exception {
    var machine = new software.amazon.event.ruler.GenericMachine<String>();
    machine.addRule(
        "widened",
        "{\"type\": [\"com.a.x\"], \"$or\": [{\"type\": [\"com.b.y\"]}, {\"source\": [\"x\"]}]}");
    assertThat(machine.rulesForJSONEvent("{\"type\": \"com.b.y\", \"source\": \"q\"}"))
        .as("Event Ruler's own semantics: the branch replaced type")
        .containsExactly("widened");
    TypeScope scope = TypeScope.of(List.of("com.a.*"), "eventTypes");
    for (String conflicting :
        new String[] {
          "{\"type\": [\"com.a.x\"], \"$or\": [{\"type\": [\"com.b.y\"]}, {\"source\": [\"x\"]}]}",
          "{\"$or\": [{\"type\": [\"com.b.y\"]}, {\"source\": [\"x\"]}], \"type\": [\"com.a.x\"]}",
          "{\"type\": [\"com.a.x\"], \"$or\": [{\"source\": [\"x\"]}, {\"$or\": [{\"type\": [\"com.b.y\"]}, {\"id\": [\"1\"]}]}]}",
          "{\"data\": {\"v\": [1]}, \"$or\": [{\"data\": {\"v\": [2]}}, {\"source\": [\"x\"]}], \"type\": [\"com.a.x\"]}"
        }) {
      assertThatThrownBy(() -> scope.requireSubscribable(Json.parse(conflicting, "p")))
          .as(conflicting)
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("both outside and inside a $or branch");
      assertThatThrownBy(() -> TypeScope.ALL.requireSubscribable(Json.parse(conflicting, "p")))
          .as("refused for everybody, not only scoped callers")
          .isInstanceOf(InvalidInputException.class);
    }
  }
}
