package io.activityservice.events;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.activityservice.architecture.ArchitectureRules;
import io.activityservice.architecture.TableOwnership;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The project's architecture rules on event-service's production classes (issue 22). */
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
        .as("tables of other modules named in event-service's SQL")
        .isEmpty();
  }
}
