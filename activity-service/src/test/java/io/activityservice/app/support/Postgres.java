package io.activityservice.app.support;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * One real PostgreSQL server per test JVM (zonky embedded binaries), a fresh database per caller.
 */
public final class Postgres {

  private static EmbeddedPostgres server;

  private Postgres() {}

  public static synchronized EmbeddedPostgres server() {
    if (server == null) {
      try {
        server = EmbeddedPostgres.builder().start();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try {
                      server.close();
                    } catch (IOException ignored) {
                      // JVM is exiting.
                    }
                  }));
    }
    return server;
  }

  /** Creates database {@code name} and returns its JDBC URL. */
  public static String createDatabase(String name) {
    try (Connection c = server().getPostgresDatabase().getConnection()) {
      c.createStatement().execute("create database " + name);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return server().getJdbcUrl("postgres", name);
  }

  /** Points Spring's datasource at a fresh database. */
  public static void register(DynamicPropertyRegistry registry, String prefix) {
    String url = createDatabase(prefix + "_" + Long.toHexString(System.nanoTime()));
    registry.add("spring.datasource.url", () -> url);
    registry.add("spring.datasource.username", () -> "postgres");
    registry.add("spring.datasource.password", () -> "postgres");
  }
}
