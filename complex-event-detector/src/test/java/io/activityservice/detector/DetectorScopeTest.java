package io.activityservice.detector;

import static io.activityservice.detector.Harness.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import io.activityservice.detector.internal.DetectorRepository;
import io.activityservice.events.problem.ForbiddenException;
import io.activityservice.events.scope.TypeScope;
import io.cloudevents.CloudEvent;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Scope widening through what a detector emits or reads (issue 19), on the real path ({@link
 * Harness}). An author scoped to {@code com.a.*} is refused (403) a detector whose {@code emits} or
 * any input lies outside the scope, before anything is compiled; nothing is stored or deployed and
 * no event of another team's type is derived. A detector deployed with the scope whose derived
 * events fall outside it anyway (the deploy check bypassed) has them dead-lettered with the reason,
 * never routed; a stored one is not deployed at start-up. Unscoped authors keep today's behaviour.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DetectorScopeTest {

  static final TypeScope SCOPE_A = TypeScope.of(List.of("com.a.*"), "scope");

  Harness h;

  @BeforeAll
  void start() {
    h = new Harness(8);
    for (String type : List.of("com.a.reading", "com.b.reading")) {
      h.registry.create(type, "readings", null, null);
    }
  }

  @AfterAll
  void stop() {
    h.close();
  }

  static Stream<Arguments> widening() {
    return Stream.of(
        Arguments.of(
            "emits-another-teams-type",
            Map.of("R", "com.a.reading"),
            "com.b.alert",
            "emits",
            "type com.b.alert is outside the event types your credentials may use (com.a.*)"),
        Arguments.of(
            "emits-a-prefix-lookalike",
            Map.of("R", "com.a.reading"),
            "com.ab.alert",
            "emits",
            "type com.ab.alert is outside"),
        Arguments.of(
            "reads-another-teams-type",
            Map.of("R", "com.b.reading"),
            "com.a.alert",
            "inputs.R",
            "type com.b.reading is outside the event types your credentials may use (com.a.*)"),
        Arguments.of(
            "joins-another-teams-type",
            Map.of("A", "com.a.reading", "B", "com.b.reading"),
            "com.a.alert",
            "inputs.B",
            "type com.b.reading is outside"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("widening")
  void aScopedAuthorsDetectorBeyondItsScopeIsRefusedAndDerivesNothing(
      String id, Map<String, String> inputs, String emits, String field, String reason) {
    String name = "scope-" + id;
    String epl =
        inputs.size() == 1
            ? "select id as readingId from R"
            : "select a.id as readingId from pattern " + "[every a=A -> B]";
    ForbiddenException refused =
        catchThrowableOfType(
            ForbiddenException.class,
            () -> h.service.create(name, inputs, epl, emits, ClockMode.EVENT_TIME, null, SCOPE_A));

    assertThat(refused).as("refused").isNotNull();
    assertThat(refused.field()).isEqualTo(field);
    assertThat(refused.getMessage()).contains(reason);
    assertThat(h.service.list()).extracting(s -> s.definition().name()).doesNotContain(name);
    assertThat(h.engine.stats(name)).isNull();

    h.publish(id + "-a", "com.a.reading", "/meters/m1", T0, "{\"value\": 1}");
    h.publish(id + "-b", "com.b.reading", "/meters/m1", T0.plusSeconds(1), "{\"value\": 2}");
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(3))
        .until(() -> h.routedOf(emits).isEmpty());
    assertThat(h.routed)
        .as("the service still routes")
        .extracting(e -> e.event().getId())
        .contains(id + "-a", id + "-b");
  }

  @Test
  void withinItsScopeAScopedAuthorsDetectorRunsAndUnscopedAuthorsKeepTodaysBehaviour() {
    h.service.create(
        "scoped-ok",
        Map.of("R", "com.a.reading"),
        "select id as readingId from R",
        "com.a.alert",
        ClockMode.EVENT_TIME,
        null,
        SCOPE_A);
    assertThat(h.service.get("scoped-ok").definition().authorScope()).isEqualTo(SCOPE_A);
    h.service.create(
        "admin-any",
        Map.of("R", "com.a.reading"),
        "select id as readingId from R",
        "com.b.by-admin",
        ClockMode.EVENT_TIME,
        null,
        TypeScope.ALL);
    assertThat(h.service.get("admin-any").definition().authorScope())
        .as("unscoped: stored as NULL")
        .isNull();
    h.publish("ok-1", "com.a.reading", "/meters/m1", T0, "{\"value\": 1}");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                h.routedOf("com.a.alert").size() == 1 && h.routedOf("com.b.by-admin").size() == 1);
    h.service.delete("scoped-ok");
    h.service.delete("admin-any");
  }

  /** The deploy check bypassed: every derived event is checked against the author's scope again. */
  @Test
  void atEmissionADerivedEventOutsideTheAuthorsScopeIsDeadLetteredWithTheReasonAndNeverRouted() {
    h.engine.deploy(
        new DetectorDefinition(
            "bypass",
            Map.of("R", "com.a.reading"),
            "select id as readingId from R",
            "com.b.smuggled",
            ClockMode.EVENT_TIME,
            OffsetDateTime.now(),
            null,
            SCOPE_A));
    h.publish("smuggle-1", "com.a.reading", "/meters/m1", T0, "{\"value\": 1}");
    await().atMost(Duration.ofSeconds(10)).until(() -> deadLetter("com.b.smuggled") != null);
    assertThat(deadLetter("com.b.smuggled").getExtension("deadletterreason").toString())
        .contains(
            "type com.b.smuggled is outside the event types the author of detector:bypass may emit (com.a.*)");
    assertThat(deadLetter("com.b.smuggled").getExtension("deadlettertarget"))
        .isEqualTo("detector:bypass");
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(2))
        .until(() -> h.routedOf("com.b.smuggled").isEmpty());
    h.engine.undeploy("bypass");
  }

  @Test
  void aStoredDetectorBeyondItsStoredScopeIsNotDeployedAtStartUp() {
    new DetectorRepository(h.jdbc)
        .insert(
            new DetectorDefinition(
                "stored-beyond",
                Map.of("R", "com.a.reading"),
                "select id as readingId from R",
                "com.b.from-storage",
                ClockMode.EVENT_TIME,
                OffsetDateTime.now(),
                null,
                SCOPE_A));
    h.service.loadAll();
    DetectorService.Status status = h.service.get("stored-beyond");
    assertThat(status.state()).isEqualTo("failed");
    assertThat(status.error()).contains("com.b.from-storage is outside");
    assertThat(h.engine.stats("stored-beyond")).isNull();
    h.publish("stored-1", "com.a.reading", "/meters/m1", T0, "{\"value\": 1}");
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(2))
        .until(() -> h.routedOf("com.b.from-storage").isEmpty());
    h.service.delete("stored-beyond");
  }

  private CloudEvent deadLetter(String type) {
    return h.memory.sent.stream().filter(e -> e.getType().equals(type)).findFirst().orElse(null);
  }
}
