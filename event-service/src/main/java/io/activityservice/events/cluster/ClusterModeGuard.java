package io.activityservice.events.cluster;

import io.activityservice.events.log.LogSafe;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Refuses to start a replica whose cluster mode differs from another live replica's on the same
 * database.
 *
 * <p>Replicas without cluster mode each feed every detector and rule set directly, so two of them
 * on one database split each detector's input between them and find nothing that spans both halves
 * — silently. The guard runs at start-up, before any channel consumes: under a PostgreSQL advisory
 * lock (so two replicas starting together see each other) it writes this replica's heartbeat row
 * with its mode, then looks at the others' rows. A row seen recently may belong to a replica that
 * just crashed (a restart after SIGKILL comes back within its three heartbeats); such a row counts
 * only if its {@code last_seen} moves on within two of its heartbeats, so a restart costs that wait
 * only when a dead replica's row is fresh, and nothing otherwise.
 */
public final class ClusterModeGuard {

  /**
   * Key of the advisory lock that serialises start-up checks (an arbitrary constant: "ACTV" in
   * ASCII).
   */
  private static final long LOCK_KEY = 0x41435456L;

  /**
   * A heartbeat longer than this is not waited for in full (the check would hold the start-up too
   * long).
   */
  private static final Duration MAX_WAIT = Duration.ofSeconds(30);

  /**
   * A replica refused because of the others' modes: the message names them and the setting to
   * change.
   */
  public static final class ConflictException extends IllegalStateException {
    private final String action;

    ConflictException(String description, String action) {
      super(description + " " + action);
      this.action = action;
    }

    /** What to do about it. */
    public String action() {
      return action;
    }

    /** What was found, without the action. */
    public String description() {
      return getMessage().substring(0, getMessage().length() - action.length() - 1);
    }
  }

  /** Another replica's row as read. */
  record Row(String replicaId, boolean clustered, long lastSeen, long heartbeatMillis) {}

  private final JdbcTemplate jdbc;
  private final TransactionTemplate tx;
  private final boolean postgres;
  private final Clock clock;
  private final LongConsumer sleeper;

  public ClusterModeGuard(DataSource dataSource, Clock clock) {
    this(dataSource, clock, ClusterModeGuard::sleep);
  }

  ClusterModeGuard(DataSource dataSource, Clock clock, LongConsumer sleeper) {
    this.jdbc = new JdbcTemplate(dataSource);
    this.tx = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
    this.postgres = ConfigChangeLog.isPostgres(dataSource);
    this.clock = clock;
    this.sleeper = sleeper;
  }

  /**
   * Registers this replica and checks the others.
   *
   * @throws ConflictException naming the setting to change when another live replica runs in the
   *     other mode, or when this replica has cluster mode off and another replica is live
   */
  public void check(String replicaId, String address, boolean clustered, Duration heartbeat) {
    List<Row> fresh =
        tx.execute(
            s -> {
              if (postgres) {
                jdbc.queryForList("select pg_advisory_xact_lock(?)", LOCK_KEY);
              }
              long now = clock.millis();
              ClusterMembers.upsert(
                  jdbc, replicaId, address, now, now, 0, null, clustered, heartbeat.toMillis());
              return jdbc.query(
                  "select replica_id, clustered, last_seen, heartbeat_millis from cluster_member"
                      + " where replica_id <> ? and last_seen >= ? - 3 * heartbeat_millis",
                  (rs, i) ->
                      new Row(rs.getString(1), rs.getBoolean(2), rs.getLong(3), rs.getLong(4)),
                  replicaId,
                  now);
            });
    List<Row> conflicting = fresh.stream().filter(r -> !clustered || !r.clustered()).toList();
    if (conflicting.isEmpty()) {
      return;
    }
    List<Row> live = stillBeating(conflicting);
    if (live.isEmpty()) {
      return;
    }
    String names =
        live.stream()
            .map(
                r ->
                    LogSafe.text(r.replicaId())
                        + (r.clustered() ? " (cluster mode)" : " (cluster mode off)"))
            .collect(Collectors.joining(", "));
    // This replica's row goes again: it never ran.
    jdbc.update("delete from cluster_member where replica_id = ?", replicaId);
    if (clustered) {
      throw new ConflictException(
          "other replicas run on this database without cluster mode: "
              + names
              + ". Detectors and rule sets would get part of their input on each of them.",
          "Restart every replica with"
              + " activity.cluster.enabled=true (or stop those replicas) before starting this one.");
    }
    throw new ConflictException(
        "other replicas are running on this database: "
            + names
            + ". Without cluster"
            + " mode each replica feeds every detector and rule set directly, so their input would be split between the"
            + " replicas.",
        "Start every replica with activity.cluster.enabled=true (or give this one its own database).");
  }

  /**
   * The rows whose {@code last_seen} moves on within two of their heartbeats (one of slack for a
   * loaded host): replicas still running.
   */
  private List<Row> stillBeating(List<Row> rows) {
    long waitMillis =
        Math.min(
            MAX_WAIT.toMillis(), rows.stream().mapToLong(Row::heartbeatMillis).max().orElse(0) * 2);
    Map<String, Long> before =
        rows.stream().collect(Collectors.toMap(Row::replicaId, Row::lastSeen));
    List<Row> live = new ArrayList<>();
    long deadline = clock.millis() + waitMillis;
    long step = Math.max(50, Math.min(500, waitMillis / 10));
    while (true) {
      for (Row r : rows) {
        if (live.stream().noneMatch(l -> l.replicaId().equals(r.replicaId()))) {
          Long seen =
              jdbc.query(
                  "select last_seen from cluster_member where replica_id = ?",
                  rs -> rs.next() ? rs.getLong(1) : null,
                  r.replicaId());
          if (seen != null && seen > before.get(r.replicaId())) {
            live.add(r);
          }
        }
      }
      if (live.size() == rows.size() || clock.millis() >= deadline) {
        return live;
      }
      sleeper.accept(step);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(
          "interrupted while checking the other replicas' heartbeats", e);
    }
  }
}
