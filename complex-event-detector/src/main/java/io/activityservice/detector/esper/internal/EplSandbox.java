package io.activityservice.detector.esper.internal;

import com.espertech.esper.common.client.configuration.Configuration;
import com.espertech.esper.common.client.util.ClassForNameProvider;
import com.espertech.esper.common.client.util.ClassLoaderProvider;
import com.espertech.esper.compiler.client.CompilerArguments;
import java.time.Duration;
import java.util.Set;

/**
 * The sandbox detectors run in, in layers, so that a gap in one is caught by the next:
 *
 * <ol>
 *   <li>{@link EplGuard}: the statement's structure, against {@link EplAllowList}, before anything
 *       is compiled;
 *   <li>the compiler configuration: no inlined classes, no scripts, imports reduced to {@code
 *       java.lang.Math} and {@code java.math}, class names resolved by {@link
 *       AllowListClassForNameProvider} only;
 *   <li>{@link SandboxClassLoader} as the class loader generated code is compiled and run against;
 *   <li>{@link GeneratedCodeCheck} on the bytecode the compiler produced, before it is ever loaded;
 *   <li>runtime bounds: pattern sub-expressions and match-recognize states per detector, reported
 *       by {@link LimitConditionLog}.
 * </ol>
 *
 * Layers 2, 3 and 5 live in the {@link Configuration}, which the detector's runtime is created with
 * too.
 */
public final class EplSandbox {

  private final EplGuard guard;
  private final long maxPatternSubexpressions;
  private final long maxMatchRecognizeStates;
  private final ClassLoaderProvider classLoader;
  private final ClassForNameProvider classForName = AllowListClassForNameProvider.forDetectors();

  /**
   * @param maxWindowEvents see {@link EplGuard}
   * @param maxWindowTime see {@link EplGuard}
   * @param maxPatternSubexpressions pattern sub-expressions alive at once per detector; further
   *     ones do not start
   * @param maxMatchRecognizeStates match-recognize states alive at once per detector; further ones
   *     do not start
   */
  public EplSandbox(
      long maxWindowEvents,
      Duration maxWindowTime,
      long maxPatternSubexpressions,
      long maxMatchRecognizeStates) {
    this.guard = new EplGuard(maxWindowEvents, maxWindowTime);
    this.maxPatternSubexpressions = maxPatternSubexpressions;
    this.maxMatchRecognizeStates = maxMatchRecognizeStates;
    SandboxClassLoader loader = new SandboxClassLoader(EplSandbox.class.getClassLoader());
    this.classLoader = () -> loader;
  }

  /**
   * Layer 1: checks the EPL's structure.
   *
   * @throws io.activityservice.events.problem.InvalidInputException field {@code epl}
   * @see EplGuard#check
   */
  public void check(String epl, Set<String> inputAliases, Set<String> eventProperties) {
    guard.check(epl, inputAliases, eventProperties);
  }

  /**
   * Layers 2, 3 and 5: hardens a detector's configuration, used to compile it and to create its
   * runtime.
   */
  public void configure(Configuration configuration) {
    configuration.getCompiler().getByteCode().setAllowInlinedClass(false);
    configuration.getCompiler().getByteCode().setAllowSubscriber(false);
    configuration.getCompiler().getScripts().setEnabled(false);
    configuration.getCommon().getImports().clear();
    configuration.getCommon().getImports().addAll(EplAllowList.IMPORTS);
    configuration.getCommon().getAnnotationImports().clear();
    configuration.getCommon().getEventTypeAutoNamePackages().clear();
    configuration
        .getCommon()
        .getTransientConfiguration()
        .put(ClassForNameProvider.NAME, classForName);
    configuration
        .getCommon()
        .getTransientConfiguration()
        .put(ClassLoaderProvider.NAME, classLoader);
    configuration.getRuntime().getPatterns().setMaxSubexpressions(maxPatternSubexpressions);
    configuration.getRuntime().getPatterns().setMaxSubexpressionPreventStart(true);
    configuration.getRuntime().getMatchRecognize().setMaxStates(maxMatchRecognizeStates);
    configuration.getRuntime().getMatchRecognize().setMaxStatesPreventStart(true);
    configuration.getRuntime().getConditionHandling().addClass(LimitConditionLog.class);
  }

  /**
   * Layer 4 for classes compiled elsewhere (another replica's compiled form): the same
   * generated-code check the compiler hook runs, before any of them is loaded.
   *
   * @throws IllegalStateException naming what a class would use
   */
  public void checkCompiled(java.util.Map<String, byte[]> classes) {
    for (java.util.Map.Entry<String, byte[]> c : classes.entrySet()) {
      String refusal = GeneratedCodeCheck.refusal(c.getKey(), c.getValue());
      if (refusal != null) {
        throw new IllegalStateException(
            "the detector sandbox refused the compiled form: " + refusal);
      }
    }
  }

  /** Layer 4: compiler arguments for a configured configuration, with the generated-code check. */
  public CompilerArguments compilerArguments(Configuration configuration) {
    CompilerArguments arguments = new CompilerArguments(configuration);
    arguments.getOptions().setCompilerHook(new GeneratedCodeCheck());
    arguments
        .getOptions()
        .setInlinedClassInspection(
            env -> {
              throw new IllegalStateException(
                  "the detector sandbox refused the EPL: inlined classes are disabled");
            });
    return arguments;
  }
}
