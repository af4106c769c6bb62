package io.activityservice.app.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.architecture.TableOwnership;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The security tables are created by the security code's own migrations, in this module. */
class SchemaOwnershipTest {

  @Test
  void theSecurityTablesAreThisModulesOwn() {
    assertThat(TableOwnership.foreignTablesUsed(Path.of("")))
        .doesNotContainKeys("api_key", "audit_event");
  }
}
