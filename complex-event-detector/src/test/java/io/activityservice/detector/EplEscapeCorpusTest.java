package io.activityservice.detector;

import static io.activityservice.detector.Harness.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.activityservice.events.problem.InvalidInputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every attempt of the escape corpus, submitted through {@link DetectorService} as the REST API
 * does, is refused with a 400 on {@code epl} naming the construct, and nothing runs: events of the
 * input type are published afterwards, and the attempt's canaries (a directory that must stay
 * empty, a system property, a class that must not be initialised, derived events) stay untouched;
 * what subscribers receive (the routed events) and what other detectors see of those events (two
 * witness detectors that emit their inputs' data) is unchanged. {@code EplSandboxLayersTest} shows
 * that the raw engine does run the attempts marked {@code control}, so these canaries would fire
 * without the sandbox.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EplEscapeCorpusTest {

  static final String READING = "com.example.meter.reading";
  static final String UNTYPED = "com.example.escape.untyped";

  Harness h;
  @TempDir Path canaries;

  @BeforeAll
  void start() throws Exception {
    h = new Harness(8);
    h.registerExampleTypes();
    h.registry.create(UNTYPED, "events without a schema", null, null);
    h.service.create(
        "witness-typed", Map.of("R", READING), "select id, data from R", WITNESS + "typed", null);
    h.service.create(
        "witness-untyped",
        Map.of("U", UNTYPED),
        "select id, data from U",
        WITNESS + "untyped",
        null);
  }

  static final String WITNESS = "com.example.escape.witness.";

  @AfterAll
  void stop() {
    h.close();
  }

  static Stream<EscapeCorpus.Attempt> attempts() {
    return EscapeCorpus.load().stream();
  }

  @Test
  void theCorpusHoldsAtLeast85AttemptsAndSomeRunWithoutTheSandbox() {
    List<EscapeCorpus.Attempt> all = EscapeCorpus.load();
    assertThat(all).hasSizeGreaterThanOrEqualTo(85);
    assertThat(all).extracting(EscapeCorpus.Attempt::id).doesNotHaveDuplicates();
    assertThat(all).filteredOn(EscapeCorpus.Attempt::control).hasSizeGreaterThanOrEqualTo(5);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("attempts")
  void isRefusedNamingTheConstructAndNothingRuns(EscapeCorpus.Attempt attempt) throws IOException {
    Path dir = Files.createDirectories(canaries.resolve(attempt.id()));
    String property = EscapeCorpus.property(attempt);
    String name = "escape-" + attempt.id();
    String emits = "com.example.escape.out." + attempt.id();
    String input = attempt.input().equals("U") ? UNTYPED : READING;
    String epl = attempt.epl(dir, property, EscapeCanary.Corpus.class);

    assertThatThrownBy(
            () -> h.service.create(name, Map.of(attempt.input(), input), epl, emits, null))
        .as(attempt.description())
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> {
              assertThat(e.errors()).hasSize(1);
              assertThat(e.errors().get(0).field()).isEqualTo("epl");
              assertThat(e.errors().get(0).reason()).containsIgnoringCase(attempt.refusal());
            });

    // had it been deployed, these events would have run it
    String first = "{\"meter\":\"m1\",\"value\":60,\"x\":\"s\",\"items\":[1,2]}";
    String second = "{\"meter\":\"m1\",\"value\":70}";
    h.publish(attempt.id() + "-1", input, "/meters/m1", T0, first);
    h.publish(attempt.id() + "-2", input, "/meters/m1", T0.plusSeconds(1), second);
    String witness = WITNESS + (input.equals(UNTYPED) ? "untyped" : "typed");
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                isEmpty(dir)
                    && System.getProperty(property) == null
                    && !EscapeCanary.initialised(EscapeCanary.Corpus.class)
                    && h.routedOf(emits).isEmpty()
                    && witnessed(witness, attempt.id() + "-1") != null
                    && witnessed(witness, attempt.id() + "-2") != null);
    assertThat(Harness.data(routed(attempt.id() + "-1")))
        .as("what subscribers receive")
        .isEqualTo(first);
    assertThat(Harness.data(routed(attempt.id() + "-2"))).isEqualTo(second);
    assertThat(witnessed(witness, attempt.id() + "-1").path("data").path("meter").asText())
        .isEqualTo("m1");
    assertThat(witnessed(witness, attempt.id() + "-1").path("data").path("value").asDouble())
        .isEqualTo(60.0);
    assertThat(witnessed(witness, attempt.id() + "-2").path("data").path("value").asDouble())
        .isEqualTo(70.0);
    assertThat(h.service.list()).extracting(s -> s.definition().name()).doesNotContain(name);
    assertThat(h.engine.stats(name)).isNull();
    assertThat(h.engine.consumersOf(input)).doesNotContain(name);
  }

  @Test
  void allowedDetectorsStillRunMathStringEnumerationAndMapConstructors() {
    h.service.create(
        "allowed",
        Map.of("R", READING),
        "select Math.round(data.value * 10) / 10.0 as rounded, "
            + "data.meter.toUpperCase() as meter, new { v = data.value, m = data.meter.substring(1) } as map, "
            + "window(*).where(r => r.data.value > 50).countOf() as above, cast(data.value, int) as i "
            + "from R#length(3)",
        "com.example.allowed.out",
        ClockMode.EVENT_TIME);
    h.publish("ok-1", READING, "/meters/m1", T0, "{\"meter\": \"m1\", \"value\": 60.04}");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> h.routedOf("com.example.allowed.out").size() == 1);
    assertThat(Harness.data(h.routedOf("com.example.allowed.out").get(0)))
        .isEqualTo(
            "{\"rounded\":60.0,\"meter\":\"M1\",\"map\":{\"v\":60.04,\"m\":\"1\"},\"above\":1,\"i\":60}");
    h.service.delete("allowed");
  }

  @Test
  void stringLiteralsCannotInjectCodeIntoWhatEsperGenerates() {
    // Esper turns EPL into Java source for Janino: quotes, unicode escapes and comment markers in a
    // string
    // literal must stay data (and the loader and generated-code check would refuse System calls
    // besides)
    String property = "escape.property.string-injection";
    String epl =
        "select 'x\\u0022+java.lang.System.setProperty(\\u0022"
            + property
            + "\\u0022,\\u0022a\\u0022)+"
            + "\\u0022' as a, \"x\\\"+java.lang.System.setProperty(\\\""
            + property
            + "\\\",\\\"b\\\")+\\\"\" as b, "
            + "'*/ static { java.lang.System.setProperty(\""
            + property
            + "\", \"c\"); } /*' as c from R";
    h.service.create(
        "strings", Map.of("R", READING), epl, "com.example.strings.out", ClockMode.EVENT_TIME);
    h.publish("s-1", READING, "/meters/m1", T0, "{\"meter\": \"m1\", \"value\": 1}");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> h.routedOf("com.example.strings.out").size() == 1);
    assertThat(Harness.data(h.routedOf("com.example.strings.out").get(0)))
        .contains("java.lang.System.setProperty")
        .contains("static {");
    assertThat(System.getProperty(property)).isNull();
    h.service.delete("strings");
  }

  @Test
  void windowBoundsAreInclusiveAndNameTheLimit() {
    h.service.create(
        "largest",
        Map.of("R", READING),
        "select count(*) as c from R#length(100000)#time(24 hours)",
        "com.example.largest.out",
        ClockMode.EVENT_TIME);
    h.service.delete("largest");
    assertThatThrownBy(
            () ->
                h.service.create(
                    "too-large",
                    Map.of("R", READING),
                    "select count(*) as c\nfrom R#time(24 hours 1 sec)",
                    "x.y",
                    null))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e ->
                assertThat(e.errors().get(0).reason())
                    .isEqualTo(
                        "line 2, column 8: #time window size 24 hours 1 seconds is above the limit of PT24H"));
  }

  private io.activityservice.events.model.RoutableEvent routed(String id) {
    return h.routed.stream().filter(e -> e.event().getId().equals(id)).findFirst().orElseThrow();
  }

  /** The data a witness detector derived from the input event {@code id}, or null. */
  private com.fasterxml.jackson.databind.JsonNode witnessed(String witness, String id) {
    return h.routedOf(witness).stream()
        .map(e -> e.data())
        .filter(d -> id.equals(d.path("id").asText()))
        .findFirst()
        .orElse(null);
  }

  private static boolean isEmpty(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.findAny().isEmpty();
    }
  }
}
