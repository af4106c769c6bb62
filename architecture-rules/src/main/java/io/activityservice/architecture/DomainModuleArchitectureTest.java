package io.activityservice.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The architecture tests of a domain module (event-service, complex-event-detector,
 * rule-execution): a module's {@code ArchitectureTest} extends this class and inherits the four
 * tests, run on the classes its build compiled.
 */
public abstract class DomainModuleArchitectureTest {

  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = ArchitectureRules.productionClasses();
    assertThat(classes).as("the module's compiled classes").isNotEmpty();
  }

  @Test
  void noPackageCycles() {
    ArchitectureRules.NO_PACKAGE_CYCLES.check(classes);
  }

  @Test
  void internalPackagesStayInsideTheirParent() {
    ArchitectureRules.INTERNAL_STAYS_INSIDE_ITS_PARENT.check(classes);
  }

  @Test
  void noTransportAdapter() {
    ArchitectureRules.NO_TRANSPORT_ADAPTER.check(classes);
  }

  @Test
  void readsOnlyItsOwnTables() {
    assertThat(TableOwnership.foreignTablesUsed(Path.of("")))
        .as("tables of other modules named in this module's SQL")
        .isEmpty();
  }
}
