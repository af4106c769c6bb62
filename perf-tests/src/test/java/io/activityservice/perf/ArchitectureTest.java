package io.activityservice.perf;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.activityservice.architecture.ArchitectureRules;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The project's architecture rules on perf-tests' own classes (architecture-rules module). */
class ArchitectureTest {

  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = ArchitectureRules.productionClasses();
  }

  @Test
  void noPackageCycles() {
    ArchitectureRules.NO_PACKAGE_CYCLES.check(classes);
  }

  @Test
  void internalPackagesOfOtherModulesStayUnused() {
    ArchitectureRules.INTERNAL_STAYS_INSIDE_ITS_PARENT.check(classes);
  }
}
