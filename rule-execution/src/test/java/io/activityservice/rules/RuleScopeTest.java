package io.activityservice.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import io.activityservice.events.problem.ForbiddenException;
import io.activityservice.events.scope.TypeScope;
import io.activityservice.rules.action.ExecutionRecord;
import io.activityservice.rules.compile.CompiledRule;
import io.activityservice.rules.store.RuleDefinition;
import io.cloudevents.CloudEvent;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Scope widening through what a rule set emits (issue 19), on the real path ({@link
 * RoutingHarness}: ingest, router, dead letters, the real publish and send actions). An author
 * scoped to {@code com.a.*}:
 *
 * <ul>
 *   <li>at deploy time, every rule set that would receive, publish or send outside its scope, or
 *       hide what it emits (computed handler, type, uri or parameters), or send to a broker
 *       channel, is refused with a 403 on {@code drl} naming the line; nothing is stored or
 *       deployed, and an event that would have triggered it leads to no event of another team's
 *       type, while the service still routes;
 *   <li>at emission time, a rule set deployed with the scope (the deploy check bypassed) that
 *       publishes or sends outside it has its event dead-lettered with the reason, never routed,
 *       and the execution recorded as failed;
 *   <li>a stored rule set whose DRL reaches beyond its stored scope is not deployed at start-up.
 * </ul>
 *
 * Unscoped authors keep today's behaviour.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RuleScopeTest {

  static final TypeScope SCOPE_A = TypeScope.of(List.of("com.a.*"), "scope");
  static final String TRIGGER = "com.a.trigger";

  RoutingHarness h;

  @BeforeAll
  void start() {
    h = new RoutingHarness();
  }

  @AfterAll
  void stop() {
    h.close();
  }

  static Stream<Arguments> widening() {
    return Stream.of(
        Arguments.of(
            "publish-other-type",
            """
            rule "r"
            when
              $e : Event( type == "com.a.trigger" )
            then
              actions.run("publish", Map.of("type", "com.b.stolen", "data", Map.of("x", 1)));
            end""",
            "line 5: publish of type com.b.stolen is outside your scope"),
        Arguments.of(
            "send-other-type",
            """
            rule "r"
            when
              $e : Event( type == "com.a.trigger" )
            then
              actions.run("send", Map.of("uri", "http://127.0.0.1:9/hook", "type", "com.b.stolen"));
            end""",
            "line 5: send of type com.b.stolen is outside"),
        Arguments.of(
            "map-of-entries",
            """
            rule "r"
            when
              $e : Event( type == "com.a.trigger" )
            then
              actions.run("publish", Map.ofEntries(Map.entry("type", "com.b.stolen")));
            end""",
            "line 5: publish of type com.b.stolen is outside"),
        Arguments.of(
            "computed-type",
            """
            rule "r"
            when
              $e : Event( type == "com.a.trigger" )
            then
              actions.run("publish", Map.of("type", "com.b." + $e.text("t")));
            end""",
            "line 5: publish with a computed type"),
        Arguments.of(
            "type-from-event-data",
            """
            rule "r"
            when
              $e : Event( type == "com.a.trigger" )
            then
              String t = $e.text("target");
              actions.run("publish", Map.of("type", t));
            end""",
            "line 6: publish with a computed type"),
        Arguments.of(
            "computed-handler",
            """
            rule "r"
            when
              $e : Event( type == "com.a.trigger" )
            then
              actions.run($e.text("h"), Map.of("type", "com.b.stolen"));
            end""",
            "line 5: actions.run(..) with a computed handler"),
        Arguments.of(
            "params-in-a-variable",
            """
            rule "r"
            when
              $e : Event( type == "com.a.trigger" )
            then
              Map p = Map.of("type", "com.b.stolen");
              actions.run("publish", p);
            end""",
            "line 6: publish parameters must be written in the call"),
        Arguments.of(
            "send-to-a-broker-queue",
            """
            rule "r"
            when
              $e : Event( type == "com.a.trigger" )
            then
              actions.run("send", Map.of("uri", "mem:queue.b", "type", "com.a.fine"));
            end""",
            "line 5: send to mem:queue.b: send may only post to http(s) URLs"),
        Arguments.of(
            "send-to-a-computed-uri",
            """
            rule "r"
            when
              $e : Event( type == "com.a.trigger" )
            then
              actions.run("send", Map.of("uri", $e.text("u"), "event", $e));
            end""",
            "line 5: send to a computed uri"),
        Arguments.of(
            "receives-every-type",
            """
            rule "r"
            when
              $e : Event( )
            then
              actions.run("webhook", Map.of("url", "http://127.0.0.1:9/exfiltrate", "event", $e));
            end""",
            "the rule set receives every event type"),
        Arguments.of(
            "receives-another-teams-type",
            """
            rule "r"
            when
              $e : Event( type == "com.b.private" )
            then
              actions.run("webhook", Map.of("url", "http://127.0.0.1:9/exfiltrate", "event", $e));
            end""",
            "the rule set receives com.b.private, outside your scope"),
        Arguments.of(
            "object-pattern",
            """
            rule "r"
            when
              $o : Object( )
            then
              actions.run("log", Map.of("message", "saw one"));
            end""",
            "the rule set receives every event type"),
        Arguments.of(
            "publish-without-type-or-event",
            """
            rule "r"
            when
              $e : Event( type == "com.a.trigger" )
            then
              actions.run("publish", Map.of("data", Map.of()));
            end""",
            "line 5: publish without a literal type"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("widening")
  void aScopedAuthorsRuleSetThatReachesBeyondItsScopeIsRefusedAndEmitsNothing(
      String id, String drl, String reason) {
    String name = "scope-" + id;
    int before = h.routed.size();
    ForbiddenException refused =
        catchThrowableOfType(
            ForbiddenException.class, () -> h.service.create(name, drl, null, SCOPE_A));

    assertThat(refused).as("refused").isNotNull();
    assertThat(refused.field()).isEqualTo("drl");
    assertThat(refused.getMessage()).contains(reason).contains("com.a.*");
    assertThat(h.repository.find(name)).as("stored").isEmpty();
    assertThat(h.engine.deployed(name)).as("deployed").isEmpty();

    String marker = "marker-" + id;
    h.publish(
        "trigger-" + id,
        TRIGGER,
        "{\"t\": \"stolen\", \"target\": \"com.b.stolen\", \"h\": \"publish\","
            + " \"u\": \"mem:queue.b\"}");
    h.publish(marker, "com.b.marker", "{}");
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(3))
        .until(
            () ->
                routedSince(before).stream()
                        .allMatch(
                            e ->
                                e.event().getId().equals(marker)
                                    || e.event().getType().equals(TRIGGER))
                    && h.memory.to("queue.b").isEmpty()
                    && h.webhook.calls.isEmpty());
    assertThat(routedSince(before))
        .as("the service still routes")
        .extracting(e -> e.event().getId())
        .containsExactly("trigger-" + id, marker);
  }

  @Test
  void withinItsScopeAScopedAuthorPublishesAndUnscopedAuthorsKeepTodaysBehaviour() {
    h.service.create(
        "scope-ok",
        """
        rule "r"
        when
          $e : Event( type == "com.a.ok" )
        then
          actions.run("publish", Map.of("type", "com.a.derived", "data", Map.of("from", $e.getId())));
          actions.run("publish", Map.of("event", $e, "source", "/ignored"));
        end""",
        null,
        SCOPE_A);
    assertThat(h.repository.find("scope-ok").orElseThrow().authorScope()).isEqualTo(SCOPE_A);
    h.service.create(
        "admin-rule",
        """
        rule "r"
        when
          $e : Event( type == "com.a.admin" )
        then
          actions.run("publish", Map.of("type", "com.b.by-admin"));
          actions.run("send", Map.of("uri", "mem:queue.admin", "event", $e));
        end""",
        null,
        TypeScope.ALL);
    assertThat(h.repository.find("admin-rule").orElseThrow().authorScope())
        .as("unscoped: stored as NULL")
        .isNull();

    h.publish("ok-1", "com.a.ok", "{}");
    h.publish("admin-1", "com.a.admin", "{}");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                h.routedOf("com.a.derived").size() == 1
                    && h.routedOf("com.b.by-admin").size() == 1
                    && h.memory.to("queue.admin").size() == 1);
    h.service.delete("scope-ok");
    h.service.delete("admin-rule");
  }

  /**
   * The deploy check bypassed: the scope stored with the rule set still holds when its actions
   * emit.
   */
  @Test
  void atEmissionAnEventOutsideTheAuthorsScopeIsDeadLetteredWithTheReasonAndNeverRouted() {
    CompiledRule compiled =
        h.compiler.compile(
            "emit-b",
            """
        rule "publishes b"
        when
          $e : Event( type == "com.a.emit" )
        then
          actions.run("publish", Map.of("type", "com.b.emitted", "id", "pub-" + $e.getId()));
          actions.run("send", Map.of("uri", "mem:queue.a", "type", "com.b.sent", "id", "send-" + $e.getId()));
          actions.run("send", Map.of("uri", "mem:queue.b", "type", "com.a.fine", "id", "queue-" + $e.getId()));
        end""");
    h.engine.deploy(compiled.withAuthorScope(SCOPE_A));

    h.publish("emit-1", "com.a.emit", "{}");
    await().atMost(Duration.ofSeconds(10)).until(() -> h.engine.executions("emit-b").size() == 3);
    List<ExecutionRecord> records = h.engine.executions("emit-b");
    assertThat(records).allSatisfy(r -> assertThat(r.outcome()).isEqualTo("failed"));
    assertThat(records)
        .extracting(ExecutionRecord::error)
        .anySatisfy(
            e ->
                assertThat(e)
                    .contains(
                        "type com.b.emitted is outside the event types the author of rule:emit-b/publish may emit (com.a.*)"));
    assertThat(records)
        .extracting(ExecutionRecord::error)
        .anySatisfy(e -> assertThat(e).contains("type com.b.sent is outside the event types"));
    assertThat(records)
        .extracting(ExecutionRecord::error)
        .anySatisfy(
            e ->
                assertThat(e)
                    .contains("send to mem:queue.b refused")
                    .contains("may send only to http(s) URLs"));
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                deadLetter("pub-emit-1") != null
                    && deadLetter("send-emit-1") != null
                    && deadLetter("queue-emit-1") != null);
    assertThat(deadLetter("pub-emit-1").getExtension("deadletterreason").toString())
        .contains("com.a.*");
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(2))
        .until(
            () ->
                h.routedOf("com.b.").isEmpty()
                    && h.memory.to("queue.b").isEmpty()
                    && h.memory.to("queue.a").isEmpty());
    h.engine.undeploy("emit-b");
  }

  @Test
  void aStoredRuleSetThatReachesBeyondItsStoredScopeIsNotDeployedAtStartUp() {
    OffsetDateTime now = OffsetDateTime.now();
    String name = "stored-" + UUID.randomUUID().toString().substring(0, 8);
    h.repository.insert(
        new RuleDefinition(
            name,
            """
        rule "r"
        when
          $e : Event( type == "com.a.stored" )
        then
          actions.run("publish", Map.of("type", "com.b.from-storage"));
        end""",
            1,
            now,
            now,
            null,
            SCOPE_A));
    h.service.loadAll();
    assertThat(h.engine.deployed(name)).isEmpty();
    assertThat(h.service.get(name).deployed()).isFalse();
    h.publish("stored-1", "com.a.stored", "{}");
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(2))
        .until(() -> h.routedOf("com.b.from-storage").isEmpty());
    h.service.delete(name);
  }

  private List<io.activityservice.events.model.RoutableEvent> routedSince(int index) {
    return List.copyOf(h.routed.subList(index, h.routed.size()));
  }

  private CloudEvent deadLetter(String id) {
    return h.deadLetters().stream().filter(e -> e.getId().equals(id)).findFirst().orElse(null);
  }
}
