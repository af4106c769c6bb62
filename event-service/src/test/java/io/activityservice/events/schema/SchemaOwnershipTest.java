package io.activityservice.events.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.architecture.TableOwnership;
import io.activityservice.events.support.TestDatabases;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * event-service creates and reads only its own tables; the security tables live with the security
 * code.
 */
class SchemaOwnershipTest {

  @Test
  void readsNoOtherModulesTables() {
    assertThat(TableOwnership.foreignTablesUsed(Path.of(""))).isEmpty();
  }

  @Test
  void itsMigrationsCreateNoSecurityTables() {
    JdbcClient jdbc = JdbcClient.create(TestDatabases.newH2());
    assertThat(
            jdbc.sql(
                    "select lower(table_name) from information_schema.tables where table_schema = 'PUBLIC'")
                .query(String.class)
                .list())
        .contains("subscription", "events_schema_history")
        .doesNotContain("api_key", "audit_event");
    // The subscription owner stayed here, with the table it belongs to.
    assertThat(jdbc.sql("select count(owner) from subscription").query(Integer.class).single())
        .isZero();
  }
}
