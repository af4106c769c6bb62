package io.activityservice.detector.esper.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.activityservice.detector.EscapeCanary;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The class resolver and the class loader layers. */
class SandboxClassResolutionTest {

  @Test
  void theResolverLoadsOnlyAllowedNamesAndNeverInitialisesOthers() throws Exception {
    AllowListClassForNameProvider provider = AllowListClassForNameProvider.forDetectors();
    assertThat(provider.classForName("java.lang.Math")).isEqualTo(Math.class);
    assertThat(provider.classForName("java.math.BigDecimal")).isEqualTo(java.math.BigDecimal.class);
    for (String refused :
        new String[] {
          "java.lang.System",
          "java.lang.Runtime",
          "Math",
          "java.lang.Class",
          EscapeCanary.Resolver.class.getName()
        }) {
      assertThatThrownBy(() -> provider.classForName(refused))
          .as(refused)
          .isInstanceOf(ClassNotFoundException.class)
          .hasMessageContaining("not on the detector allow-list");
    }
    assertThat(EscapeCanary.initialised(EscapeCanary.Resolver.class)).isFalse();
  }

  @Test
  void theClassLoaderRefusesProcessesReflectionFilesNetworkAndTheApplication() throws Exception {
    SandboxClassLoader loader = new SandboxClassLoader(getClass().getClassLoader());
    for (String refused :
        Set.of(
            "java.lang.Runtime",
            "java.lang.ProcessBuilder",
            "java.lang.ClassLoader",
            "java.lang.Thread",
            "java.lang.reflect.Method",
            "java.io.File",
            "java.nio.file.Files",
            "java.net.URL",
            "javax.naming.InitialContext",
            "sun.misc.Unsafe",
            "jdk.internal.misc.Unsafe",
            "org.springframework.context.ApplicationContext",
            "io.activityservice.detector.DetectorService")) {
      assertThatThrownBy(() -> loader.loadClass(refused))
          .as(refused)
          .isInstanceOf(ClassNotFoundException.class);
    }
    assertThat(SandboxClassLoader.refused("[Ljava.lang.Runtime;")).isTrue();
    // what Janino and Esper's generated code need
    for (Class<?> needed :
        new Class<?>[] {
          Object.class,
          String.class,
          Class.class,
          System.class,
          Math.class,
          java.lang.reflect.Array.class,
          java.lang.reflect.Type.class,
          java.util.HashMap.class,
          com.espertech.esper.common.client.EventBean.class
        }) {
      assertThat(loader.loadClass(needed.getName())).isEqualTo(needed);
    }
  }
}
