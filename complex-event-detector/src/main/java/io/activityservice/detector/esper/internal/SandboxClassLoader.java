package io.activityservice.detector.esper.internal;

import java.util.List;
import java.util.Set;

/**
 * The class loader Esper compiles and runs a detector's generated code against (transient
 * configuration {@code ClassLoaderProvider}): the compiler (Janino) resolves every class the
 * generated code names through it, and the runtime makes it the parent of the classes it defines
 * for the statement. It refuses classes that run processes, threads, reflection, class loading,
 * files, the network, JNDI, scripts and this application's own code, so generated code that names
 * them neither compiles nor links.
 *
 * <p>A deny-list, unlike the other layers: Janino and Esper's generated code need a wide,
 * version-dependent set of JDK and Esper classes (including {@code java.lang.Class} and {@code
 * java.lang.reflect.Array}). {@link GeneratedCodeCheck} refuses the dangerous methods of classes
 * that must stay loadable.
 */
public final class SandboxClassLoader extends ClassLoader {

  /** Refused classes, by exact name. */
  static final Set<String> CLASSES =
      Set.of(
          "java.lang.Runtime",
          "java.lang.ProcessBuilder",
          "java.lang.ProcessBuilder$Redirect",
          "java.lang.Process",
          "java.lang.ProcessHandle",
          "java.lang.Thread",
          "java.lang.ThreadGroup",
          "java.lang.ClassLoader",
          "java.lang.Module",
          "java.lang.ModuleLayer",
          "java.lang.StackWalker",
          "java.lang.SecurityManager",
          "java.lang.reflect.Method",
          "java.lang.reflect.Constructor",
          "java.lang.reflect.Field",
          "java.lang.reflect.Proxy",
          "java.lang.reflect.AccessibleObject",
          "java.lang.reflect.Executable",
          "java.lang.reflect.InvocationHandler",
          "java.lang.invoke.MethodHandles",
          "java.lang.invoke.MethodHandles$Lookup",
          "java.lang.invoke.MethodHandle",
          "java.lang.invoke.VarHandle",
          "java.lang.invoke.LambdaMetafactory",
          "java.io.File",
          "java.io.FileInputStream",
          "java.io.FileOutputStream",
          "java.io.FileReader",
          "java.io.FileWriter",
          "java.io.RandomAccessFile",
          "java.io.FileDescriptor",
          "java.io.ObjectInputStream",
          "java.io.ObjectOutputStream",
          "java.util.ServiceLoader",
          "java.util.Timer",
          "java.util.concurrent.Executors",
          "java.util.concurrent.ThreadPoolExecutor",
          "java.util.concurrent.ScheduledThreadPoolExecutor",
          "java.util.concurrent.ForkJoinPool");

  /** Refused packages, by prefix. */
  static final List<String> PACKAGES =
      List.of(
          "java.nio.file.",
          "java.nio.channels.",
          "java.net.",
          "java.rmi.",
          "java.lang.management.",
          "javax.script.",
          "javax.naming.",
          "javax.management.",
          "jdk.",
          "sun.",
          "com.sun.",
          "org.springframework.",
          "io.activityservice.");

  /**
   * @param parent where allowed classes come from: the class loader that loaded Esper
   */
  public SandboxClassLoader(ClassLoader parent) {
    super(parent);
  }

  /** Whether a class, by binary name, is refused. */
  static boolean refused(String name) {
    String n = name.startsWith("[") ? name.replaceAll("^\\[+L|;$", "") : name;
    if (CLASSES.contains(n)) {
      return true;
    }
    for (String p : PACKAGES) {
      if (n.startsWith(p)) {
        return true;
      }
    }
    return false;
  }

  @Override
  protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
    if (refused(name)) {
      throw new ClassNotFoundException(name + " is not available to detectors");
    }
    return super.loadClass(name, resolve);
  }
}
