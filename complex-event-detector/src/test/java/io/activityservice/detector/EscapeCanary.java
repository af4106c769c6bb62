package io.activityservice.detector;

/**
 * Classes whose static initialisers leave a trace: loading and initialising one (what {@code
 * Class.forName} does) sets system property {@code escape.canary.<SimpleName>}. Each test that may
 * trigger one uses its own, because a class is initialised once per JVM.
 */
public final class EscapeCanary {

  private EscapeCanary() {}

  /** Whether the class has been initialised. */
  public static boolean initialised(Class<?> canary) {
    return System.getProperty(property(canary)) != null;
  }

  static String property(Class<?> canary) {
    return "escape.canary." + canary.getSimpleName();
  }

  /** For the corpus through the guard: must never be initialised. */
  public static final class Corpus {
    static {
      System.setProperty(property(Corpus.class), "initialised");
    }

    public Corpus() {}
  }

  /** For the sandbox configuration without the guard: must never be initialised. */
  public static final class Layers {
    static {
      System.setProperty(property(Layers.class), "initialised");
    }

    public Layers() {}
  }

  /** For the raw-engine control: is initialised by the control attempts. */
  public static final class Control {
    static {
      System.setProperty(property(Control.class), "initialised");
    }

    public Control() {}
  }

  /** For the allow-list class resolver's test: must never be initialised. */
  public static final class Resolver {
    static {
      System.setProperty(property(Resolver.class), "initialised");
    }

    public Resolver() {}
  }
}
