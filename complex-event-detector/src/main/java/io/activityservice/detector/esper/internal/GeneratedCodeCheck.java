package io.activityservice.detector.esper.internal;

import com.espertech.esper.common.internal.bytecodemodel.core.CodegenClass;
import com.espertech.esper.common.internal.compile.compiler.CompilerAbstraction;
import com.espertech.esper.common.internal.compile.compiler.CompilerAbstractionClassCollection;
import com.espertech.esper.common.internal.compile.compiler.CompilerAbstractionCompilationContext;
import com.espertech.esper.common.internal.compile.compiler.CompilerAbstractionCompileSourcesResult;
import com.espertech.esper.compiler.client.option.CompilerHookContext;
import com.espertech.esper.compiler.client.option.CompilerHookOption;
import com.espertech.esper.compiler.internal.compiler.abstraction.CompilerAbstractionJanino;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The last compile-time layer: a compiler hook ({@link CompilerHookOption}) around Esper's Janino
 * compiler that reads the constant pool of every class the compiler produces and refuses the module
 * if one names a class {@link SandboxClassLoader} refuses, calls a dangerous method of a class
 * generated code needs ({@code Class.forName}, {@code Class.getClassLoader}, reflective look-ups,
 * {@code System} beyond {@code arraycopy} and the clocks), or uses method handles or invokedynamic
 * (which Esper's generated code never does). The check runs before any generated class is loaded:
 * compiled code is only loaded at deployment. Inlined classes (compiled from source) are refused
 * outright.
 *
 * <p>Uses Esper-internal types ({@code CompilerAbstraction}, {@code CompilerAbstractionJanino}),
 * which the public {@code CompilerOptions.setCompilerHook} is declared with; they are pinned by the
 * Esper version.
 */
public final class GeneratedCodeCheck implements CompilerHookOption {

  /** Methods refused on classes that generated code must be able to load. */
  static final Map<String, Set<String>> REFUSED_METHODS =
      Map.of(
          // these three read system properties
          "java.lang.Integer",
          Set.of("getInteger"),
          "java.lang.Long",
          Set.of("getLong"),
          "java.lang.Boolean",
          Set.of("getBoolean"),
          "java.lang.Class",
          Set.of(
              "forName",
              "getClassLoader",
              "newInstance",
              "getMethod",
              "getMethods",
              "getDeclaredMethod",
              "getDeclaredMethods",
              "getConstructor",
              "getConstructors",
              "getDeclaredConstructor",
              "getDeclaredConstructors",
              "getField",
              "getFields",
              "getDeclaredField",
              "getDeclaredFields",
              "getResource",
              "getResourceAsStream",
              "getModule",
              "getProtectionDomain",
              "getNestHost",
              "getNestMembers",
              "getRecordComponents",
              "getEnclosingMethod",
              "getEnclosingConstructor",
              "getDeclaredClasses",
              "getClasses",
              "getPermittedSubclasses",
              "getSigners"));

  /** The only {@code java.lang.System} methods generated code may call. */
  static final Set<String> SYSTEM_METHODS =
      Set.of("arraycopy", "currentTimeMillis", "nanoTime", "identityHashCode", "lineSeparator");

  @Override
  public CompilerAbstraction getValue(CompilerHookContext env) {
    return new Checking();
  }

  /**
   * Why a class file is refused, or null.
   *
   * @param name the class's name, for the message
   * @param classFile its bytes
   */
  static String refusal(String name, byte[] classFile) {
    ClassFileReferences refs = ClassFileReferences.of(classFile);
    for (String c : refs.classes()) {
      if (SandboxClassLoader.refused(c)) {
        return "generated code would use " + c;
      }
    }
    for (String m : refs.methods()) {
      int dot = m.lastIndexOf('.');
      String owner = m.substring(0, dot);
      String method = m.substring(dot + 1);
      if (owner.equals("java.lang.System") && !SYSTEM_METHODS.contains(method)
          || REFUSED_METHODS.getOrDefault(owner, Set.of()).contains(method)) {
        return "generated code would call " + m + "()";
      }
    }
    if (refs.dynamic()) {
      return "generated class " + name + " uses method handles or invokedynamic";
    }
    return null;
  }

  /** Esper's Janino compiler, checking the classes after each compilation. */
  private static final class Checking implements CompilerAbstraction {
    private final Set<String> checked = ConcurrentHashMap.newKeySet();

    @Override
    public CompilerAbstractionClassCollection newClassCollection() {
      return CompilerAbstractionJanino.INSTANCE.newClassCollection();
    }

    @Override
    public void compileClasses(
        List<CodegenClass> classes,
        CompilerAbstractionCompilationContext context,
        CompilerAbstractionClassCollection state) {
      CompilerAbstractionJanino.INSTANCE.compileClasses(classes, context, state);
      // the collection also holds classes added without compiling (inlined classes): check them all
      for (Map.Entry<String, byte[]> c : state.getClasses().entrySet()) {
        if (checked.add(c.getKey())) {
          String refusal = refusal(c.getKey(), c.getValue());
          if (refusal != null) {
            throw new IllegalStateException("the detector sandbox refused the EPL: " + refusal);
          }
        }
      }
    }

    @Override
    public CompilerAbstractionCompileSourcesResult compileSources(
        List<String> sources,
        CompilerAbstractionCompilationContext context,
        CompilerAbstractionClassCollection state) {
      throw new IllegalStateException(
          "the detector sandbox refused the EPL: inlined classes are disabled");
    }
  }
}
