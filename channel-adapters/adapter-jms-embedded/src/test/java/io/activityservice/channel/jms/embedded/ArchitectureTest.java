package io.activityservice.channel.jms.embedded;

import io.activityservice.architecture.ArchitectureRules;
import org.junit.jupiter.api.Test;

/** The architecture rules (architecture-rules module) on this module's production classes. */
class ArchitectureTest {

  @Test
  void noPackageCycles() {
    ArchitectureRules.NO_PACKAGE_CYCLES.check(ArchitectureRules.productionClasses());
  }

  @Test
  void internalStaysInsideItsParent() {
    ArchitectureRules.INTERNAL_STAYS_INSIDE_ITS_PARENT.check(ArchitectureRules.productionClasses());
  }

  @Test
  void springOnlyInAutoConfiguration() {
    ArchitectureRules.SPRING_ONLY_IN_AUTO_CONFIGURATION.check(
        ArchitectureRules.productionClasses());
  }
}
