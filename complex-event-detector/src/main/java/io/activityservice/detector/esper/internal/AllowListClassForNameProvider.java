package io.activityservice.detector.esper.internal;

import com.espertech.esper.common.client.util.ClassForNameProvider;
import java.util.Set;

/**
 * Esper's class resolution for detectors (transient configuration {@link
 * ClassForNameProvider#NAME}, used by the compiler and the runtime): every class name EPL uses,
 * fully qualified or through an import, is resolved here, and only names on the allow-list resolve.
 * Other names are not even loaded, so no static initialiser of a refused class runs. Esper's
 * default provider would load and initialise any class on the classpath.
 */
public final class AllowListClassForNameProvider implements ClassForNameProvider {

  private final Set<String> allowed;
  private final ClassLoader loader;

  /**
   * @param allowed fully qualified names that resolve
   * @param loader where they are loaded from
   */
  public AllowListClassForNameProvider(Set<String> allowed, ClassLoader loader) {
    this.allowed = Set.copyOf(allowed);
    this.loader = loader;
  }

  /** The provider for detectors: {@link EplAllowList#RESOLVABLE_CLASSES}. */
  public static AllowListClassForNameProvider forDetectors() {
    return new AllowListClassForNameProvider(
        EplAllowList.RESOLVABLE_CLASSES, AllowListClassForNameProvider.class.getClassLoader());
  }

  @Override
  public Class<?> classForName(String className) throws ClassNotFoundException {
    if (!allowed.contains(className)) {
      throw new ClassNotFoundException(
          "class '" + className + "' is not on the detector allow-list");
    }
    return Class.forName(className, true, loader);
  }
}
