package io.activityservice.events.delivery;

import java.util.Collections;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The database the delivery tables live in: which database it is, durable commits on H2, and
 * PostgreSQL's notifications of deliveries due for any replica. Shared by {@link DeliveryStore} and
 * {@link DeadLetterStore}.
 */
final class StoreDatabase {

  private static final int MAX_TEXT = 1000;

  /**
   * The PostgreSQL channel on which a replica that parked deliveries free for any replica wakes the
   * others.
   */
  static final String DUE_CHANNEL = "activity_delivery_due";

  private final DataSource dataSource;
  private final JdbcTemplate jdbc;
  private final TransactionTemplate tx;
  private volatile Boolean postgres;

  StoreDatabase(DataSource dataSource) {
    this.dataSource = dataSource;
    this.jdbc = new JdbcTemplate(dataSource);
    this.tx = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
  }

  JdbcTemplate jdbc() {
    return jdbc;
  }

  TransactionTemplate tx() {
    return tx;
  }

  /** Whether the store is PostgreSQL (which has {@code LISTEN}/{@code NOTIFY}). */
  boolean isPostgres() {
    Boolean p = postgres;
    if (p == null) {
      p =
          Boolean.TRUE.equals(
              jdbc.execute(
                  (java.sql.Connection c) ->
                      "PostgreSQL".equalsIgnoreCase(c.getMetaData().getDatabaseProductName())));
      postgres = p;
    }
    return p;
  }

  /**
   * On PostgreSQL, runs {@code onDue} whenever another replica (or this one) parks deliveries that
   * any replica may claim; {@code null} on other databases. Close it to stop listening.
   */
  AutoCloseable listenForDueDeliveries(Runnable onDue) {
    if (!isPostgres()) {
      return null;
    }
    return new io.activityservice.events.internal.PgNotifications(
            dataSource, DUE_CHANNEL, onDue, "delivery-due-listener")
        .start();
  }

  /**
   * Makes every commit reach the database file before it returns. H2 (the embedded default)
   * otherwise writes commits to its file up to 500 ms later ({@code WRITE_DELAY}), and a SIGKILL in
   * between loses them — measured: a 202 whose parked delivery vanished. PostgreSQL commits durably
   * already.
   *
   * @return whether a setting was changed
   */
  boolean ensureDurableCommits() {
    return Boolean.TRUE.equals(
        jdbc.execute(
            (java.sql.Connection c) -> {
              if (!"H2".equalsIgnoreCase(c.getMetaData().getDatabaseProductName())) {
                return false;
              }
              try (java.sql.Statement st = c.createStatement()) {
                st.execute("SET WRITE_DELAY 0");
              }
              return true;
            }));
  }

  static String placeholders(int n) {
    return String.join(", ", Collections.nCopies(n, "?"));
  }

  /** Error texts and reasons are kept to their column's size. */
  static String cut(String text) {
    return text == null || text.length() <= MAX_TEXT ? text : text.substring(0, MAX_TEXT);
  }
}
