package io.activityservice.events.cluster;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The log of configuration changes that replicas apply ({@code config_change}). A change — creating
 * a subscription, deleting a detector, … — is written in one transaction with its log entry, under
 * the next configuration version: the change and its record commit together or not at all.
 *
 * <p>Versions are handed out by incrementing one row ({@code config_state}) inside the change's
 * transaction. The row lock serialises configuration writes (they are rare), so versions commit in
 * order and a replica that has applied version {@code n} never misses an earlier one committed
 * later — the gap problem of plain sequences. On PostgreSQL the transaction also sends {@code
 * NOTIFY activity_config} (delivered at commit) to wake the other replicas.
 */
public class ConfigChangeLog implements ConfigChanges {

  /** PostgreSQL notification channel the replicas listen on. */
  public static final String CHANNEL = "activity_config";

  /**
   * PostgreSQL notification channel on which a replica announces that it applied a newer
   * configuration version (written to {@code cluster_member} first): it wakes the writers waiting
   * for their change to be in force.
   */
  public static final String APPLIED_CHANNEL = "activity_config_applied";

  /**
   * The highest version recorded on the current thread inside an open {@link #capture()}, or null.
   */
  private static final ThreadLocal<long[]> CAPTURED = new ThreadLocal<>();

  /** One recorded change. */
  public record Change(long version, String kind, String key, String replica, long changedAt) {}

  /** A change's result with the configuration version it was recorded under. */
  public record Recorded<T>(T value, long version) {}

  private final JdbcTemplate jdbc;
  private final TransactionTemplate tx;
  private final String replicaId;
  private final boolean postgres;
  private final java.time.Clock clock;
  private volatile LocalApplier localApplier = (version) -> {};

  /**
   * Told of each version this replica recorded, so it counts as applied here (the write applied it
   * already).
   */
  @FunctionalInterface
  public interface LocalApplier {
    void appliedLocally(long version);
  }

  public ConfigChangeLog(DataSource dataSource, String replicaId, java.time.Clock clock) {
    this.jdbc = new JdbcTemplate(dataSource);
    this.tx = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
    this.replicaId = replicaId;
    this.clock = clock;
    this.postgres = isPostgres(dataSource);
  }

  void onLocalChange(LocalApplier applier) {
    this.localApplier = applier;
  }

  public String replicaId() {
    return replicaId;
  }

  boolean isPostgres() {
    return postgres;
  }

  /**
   * Runs {@code write} and records the change in one transaction.
   *
   * @param kind what changed, e.g. {@code subscription}
   * @param key which one, e.g. the subscription id
   * @return the write's result and the new configuration version
   */
  public <T> Recorded<T> record(String kind, String key, Supplier<T> write) {
    Recorded<T> r =
        tx.execute(
            s -> {
              T value = write.get();
              jdbc.update("update config_state set version = version + 1 where id = 1");
              Long version =
                  jdbc.queryForObject("select version from config_state where id = 1", Long.class);
              jdbc.update(
                  "insert into config_change (version, kind, change_key, replica, changed_at) values (?, ?, ?, ?, ?)",
                  version,
                  kind,
                  key,
                  replicaId,
                  clock.millis());
              if (postgres) {
                jdbc.execute("notify " + CHANNEL);
              }
              return new Recorded<>(value, version);
            });
    localApplier.appliedLocally(r.version());
    long[] captured = CAPTURED.get();
    if (captured != null) {
      captured[0] = Math.max(captured[0], r.version());
    }
    return r;
  }

  /**
   * Notes the versions of the changes recorded on the current thread until the capture is closed:
   * an API request opens one around its handling and then waits until every replica runs the
   * highest ({@link ConfigApplyWaiter}). Captures nest; the inner one's versions count for the
   * outer one too.
   */
  public static Capture capture() {
    return new Capture(CAPTURED.get());
  }

  /** Versions recorded on one thread while open ({@link #capture()}). */
  public static final class Capture implements AutoCloseable {
    private final long[] outer;
    private final long[] mine = new long[1];

    private Capture(long[] outer) {
      this.outer = outer;
      CAPTURED.set(mine);
    }

    /**
     * The highest configuration version recorded on this thread since the capture opened; 0 if
     * none.
     */
    public long highestVersion() {
      return mine[0];
    }

    @Override
    public void close() {
      if (outer == null) {
        CAPTURED.remove();
      } else {
        outer[0] = Math.max(outer[0], mine[0]);
        CAPTURED.set(outer);
      }
    }
  }

  /** Records a change whose write has no result. */
  @Override
  public long record(String kind, String key, Runnable write) {
    return record(
            kind,
            key,
            () -> {
              write.run();
              return Boolean.TRUE;
            })
        .version();
  }

  /** The latest committed configuration version. */
  public long currentVersion() {
    Long v = jdbc.queryForObject("select version from config_state where id = 1", Long.class);
    return v == null ? 0 : v;
  }

  /** Changes after {@code version}, oldest first, at most {@code max}. */
  public List<Change> since(long version, int max) {
    return jdbc.query(
        "select version, kind, change_key, replica, changed_at from config_change where version > ?"
            + " order by version fetch first ? rows only",
        (rs, i) ->
            new Change(
                rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getLong(5)),
        version,
        max);
  }

  static boolean isPostgres(DataSource ds) {
    try (Connection c = ds.getConnection()) {
      return "PostgreSQL".equalsIgnoreCase(c.getMetaData().getDatabaseProductName());
    } catch (SQLException e) {
      throw new IllegalStateException("cannot reach the database: " + e.getMessage(), e);
    }
  }
}
