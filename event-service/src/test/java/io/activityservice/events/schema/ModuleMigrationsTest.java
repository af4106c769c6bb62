package io.activityservice.events.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.activityservice.events.support.TestDatabases;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Per-module histories on H2 and a real PostgreSQL: a fresh database, several modules in one
 * schema, the take-over of a database migrated by the single {@code flyway_schema_history} of
 * before, and the errors that stop a wrong take-over. (The take-over of a database made by every
 * module's scripts of before: activity-service's {@code LegacySchemaUpgradeTest}.)
 */
class ModuleMigrationsTest {

  // A second module in the same schema, after events (its scripts:
  // src/test/resources/db/migration/test_notes).
  private static final ModuleSchema NOTES =
      new ModuleSchema(
          "test_notes", List.of("classpath:db/migration/test_notes"), List.of("events"));

  @Test
  void freshH2GetsOneHistoryPerModuleAndNoSingleHistory() {
    freshDatabaseGetsOneHistoryPerModule(emptyH2());
  }

  @Test
  void freshPostgresGetsOneHistoryPerModuleAndNoSingleHistory() {
    freshDatabaseGetsOneHistoryPerModule(TestDatabases.newEmptyPostgres());
  }

  private void freshDatabaseGetsOneHistoryPerModule(DataSource ds) {
    List<ModuleMigrations.Outcome> outcomes =
        ModuleMigrations.on(ds, NOTES, EventsSchema.SCHEMA).migrate();

    assertThat(outcomes)
        .extracting(ModuleMigrations.Outcome::module)
        .containsExactly("events", "test_notes");
    assertThat(outcomes).allMatch(o -> o.baselinedAt().isEmpty());
    // V1, V4, V5, V6, V7, V7_1 (this database's vendor script), V9, V10, V11, V12
    assertThat(outcomes.get(0).migrationsExecuted()).isEqualTo(10);
    assertThat(outcomes.get(1).migrationsExecuted()).isEqualTo(2);
    assertThat(appliedVersions(ds, "events_schema_history"))
        .containsExactly("1", "4", "5", "6", "7", "7.1", "9", "10", "11", "12");
    assertThat(appliedVersions(ds, "test_notes_schema_history")).containsExactly("1", "2");
    assertThat(tableExists(ds, "flyway_schema_history")).isFalse();
    // Both modules' tables are there: the second module's V1 may use the same version as events'
    // V1.
    JdbcClient jdbc = JdbcClient.create(ds);
    assertThat(jdbc.sql("select count(*) from note").query(Integer.class).single()).isZero();
    assertThat(jdbc.sql("select count(*) from archive").query(Integer.class).single()).isZero();

    // A second start finds nothing to do.
    assertThat(ModuleMigrations.on(ds, EventsSchema.SCHEMA, NOTES).migrate())
        .allMatch(o -> o.migrationsExecuted() == 0 && o.baselinedAt().isEmpty());
  }

  @Test
  void h2MigratedByTheSingleHistoryIsTakenOverWithoutLossAndLaterScriptsApply() {
    singleHistoryIsTakenOver(emptyH2(), "h2");
  }

  @Test
  void postgresMigratedByTheSingleHistoryIsTakenOverWithoutLossAndLaterScriptsApply() {
    singleHistoryIsTakenOver(TestDatabases.newEmptyPostgres(), "postgresql");
  }

  private void singleHistoryIsTakenOver(DataSource ds, String vendor) {
    // Before: events' scripts up to V5 in flyway_schema_history, with data.
    legacyFlyway(ds, vendor).target("5").load().migrate();
    JdbcClient jdbc = JdbcClient.create(ds);
    jdbc.sql(
            "insert into subscription (id, name, target, max_attempts, initial_backoff_ms, max_backoff_ms,"
                + " max_age_ms, created_at) values ('s1', 'kept', 'mem:x', 3, 1, 1, 1, current_timestamp)")
        .update();

    List<ModuleMigrations.Outcome> outcomes =
        ModuleMigrations.on(ds, EventsSchema.SCHEMA, NOTES).migrate();

    assertThat(outcomes.get(0))
        .isEqualTo(new ModuleMigrations.Outcome("events", Optional.of("5"), 7));
    // test_notes was born after the single history: its V1 is not the V1 applied there, and all its
    // scripts run in
    // a schema that is not empty.
    assertThat(outcomes.get(1))
        .isEqualTo(new ModuleMigrations.Outcome("test_notes", Optional.empty(), 2));
    assertThat(appliedVersions(ds, "events_schema_history"))
        .containsExactly("5", "6", "7", "7.1", "9", "10", "11", "12");
    assertThat(
            jdbc.sql("select name from subscription where id = 's1'").query(String.class).single())
        .isEqualTo("kept");
    // V6 (subscription owner) and V9 applied after the baseline.
    jdbc.sql("update subscription set owner = 'key:k1' where id = 's1'").update();
    assertThat(jdbc.sql("select clustered from cluster_member").query(Boolean.class).list())
        .isEmpty();
    // The single history is left as it was.
    assertThat(appliedVersions(ds, "flyway_schema_history")).containsExactly("1", "4", "5");

    // The next start does not look at the single history again.
    assertThat(ModuleMigrations.on(ds, EventsSchema.SCHEMA, NOTES).migrate())
        .allMatch(o -> o.migrationsExecuted() == 0 && o.baselinedAt().isEmpty());
  }

  @Test
  void replicasStartingTogetherOnPostgresTakeOverOnce() throws Exception {
    DataSource ds = TestDatabases.newEmptyPostgres();
    // The single history ended at V9: later scripts (V10 on) were born per module.
    legacyFlyway(ds, "postgresql").target("9").load().migrate();
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService replicas = Executors.newFixedThreadPool(2);
    try {
      Callable<List<ModuleMigrations.Outcome>> replica =
          () -> {
            go.await();
            return ModuleMigrations.on(ds, EventsSchema.SCHEMA, NOTES).migrate();
          };
      List<Future<List<ModuleMigrations.Outcome>>> runs =
          List.of(replicas.submit(replica), replicas.submit(replica));
      go.countDown();
      List<List<ModuleMigrations.Outcome>> outcomes = new ArrayList<>();
      for (Future<List<ModuleMigrations.Outcome>> run : runs) {
        outcomes.add(run.get(60, TimeUnit.SECONDS));
      }
      // One of them took over and migrated; the other found it done.
      assertThat(outcomes)
          .containsExactlyInAnyOrder(
              List.of(
                  new ModuleMigrations.Outcome("events", Optional.of("9"), 3),
                  new ModuleMigrations.Outcome("test_notes", Optional.empty(), 2)),
              List.of(
                  new ModuleMigrations.Outcome("events", Optional.empty(), 0),
                  new ModuleMigrations.Outcome("test_notes", Optional.empty(), 0)));
    } finally {
      replicas.shutdownNow();
    }
    assertThat(appliedVersions(ds, "events_schema_history")).containsExactly("9", "10", "11", "12");
    assertThat(appliedVersions(ds, "test_notes_schema_history")).containsExactly("1", "2");
  }

  @Test
  void aFailedMigrationInTheSingleHistoryStopsTheTakeOver() {
    DataSource ds = emptyH2();
    legacyFlyway(ds, "h2").target("5").load().migrate();
    JdbcClient.create(ds)
        .sql("update \"flyway_schema_history\" set \"success\" = false where \"version\" = '5'")
        .update();

    assertThatThrownBy(() -> ModuleMigrations.on(ds, EventsSchema.SCHEMA).migrate())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("records failed migrations [V5 cluster]")
        .hasMessageContaining("repair");
    assertThat(tableExists(ds, "events_schema_history")).isFalse();
  }

  @Test
  void aGapInTheSingleHistoryStopsTheTakeOver() {
    DataSource ds = emptyH2();
    legacyFlyway(ds, "h2").target("5").load().migrate();
    JdbcClient.create(ds)
        .sql("delete from \"flyway_schema_history\" where \"version\" = '4'")
        .update();

    assertThatThrownBy(() -> ModuleMigrations.on(ds, EventsSchema.SCHEMA).migrate())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(
            "module schema events: flyway_schema_history applied V5 but not [V4]");
  }

  @Test
  void modulesRunInDependencyOrderAndBadRegistrationsAreNamed() {
    ModuleSchema a = new ModuleSchema("a", List.of("classpath:x"), List.of("b"));
    ModuleSchema b = new ModuleSchema("b", List.of("classpath:x"), List.of("c"));
    ModuleSchema c = new ModuleSchema("c", List.of("classpath:x"), List.of());
    DataSource ds = emptyH2();
    assertThat(ModuleMigrations.on(ds, a, b, c).order()).containsExactly(c, b, a);

    assertThatThrownBy(() -> ModuleMigrations.on(ds, a, c))
        .hasMessageContaining("a depends on b, which is not" + " registered (registered: [a, c])");
    assertThatThrownBy(() -> ModuleMigrations.on(ds, c, c))
        .hasMessageContaining("c is registered twice");
    ModuleSchema cyclic = new ModuleSchema("c", List.of("classpath:x"), List.of("a"));
    assertThatThrownBy(() -> ModuleMigrations.on(ds, a, b, cyclic))
        .hasMessageContaining("in a cycle: [a, b, c]");
    assertThatThrownBy(() -> new ModuleSchema("Bad-Name", List.of("classpath:x"), List.of()))
        .hasMessageContaining("module schema name must match");
  }

  // The single history of before, on events' own scripts (the real mix of every module:
  // activity-service's test).
  private static org.flywaydb.core.api.configuration.FluentConfiguration legacyFlyway(
      DataSource ds, String vendor) {
    return Flyway.configure()
        .dataSource(ds)
        .locations("classpath:db/migration/events", "classpath:db/vendor/events/" + vendor);
  }

  private static DataSource emptyH2() {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:mem:schema-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    ds.setUser("sa");
    return ds;
  }

  private static List<String> appliedVersions(DataSource ds, String table) {
    return JdbcClient.create(ds)
        .sql(
            "select \"version\" from \""
                + table
                + "\" where \"success\" and \"version\""
                + " <> '0' order by \"installed_rank\"")
        .query(String.class)
        .list();
  }

  private static boolean tableExists(DataSource ds, String table) {
    return JdbcClient.create(ds)
            .sql("select count(*) from information_schema.tables where table_name = ?")
            .param(table)
            .query(Integer.class)
            .single()
        > 0;
  }
}
