package io.activityservice.app.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.app.ActivityServiceApplication;
import io.activityservice.app.security.ApiKeyToken;
import io.activityservice.app.security.SecuritySchema;
import io.activityservice.app.support.Api;
import io.activityservice.app.support.Postgres;
import io.activityservice.detector.DetectorSchema;
import io.activityservice.events.schema.EventsSchema;
import io.activityservice.events.schema.ModuleMigrations;
import io.activityservice.rules.store.RulesSchema;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * A database created by the single {@code flyway_schema_history} of before (every module's scripts
 * interleaved in one history; a copy of them as they were in {@code src/test/resources/db/legacy})
 * is taken over by the per-module histories: nothing runs twice, the data survives, and the scripts
 * it had not applied yet run.
 */
class LegacySchemaUpgradeTest {

  @TempDir Path dataDir;

  /** The application takes over a database of before at its first start, and works on it. */
  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgres"})
  void theServiceStartsOnADatabaseOfBeforeAndKeepsItsData(String database) {
    Db db = database(database);
    // Before: every module's scripts up to V8_2 (V9 and V9_5 came later), then data in each
    // module's tables.
    legacyFlyway(db).target("8.2").load().migrate();
    ApiKeyToken key = new ApiKeyToken("legacykey2345678", "s".repeat(43));
    JdbcClient jdbc = JdbcClient.create(db.dataSource);
    jdbc.sql(
            "insert into event_type (type, description, version, created_at, updated_at)"
                + " values ('com.legacy.kept', 'from before', 1, current_timestamp, current_timestamp)")
        .update();
    jdbc.sql(
            "insert into subscription (id, name, target, max_attempts, initial_backoff_ms, max_backoff_ms,"
                + " max_age_ms, created_at, owner) values ('legacy-sub', 'kept', 'http://127.0.0.1:9/x', 3, 1, 1, 1,"
                + " current_timestamp, 'key:legacykey2345678')")
        .update();
    jdbc.sql(
            "insert into api_key (id, name, roles, event_types, secret_sha256, created_at)"
                + " values (?, 'legacy reader', 'subscriber', '[\"com.legacy.*\"]', ?, 1)")
        .params(key.id(), HexFormat.of().formatHex(key.secretHash()))
        .update();
    jdbc.sql(
            "insert into audit_event (id, occurred_at, actor, action, resource_kind, outcome, status)"
                + " values ('legacy-audit', 1, 'key:x', 'CREATE', 'EVENT_TYPE', 'SUCCESS', 201)")
        .update();

    try (ConfigurableApplicationContext app = start(db)) {
      Api admin = new Api(((WebServerApplicationContext) app).getWebServer().getPort());
      // The key stored before still authenticates; the type and subscription are served.
      Api.Response whoami = admin.withKey(key.token()).get("/api/v1/whoami");
      assertThat(whoami.status()).isEqualTo(200);
      assertThat(whoami.json().get("id").asText()).contains("legacykey2345678");
      assertThat(whoami.json().get("eventTypes").get(0).asText()).isEqualTo("com.legacy.*");
      assertThat(
              admin.get("/api/v1/event-types/com.legacy.kept").json().get("description").asText())
          .isEqualTo("from before");
      assertThat(admin.get("/api/v1/subscriptions/legacy-sub").status()).isEqualTo(200);
      // A change is audited in the table of before, beside the row kept from before.
      assertThat(admin.postJson("/api/v1/event-types", "{\"type\":\"com.legacy.added\"}").status())
          .isEqualTo(201);
    }
    assertThat(jdbc.sql("select count(*) from audit_event").query(Integer.class).single())
        .isGreaterThan(1);
    assertThat(
            jdbc.sql("select owner from subscription where id = 'legacy-sub'")
                .query(String.class)
                .single())
        .isEqualTo("key:legacykey2345678");
    // Each module's history starts at the last of its versions applied before; what came later ran.
    assertThat(versions(jdbc, "events_schema_history"))
        .containsExactly("7.1 baseline", "9", "10", "11", "12");
    assertThat(versions(jdbc, "detector_schema_history")).containsExactly("8.2 baseline", "9.5");
    assertThat(versions(jdbc, "rules_schema_history")).containsExactly("8.1 baseline");
    assertThat(versions(jdbc, "security_schema_history")).containsExactly("6 baseline");
    assertThat(jdbc.sql("select count(compiled_form) from detector").query(Integer.class).single())
        .isZero();
    assertThat(
            jdbc.sql("select count(*) from cluster_member where clustered")
                .query(Integer.class)
                .single())
        .isZero();
  }

  /**
   * Every version of before is claimed by exactly the module that owns its script; nothing runs
   * twice.
   */
  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgres"})
  void aDatabaseOfTodayIsTakenOverWithNothingToRun(String database) {
    Db db = database(database);
    legacyFlyway(db).load().migrate();

    List<ModuleMigrations.Outcome> outcomes =
        ModuleMigrations.on(
                db.dataSource,
                SecuritySchema.SCHEMA,
                RulesSchema.SCHEMA,
                DetectorSchema.SCHEMA,
                EventsSchema.SCHEMA)
            .migrate();

    // Only scripts born after the single history run: events' V10 (webhooks), V11 (transforms) and
    // V12 (ordering per key).
    assertThat(outcomes)
        .containsExactly(
            new ModuleMigrations.Outcome("events", Optional.of("9"), 3),
            new ModuleMigrations.Outcome("security", Optional.of("6"), 0),
            new ModuleMigrations.Outcome("rules", Optional.of("8.1"), 0),
            new ModuleMigrations.Outcome("detector", Optional.of("9.5"), 0));
    // A database migrated by the new scheme from empty has the same tables and columns.
    Db fresh = database(database);
    ModuleMigrations.on(
            fresh.dataSource,
            EventsSchema.SCHEMA,
            DetectorSchema.SCHEMA,
            RulesSchema.SCHEMA,
            SecuritySchema.SCHEMA)
        .migrate();
    assertThat(columns(db.dataSource)).isEqualTo(columns(fresh.dataSource));
  }

  private record Db(String vendor, String url, DataSource dataSource) {}

  private Db database(String database) {
    if (database.equals("h2")) {
      String url =
          "jdbc:h2:file:"
              + dataDir.resolve("legacy-" + System.nanoTime())
              + ";DB_CLOSE_ON_EXIT=FALSE";
      return new Db("h2", url, new DriverManagerDataSource(url, "sa", ""));
    }
    String url = Postgres.createDatabase("legacy_" + Long.toHexString(System.nanoTime()));
    return new Db("postgresql", url, new DriverManagerDataSource(url, "postgres", "postgres"));
  }

  // The single history of before: today's scripts of every module, in one location set and one
  // history table.
  private static org.flywaydb.core.api.configuration.FluentConfiguration legacyFlyway(Db db) {
    return Flyway.configure()
        .dataSource(db.dataSource)
        .locations("classpath:db/legacy/migration", "classpath:db/legacy/vendor/" + db.vendor);
  }

  private ConfigurableApplicationContext start(Db db) {
    List<String> args =
        new ArrayList<>(List.of("--server.port=0", "--spring.datasource.url=" + db.url));
    if (db.vendor.equals("postgresql")) {
      args.add("--spring.datasource.username=postgres");
      args.add("--spring.datasource.password=postgres");
    } else {
      args.add("--spring.datasource.username=sa");
    }
    // The datasource of the test must not hold the H2 file while the application opens it.
    return new SpringApplicationBuilder(ActivityServiceApplication.class)
        .run(args.toArray(String[]::new));
  }

  private static List<String> versions(JdbcClient jdbc, String table) {
    // Versioned rows only (Flyway may add an unversioned marker row of its own on H2).
    return jdbc.sql(
            "select \"version\", \"type\" from \""
                + table
                + "\" where \"success\""
                + " and \"version\" is not null order by \"installed_rank\"")
        .query((rs, n) -> rs.getString(1) + ("BASELINE".equals(rs.getString(2)) ? " baseline" : ""))
        .list();
  }

  // Every column of every table but the history tables, as table.column:type, sorted.
  private static List<String> columns(DataSource ds) {
    return JdbcClient.create(ds)
        .sql(
            """
        select lower(table_name) || '.' || lower(column_name) || ':' || lower(data_type)
        from information_schema.columns
        where lower(table_schema) = 'public' and lower(table_name) not like '%schema_history'
        order by 1""")
        .query(String.class)
        .list();
  }
}
