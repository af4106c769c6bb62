package io.activityservice.rules.compile;

import static io.activityservice.rules.TestEvents.event;
import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.rules.Actions;
import io.activityservice.rules.Event;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.drools.kiesession.rulebase.InternalKnowledgeBase;
import org.drools.kiesession.rulebase.KnowledgeBaseFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kie.api.io.ResourceType;
import org.kie.api.runtime.KieSession;
import org.kie.internal.builder.KnowledgeBuilder;
import org.kie.internal.builder.KnowledgeBuilderFactory;
import org.kie.internal.io.ResourceFactory;

/**
 * The control for {@link EscapeCorpusTest}: attempts of the corpus compiled by Drools directly, the
 * way {@link RuleCompiler} did before the guard (same header and footer, no {@link DrlGuard}), and
 * fed one trigger event. They do write the canary file or set the system property, so the corpus
 * attempts are real escapes, not texts that would fail anyway. Only attempts with harmless effects
 * are run here: never {@code System.exit}, {@code halt}, process start, threads, loops or memory
 * bombs.
 *
 * <p>For the classes issue 19 added (declaration code, fact mutation) it shows the second layer:
 * the {@code Event} fact is a read-only view, so without the guard the probes that fetched a URL
 * and emptied the routing JSON through {@code declare} annotations find nothing behind the fact
 * (Drools cannot compile them), and rules that call the data view's mutators compile and run,
 * throw, and leave the routed event unchanged.
 */
class UnguardedControlTest {

  @TempDir Path dir;
  String property;

  @AfterEach
  void clearProperty() {
    if (property != null) {
      System.clearProperty(property);
    }
  }

  @ParameterizedTest(name = "{0} runs without the guard")
  @ValueSource(strings = {"03-files-write-fqn", "04-file-writer", "27-import-file"})
  void writesTheCanaryFile(String id) {
    Path canary = dir.resolve(id + ".canary");
    runUnguarded(EscapeAttempt.named(id), canary, "unused." + id);
    assertThat(canary).exists();
  }

  @ParameterizedTest(name = "{0} runs without the guard")
  @ValueSource(
      strings = {
        "14-system-setproperty",
        "16-fully-qualified-system",
        "17-unicode-escape",
        "18-unicode-newline-in-comment",
        "19-dialect-mvel",
        "20-mvel-property-navigation",
        "21-declare-field-initialiser",
        "22-static-initialiser-breakout",
        "23-function-body",
        "24-eval",
        "25-from-expression",
        "26-accumulate-inline-code",
        "30-kcontext-runtime",
        "32-lambda",
        "39-rule-annotation",
        "41-mvel-with-block",
        "44-local-class"
      })
  void setsTheSystemProperty(String id) {
    property = "unguarded.canary." + id;
    runUnguarded(EscapeAttempt.named(id), dir.resolve("unused"), property);
    assertThat(System.getProperty(property)).isEqualTo("escaped");
  }

  /**
   * Why the guard must run before Drools compiles anything: rule metadata is evaluated while
   * building.
   */
  @Test
  void anAnnotationRunsWhileDroolsCompilesBeforeAnyEvent() {
    property = "unguarded.canary.compile-time";
    EscapeAttempt attempt = EscapeAttempt.named("39-rule-annotation");
    build(attempt.drl(dir.resolve("unused"), property, "unused", 1));
    assertThat(System.getProperty(property)).isEqualTo("escaped");
  }

  @ParameterizedTest(name = "{0} finds nothing behind the fact without the guard")
  @ValueSource(
      strings = {
        "49-declare-timestamp-fetches-url",
        "50-declare-duration-clears-routing-json",
        "56-declared-fields-make-a-fetch-chain",
        "57-declared-fields-make-a-mutation-chain"
      })
  void theIssue19ProbesReachNothingBehindTheReadOnlyFact(String id) {
    String drl = EscapeAttempt.named(id).drl(dir.resolve("unused"), "unused", "unused", 1);
    KnowledgeBuilder builder =
        newBuilder(
            RuleCompiler.HEADER
                + drl
                + (drl.contains("declare Event")
                    ? ""
                    : "\ndeclare Event @role(event) @timestamp(time) end\n"));
    assertThat(builder.getErrors()).as("Drools finds no such member of Event").isNotEmpty();
  }

  @ParameterizedTest(name = "{0} runs without the guard and changes nothing")
  @ValueSource(
      strings = {
        "51-declare-timestamp-clears-data",
        "80-function-clears-data",
        "86-consequence-key-set-remove",
        "88-consequence-compute-if-absent",
        "89-consequence-replace-all"
      })
  void theReadOnlyFactHoldsWithoutTheGuard(String id) {
    EscapeAttempt attempt = EscapeAttempt.named(id);
    String drl = attempt.drl(dir.resolve("unused"), "unused", "unused", 1);
    KnowledgeBuilder builder =
        newBuilder(
            RuleCompiler.HEADER
                + drl
                + (drl.contains("declare Event")
                    ? ""
                    : "\ndeclare Event @role(event) @timestamp(time) end\n"));
    assertThat(builder.getErrors()).as("Drools compiles it").isEmpty();
    InternalKnowledgeBase kieBase = KnowledgeBaseFactory.newKnowledgeBase();
    kieBase.addPackages(builder.getKnowledgePackages());
    KieSession session = kieBase.newKieSession();
    Event trigger =
        event(
            "trigger",
            EscapeAttempt.TRIGGER,
            System.currentTimeMillis(),
            "{\"k\": \"v\", \"items\": [1, 2], \"o\": {\"x\": 1}}");
    String before =
        io.activityservice.events.json.Json.write(
            io.activityservice.rules.EventAccess.routable(trigger).json());
    RuntimeException thrown = null;
    try {
      session.setGlobal("actions", (Actions) (handler, params) -> {});
      session.insert(trigger);
      session.fireAllRules();
    } catch (RuntimeException e) {
      thrown = e;
    } finally {
      session.dispose();
    }
    assertThat(thrown).as("the mutator threw").isNotNull();
    assertThat(
            io.activityservice.events.json.Json.write(
                io.activityservice.rules.EventAccess.routable(trigger).json()))
        .isEqualTo(before);
    assertThat(trigger.getData())
        .containsEntry("k", "v")
        .containsEntry("o", java.util.Map.of("x", 1));
  }

  private static KnowledgeBuilder newBuilder(String source) {
    KnowledgeBuilder builder =
        KnowledgeBuilderFactory.newKnowledgeBuilder(
            KnowledgeBuilderFactory.newKnowledgeBuilderConfiguration(Event.class.getClassLoader()));
    builder.add(
        ResourceFactory.newByteArrayResource(source.getBytes(StandardCharsets.UTF_8)),
        ResourceType.DRL);
    return builder;
  }

  private static void runUnguarded(EscapeAttempt attempt, Path canary, String property) {
    KnowledgeBuilder builder = build(attempt.drl(canary, property, "unguarded-" + attempt.id(), 1));
    InternalKnowledgeBase kieBase = KnowledgeBaseFactory.newKnowledgeBase();
    kieBase.addPackages(builder.getKnowledgePackages());
    KieSession session = kieBase.newKieSession();
    try {
      session.setGlobal("actions", (Actions) (handler, params) -> {});
      session.insert(event("trigger", EscapeAttempt.TRIGGER, System.currentTimeMillis(), "{}"));
      try {
        session.fireAllRules();
      } catch (RuntimeException e) {
        // Some attempts fail after their effect (e.g. a null salience); the effect is what counts.
      }
    } finally {
      session.dispose();
    }
  }

  private static KnowledgeBuilder build(String drl) {
    String source =
        RuleCompiler.HEADER + drl + "\ndeclare Event @role(event) @timestamp(time) end\n";
    KnowledgeBuilder builder =
        KnowledgeBuilderFactory.newKnowledgeBuilder(
            KnowledgeBuilderFactory.newKnowledgeBuilderConfiguration(Event.class.getClassLoader()));
    builder.add(
        ResourceFactory.newByteArrayResource(source.getBytes(StandardCharsets.UTF_8)),
        ResourceType.DRL);
    assertThat(builder.getErrors()).as("Drools compiles it").isEmpty();
    return builder;
  }
}
