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
    TypeScope scope = TypeScope.of(List.of("com.example.meter.*", "org.acme.invoice"), "eventTypes");
    assertThat(scope.allows("com.example.meter.reading")).isTrue();
    assertThat(scope.allows("com.example.meter.")).isTrue();
    assertThat(scope.allows("com.example.meters")).isFalse();
    assertThat(scope.allows("org.acme.invoice")).isTrue();
    assertThat(scope.allows("org.acme.invoice.paid")).isFalse();
    assertThat(scope.allows(null)).isFalse();
    assertThat(scope.coversPrefix("com.example.meter.gas.")).isTrue();
    assertThat(scope.coversPrefix("com.example.")).isFalse();
    assertThat(scope.coversPrefix("org.acme.invoice")).as("an exact type covers no prefix").isFalse();
    assertThat(TypeScope.of(List.of("*"), "t").allows("anything")).isTrue();
    assertThat(TypeScope.of(List.of(), "t").allows("anything")).isFalse();
    assertThat(scope.toString()).isEqualTo("com.example.meter.*, org.acme.invoice");
  }

  @Test
  void invalidPatternsAre400NamingTheEntry() {
    for (String bad : new String[] {" ", "com.*.reading", "a b", "x".repeat(256)}) {
      assertThatThrownBy(() -> TypeScope.of(List.of("ok", bad), "eventTypes"))
          .isInstanceOf(InvalidInputException.class).hasMessageStartingWith("eventTypes[1]:");
    }
    assertThat(TypeScope.lenient(List.of("ok.*", "bad*x", " ")).patterns()).containsExactly("ok.*");
  }

  @Test
  void subscriptionPatternsMustPinTypeWithinTheScope() {
    TypeScope scope = TypeScope.of(List.of("com.example.meter.*"), "eventTypes");
    scope.requireSubscribable(Json.parse("{\"type\": [\"com.example.meter.reading\"], \"data\": {\"v\": [1]}}", "p"));
    scope.requireSubscribable(Json.parse("{\"type\": [{\"prefix\": \"com.example.meter.gas\"}],"
        + " \"$or\": [{\"type\": [\"x\"]}, {\"source\": [\"/y\"]}]}", "p"));
    for (String bad : new String[] {"{}", "{\"source\": [\"/x\"]}", "{\"type\": [\"com.example.other\"]}",
        "{\"type\": [{\"prefix\": \"com.\"}]}", "{\"type\": [{\"equals-ignore-case\": \"com.example.meter.x\"}]}",
        "{\"type\": [{\"prefix\": \"com.example.meter.\", \"x\": 1}]}", "{\"type\": [12]}", "[]"}) {
      assertThatThrownBy(() -> scope.requireSubscribable(Json.parse(bad, "p"))).as(bad)
          .isInstanceOf(ForbiddenException.class)
          .satisfies(e -> assertThat(((ForbiddenException) e).field()).isEqualTo("pattern"));
    }
    assertThatThrownBy(() -> scope.requireSubscribable(null)).isInstanceOf(ForbiddenException.class);
    TypeScope.ALL.requireSubscribable(null);
  }
}
