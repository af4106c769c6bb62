package io.activityservice.events.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.channel.support.DaemonThreads;
import io.activityservice.events.json.Json;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The replicas sharing the database: each one refreshes its row in {@code cluster_member} every
 * {@code heartbeat} with the configuration version it runs and what it owns; a replica not seen for
 * three heartbeats is not live. A view for operators (GET /api/v1/cluster); what the {@link
 * ClusterModeGuard} reads at start-up to refuse mixing modes; and what a writer waits on until its
 * change is in force on every live replica ({@link ConfigApplyWaiter}): besides the heartbeat, a
 * replica writes its configuration version as soon as it advances ({@link #reportApplied}) and
 * announces it with {@code NOTIFY activity_config_applied}. Nothing else decides by it — ownership
 * comes from the broker, exclusivity of work from the database's row locks.
 */
public final class ClusterMembers implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ClusterMembers.class);

  /** One replica as last reported. */
  public record Member(
      String replicaId,
      String address,
      long startedAt,
      long lastSeen,
      long configVersion,
      JsonNode ownership,
      boolean live,
      boolean clustered) {}

  /**
   * A replica's configuration version as last written, and whether it is live (beating, and
   * started).
   */
  public record Applied(String replicaId, long configVersion, boolean live) {}

  private final JdbcTemplate jdbc;
  private final boolean postgres;

  /** The highest version reported and not yet written; -1 when nothing is waiting to be written. */
  private final java.util.concurrent.atomic.AtomicLong toReport =
      new java.util.concurrent.atomic.AtomicLong(-1);

  private final String replicaId;
  private final Clock clock;
  private final Duration heartbeat;
  private final boolean clustered;

  /** What the heartbeat reports; set once the application is ready ({@link #report}). */
  private volatile String address;

  private volatile Supplier<Long> version = () -> 0L;
  private volatile Supplier<Object> ownership = List::of;
  private final long startedAt;
  private static final long CLEANUP_MILLIS = Duration.ofMinutes(5).toMillis();

  /** When the last cleanup ran; on the heartbeat thread only. */
  private long lastCleanup = Long.MIN_VALUE / 2;

  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("cluster-heartbeat"));

  /**
   * @param clustered whether this replica runs in cluster mode (shown in the view, checked by
   *     {@link ClusterModeGuard} when another replica starts)
   */
  public ClusterMembers(
      DataSource dataSource, String replicaId, Clock clock, Duration heartbeat, boolean clustered) {
    this.jdbc = new JdbcTemplate(dataSource);
    this.postgres = ConfigChangeLog.isPostgres(dataSource);
    this.replicaId = replicaId;
    this.clock = clock;
    this.heartbeat = heartbeat;
    this.clustered = clustered;
    this.startedAt = clock.millis();
  }

  /**
   * Starts the heartbeat. It starts before the application is ready, right after the {@link
   * ClusterModeGuard}'s check, so a replica starting meanwhile sees this one beating.
   */
  public ClusterMembers start() {
    timer.scheduleWithFixedDelay(this::beat, 0, heartbeat.toMillis(), TimeUnit.MILLISECONDS);
    return this;
  }

  /**
   * What the heartbeat reports from now on: the address, the configuration version run, what this
   * replica owns.
   */
  public void report(String address, Supplier<Long> version, Supplier<Object> ownership) {
    this.address = address;
    this.version = version;
    this.ownership = ownership;
    // At once, not at the next beat: from now on writers wait for this replica (see
    // appliedVersions).
    try {
      timer.execute(this::beat);
    } catch (java.util.concurrent.RejectedExecutionException closed) {
      // closing: nothing to report
    }
  }

  public String replicaId() {
    return replicaId;
  }

  private void beat() {
    try {
      long now = clock.millis();
      String json = Json.write(Json.tree(ownership.get()));
      // greatest() in upsert: a version reported meanwhile (reportApplied) is never written back
      // down.
      upsert(
          jdbc,
          replicaId,
          address,
          startedAt,
          now,
          version.get(),
          json,
          clustered,
          heartbeat.toMillis());
      // Rows of replicas gone for an hour are history, not members: dropped every few minutes, not
      // every beat.
      if (now - lastCleanup >= CLEANUP_MILLIS) {
        jdbc.update(
            "delete from cluster_member where last_seen < ?", now - Duration.ofHours(1).toMillis());
        lastCleanup = now;
      }
    } catch (RuntimeException e) {
      log.warn("cluster heartbeat failed: {}", e.toString());
    }
  }

  /** Writes a replica's row: an update, or an insert the first time. */
  static void upsert(
      JdbcTemplate jdbc,
      String replicaId,
      String address,
      long startedAt,
      long lastSeen,
      long configVersion,
      String ownershipJson,
      boolean clustered,
      long heartbeatMillis) {
    int n =
        jdbc.update(
            "update cluster_member set address = ?, last_seen = ?, config_version = greatest(config_version, ?),"
                + " ownership_json = ?,"
                + " clustered = ?, heartbeat_millis = ? where replica_id = ?",
            address,
            lastSeen,
            configVersion,
            ownershipJson,
            clustered,
            heartbeatMillis,
            replicaId);
    if (n == 0) {
      jdbc.update(
          "insert into cluster_member (replica_id, address, started_at, last_seen, config_version,"
              + " ownership_json, clustered, heartbeat_millis) values (?, ?, ?, ?, ?, ?, ?, ?)",
          replicaId,
          address,
          startedAt,
          lastSeen,
          configVersion,
          ownershipJson,
          clustered,
          heartbeatMillis);
    }
  }

  /**
   * Writes this replica's new configuration version at once (not at the next heartbeat) and
   * announces it on {@link ConfigChangeLog#APPLIED_CHANNEL}, on the heartbeat thread: returns at
   * once, and reports that come faster than they are written are folded into one.
   */
  public void reportApplied(long appliedVersion) {
    if (toReport.getAndAccumulate(appliedVersion, Math::max) < 0) {
      try {
        timer.execute(this::writeApplied);
      } catch (java.util.concurrent.RejectedExecutionException closed) {
        toReport.set(-1);
      }
    }
  }

  private void writeApplied() {
    long v = toReport.getAndSet(-1);
    if (v < 0) {
      return;
    }
    try {
      jdbc.update(
          "update cluster_member set config_version = ? where replica_id = ? and config_version < ?",
          v,
          replicaId,
          v);
      if (postgres) {
        jdbc.execute("notify " + ConfigChangeLog.APPLIED_CHANNEL);
      }
    } catch (RuntimeException e) {
      // The next heartbeat writes it (within one heartbeat); writers waiting re-check by then.
      log.warn("could not report configuration version {} as applied: {}", v, e.toString());
    }
  }

  /**
   * Every replica's configuration version as last written and whether it is live, without the
   * ownership.
   */
  public List<Applied> appliedVersions() {
    long liveAfter = clock.millis() - 3 * heartbeat.toMillis();
    // A replica still starting has beaten (the cluster-mode guard starts its heartbeat first) but
    // reports its
    // address only once ready: it loads every definition as it starts, so it is not waited for
    // until then.
    return jdbc.query(
        "select replica_id, config_version, last_seen, address from cluster_member",
        (rs, i) ->
            new Applied(
                rs.getString(1),
                rs.getLong(2),
                rs.getLong(3) >= liveAfter && rs.getString(4) != null));
  }

  /** Whether other replicas can share this database: PostgreSQL yes; H2 belongs to one process. */
  public boolean sharedDatabase() {
    return postgres;
  }

  /** How often replicas beat: one not seen for three of them is not live. */
  public Duration heartbeat() {
    return heartbeat;
  }

  /** Every replica seen within the last hour, live ones first. */
  public List<Member> members() {
    long liveAfter = clock.millis() - 3 * heartbeat.toMillis();
    return jdbc.query(
        "select replica_id, address, started_at, last_seen, config_version, ownership_json, clustered"
            + " from cluster_member order by last_seen desc, replica_id",
        (rs, i) ->
            new Member(
                rs.getString(1),
                rs.getString(2),
                rs.getLong(3),
                rs.getLong(4),
                rs.getLong(5),
                rs.getString(6) == null ? null : Json.parse(rs.getString(6), "ownership"),
                rs.getLong(4) >= liveAfter,
                rs.getBoolean(7)));
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      jdbc.update("delete from cluster_member where replica_id = ?", replicaId);
    } catch (RuntimeException e) {
      log.debug("could not remove this replica's heartbeat row: {}", e.toString());
    }
  }
}
