package io.activityservice.rules;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.activityservice.architecture.ArchitectureRules;
import io.activityservice.architecture.TableOwnership;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The project's architecture rules on this module's production classes (architecture-rules module).
 */
class ArchitectureTest {

  static JavaClasses classes;

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
    assertThat(TableOwnership.foreignTablesUsed(Path.of(""))).isEmpty();
  }
}
