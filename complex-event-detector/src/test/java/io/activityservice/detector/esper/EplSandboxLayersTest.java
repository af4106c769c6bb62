package io.activityservice.detector.esper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.espertech.esper.common.client.EPCompiled;
import com.espertech.esper.common.client.EventBean;
import com.espertech.esper.common.client.configuration.Configuration;
import com.espertech.esper.compiler.client.CompilerArguments;
import com.espertech.esper.compiler.client.EPCompileException;
import com.espertech.esper.compiler.client.EPCompilerProvider;
import com.espertech.esper.runtime.client.EPDeployException;
import com.espertech.esper.runtime.client.EPRuntime;
import com.espertech.esper.runtime.client.EPRuntimeProvider;
import com.espertech.esper.runtime.client.EPStatement;
import io.activityservice.detector.EscapeCanary;
import io.activityservice.detector.EscapeCorpus;
import io.activityservice.detector.esper.internal.EplSandbox;
import io.activityservice.detector.esper.internal.GeneratedCodeCheck;
import io.activityservice.events.json.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The escape corpus below the guard, on Esper directly (a test-only path around {@link
 * EsperDetectorEngine}):
 *
 * <ul>
 *   <li>the control: Esper's default configuration, no sandbox, runs the attempts marked {@code
 *       control} and their side effects happen, so the corpus is real;
 *   <li>defence in depth: with the sandbox's configuration (class resolution, class loader,
 *       generated-code check, no inlined classes or scripts) but <em>without</em> {@code EplGuard},
 *       no attempt that targets a Java side effect gets to cause it; attempts that would stop the
 *       JVM are left out of this path;
 *   <li>each configuration layer on its own: the generated-code check without the rest, and the
 *       runtime class loader refusing code compiled without any sandbox.
 * </ul>
 */
class EplSandboxLayersTest {

  static final InputType TYPED =
      new InputType(
          Json.parse(
              """
      {"type": "object", "properties": {"meter": {"type": "string"}, "value": {"type": "number"}}}""",
              "schema"));

  @TempDir Path canaries;

  static Stream<EscapeCorpus.Attempt> controls() {
    return EscapeCorpus.load().stream().filter(EscapeCorpus.Attempt::control);
  }

  static Stream<EscapeCorpus.Attempt> javaEffects() {
    return EscapeCorpus.load().stream().filter(EscapeCorpus.Attempt::javaEffect);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("controls")
  void withoutTheSandboxTheControlAttemptsRun(EscapeCorpus.Attempt attempt) throws Exception {
    String property = EscapeCorpus.property(attempt);
    try {
      List<Map<String, Object>> rows =
          run(
              attempt,
              property,
              EscapeCanary.Control.class,
              configuration -> {},
              CompilerArguments::new);
      switch (attempt.effect()) {
        case "file", "process" ->
            await().atMost(Duration.ofSeconds(10)).until(() -> !isEmpty(canaries));
        case "property" -> assertThat(System.getProperty(property)).isNotNull();
        case "class-init" ->
            assertThat(EscapeCanary.initialised(EscapeCanary.Control.class)).isTrue();
        case "row" ->
            assertThat(rows)
                .isNotEmpty()
                .allSatisfy(r -> assertThat(r.values()).doesNotContainNull());
        default -> throw new AssertionError("no control for effect " + attempt.effect());
      }
    } finally {
      System.clearProperty(property);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("javaEffects")
  void theSandboxConfigurationAloneStopsEveryJavaSideEffect(EscapeCorpus.Attempt attempt)
      throws Exception {
    String property = EscapeCorpus.property(attempt);
    EplSandbox sandbox = new EplSandbox(100_000, Duration.ofHours(24), 10_000, 10_000);
    try {
      run(
          attempt,
          property,
          EscapeCanary.Layers.class,
          sandbox::configure,
          sandbox::compilerArguments);
    } catch (EPCompileException refused) {
      // refused by a configuration layer: fine, as long as nothing ran meanwhile
    }
    await()
        .during(Duration.ofMillis(200))
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                isEmpty(canaries)
                    && System.getProperty(property) == null
                    && !EscapeCanary.initialised(EscapeCanary.Layers.class));
  }

  @Test
  void theGeneratedCodeCheckAloneRefusesDangerousCallsBeforeTheyCanRun() {
    for (String[] c :
        new String[][] {
          {
            "select java.lang.System.setProperty('escape.gcc', 'x') as r from R",
            "java.lang.System.setProperty()"
          },
          {"select java.lang.Runtime.getRuntime().exec('true') as r from R", "java.lang.Runtime"},
          {
            "select id.getClass().forName('java.lang.String') as r from R",
            "java.lang.Class.forName()"
          },
          {"select id.getClass().getClassLoader() as r from R", "java.lang.ClassLoader"},
          {
            "select java.lang.Integer.getInteger('java.version') as r from R",
            "java.lang.Integer.getInteger()"
          }
        }) {
      Configuration configuration = configuration(config -> {});
      CompilerArguments arguments = new CompilerArguments(configuration);
      arguments.getOptions().setCompilerHook(new GeneratedCodeCheck());
      assertThatThrownBy(() -> EPCompilerProvider.getCompiler().compile(c[0], arguments))
          .as(c[0])
          .isInstanceOf(EPCompileException.class)
          .hasMessageContaining("the detector sandbox refused the EPL")
          .hasMessageContaining(c[1]);
    }
    assertThat(System.getProperty("escape.gcc")).isNull();
  }

  @Test
  void theRuntimeClassLoaderRefusesCodeCompiledWithoutTheSandbox() throws Exception {
    EplSandbox sandbox = new EplSandbox(100_000, Duration.ofHours(24), 10_000, 10_000);
    for (String epl :
        new String[] {
          "select java.lang.Runtime.getRuntime().exec('touch " + canaries + "/exec') as r from R",
          "select new java.io.File('" + canaries + "/file').createNewFile() as r from R",
          "select java.nio.file.Files.createFile(java.nio.file.Paths.get('"
              + canaries
              + "/files')) as r from R"
        }) {
      EPCompiled compiled =
          EPCompilerProvider.getCompiler()
              .compile(epl, new CompilerArguments(configuration(c -> {})));
      EPRuntime runtime =
          EPRuntimeProvider.getRuntime(
              "escape-" + UUID.randomUUID(), configuration(sandbox::configure));
      List<Object> results = new CopyOnWriteArrayList<>();
      try {
        runtime
            .getDeploymentService()
            .deploy(compiled)
            .getStatements()[0]
            .addListener((in, out, st, rt) -> results.add(in[0].get("r")));
        // deployed: the refused class is linked when the statement first needs it; Esper logs the
        // error and the
        // event produces no row
        runtime.getEventService().sendEventMap(event(0), "R");
        assertThat(results).as(epl).isEmpty();
      } catch (EPDeployException refused) {
        assertThat(refused).as(epl).hasMessageContaining("NoClassDefFoundError");
      } finally {
        runtime.destroy();
      }
    }
    await()
        .during(Duration.ofMillis(200))
        .atMost(Duration.ofSeconds(5))
        .until(() -> isEmpty(canaries));
  }

  /** Compiles and deploys an attempt, sends two events, and returns the rows it produced. */
  private List<Map<String, Object>> run(
      EscapeCorpus.Attempt attempt,
      String property,
      Class<?> canary,
      Consumer<Configuration> configure,
      java.util.function.Function<Configuration, CompilerArguments> arguments)
      throws Exception {
    Configuration configuration = configuration(configure);
    EPCompiled compiled =
        EPCompilerProvider.getCompiler()
            .compile(attempt.epl(canaries, property, canary), arguments.apply(configuration));
    EPRuntime runtime = EPRuntimeProvider.getRuntime("escape-" + UUID.randomUUID(), configuration);
    List<Map<String, Object>> rows = new CopyOnWriteArrayList<>();
    try {
      EPStatement[] statements = runtime.getDeploymentService().deploy(compiled).getStatements();
      statements[statements.length - 1].addListener(
          (in, out, s, r) -> {
            for (EventBean row : in == null ? new EventBean[0] : in) {
              Map<String, Object> values = new HashMap<>();
              for (String p : row.getEventType().getPropertyNames()) {
                values.put(p, row.get(p));
              }
              rows.add(values);
            }
          });
      for (int i = 0; i < 2; i++) {
        runtime.getEventService().sendEventMap(event(i), attempt.input());
      }
    } finally {
      runtime.destroy();
    }
    return rows;
  }

  private static Configuration configuration(Consumer<Configuration> configure) {
    Configuration configuration = new Configuration();
    configuration.getCommon().addEventType("R", TYPED.definition());
    configuration.getCommon().addEventType("U", InputType.UNTYPED.definition());
    configuration.getRuntime().getThreading().setInternalTimerEnabled(false);
    configure.accept(configuration);
    return configuration;
  }

  private static Map<String, Object> event(int i) {
    Map<String, Object> data = new HashMap<>(Map.of("meter", "m1", "value", 60.0 + i, "x", "s"));
    Map<String, Object> e = new HashMap<>();
    e.put("id", "e" + i);
    e.put("source", "/meters/m1");
    e.put("type", "t");
    e.put("time", 0L);
    e.put("hopcount", 0);
    e.put("extensions", new HashMap<>());
    e.put("data", data);
    return e;
  }

  private static boolean isEmpty(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.findAny().isEmpty();
    }
  }
}
