package io.activityservice.events.cluster;

import io.activityservice.events.log.LogSafe;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies, on this replica, the configuration changes other replicas recorded in the {@link ConfigChangeLog}.
 *
 * <p>A change is applied by re-reading the changed thing from the database and installing or removing it locally
 * (an {@link #register applier} per kind), so applying is idempotent and a missed or repeated signal does no harm.
 * Changes this replica recorded itself were applied by the write that made them and are only counted. The thread
 * wakes on PostgreSQL {@code NOTIFY} (sent at commit, so it arrives within milliseconds) and otherwise checks the
 * version every {@code pollInterval}: a replica that was disconnected when a notification went out catches up at
 * the next check. On H2 (one replica) only the check runs.
 */
public final class ConfigPropagator implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ConfigPropagator.class);
  private static final int BATCH = 500;

  private final ConfigChangeLog changes;
  private final DataSource dataSource;
  private final Duration pollInterval;
  private final Map<String, Consumer<String>> appliers = new ConcurrentHashMap<>();
  private final Object wake = new Object();
  private final Thread thread;
  private volatile long appliedVersion;
  /** Recent changes made elsewhere: version and milliseconds from their commit to applied here. */
  private final java.util.Deque<long[]> recentLags = new java.util.ArrayDeque<>();
  private static final int LAGS_KEPT = 1000;
  private volatile boolean closed;
  private Connection listening;

  public ConfigPropagator(ConfigChangeLog changes, DataSource dataSource, Duration pollInterval) {
    this.changes = changes;
    this.dataSource = dataSource;
    this.pollInterval = pollInterval;
    this.thread = new Thread(this::run, "config-propagator");
    thread.setDaemon(true);
    changes.onLocalChange(version -> nudge());
    // Start from the version current now: what was configured before is loaded by the services at start-up (after
    // this, so a change committed while they load is applied again — harmless, applying is idempotent).
    this.appliedVersion = changes.currentVersion();
  }

  /**
   * Registers how changes of one kind are applied: {@code apply} re-reads the thing with that key from the
   * database and installs it, replaces it, or removes it if it is gone. It must not throw for a thing that
   * fails to apply here (log and report it instead): that would stop propagation for every later change.
   */
  public ConfigPropagator register(String kind, Consumer<String> apply) {
    appliers.put(kind, apply);
    return this;
  }

  /** Starts applying changes; call it once every kind is registered. */
  public ConfigPropagator start() {
    thread.start();
    return this;
  }

  /** The configuration version this replica runs: every change up to it is applied here. */
  public long appliedVersion() {
    return appliedVersion;
  }

  /**
   * How long the latest changes made by other replicas took to take effect here, from their commit (the replicas'
   * clocks are assumed in sync): pairs of version and milliseconds, oldest first.
   */
  public List<long[]> recentLags() {
    synchronized (recentLags) {
      return List.copyOf(recentLags);
    }
  }

  void nudge() {
    synchronized (wake) {
      wake.notifyAll();
    }
  }

  private void run() {
    while (!closed) {
      try {
        catchUp();
        waitForSignal();
      } catch (RuntimeException | SQLException e) {
        if (!closed) {
          log.warn("configuration propagation failed, retrying in {}: {}", pollInterval, e.toString());
          closeListener();
          sleep(pollInterval.toMillis());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    closeListener();
  }

  /** Applies every change after the applied version, in order. */
  private void catchUp() {
    List<ConfigChangeLog.Change> batch;
    do {
      batch = changes.since(appliedVersion, BATCH);
      for (ConfigChangeLog.Change c : batch) {
        if (!c.replica().equals(changes.replicaId())) {
          apply(c);
        }
        appliedVersion = c.version();
      }
    } while (batch.size() == BATCH && !closed);
  }

  private void apply(ConfigChangeLog.Change c) {
    Consumer<String> applier = appliers.get(c.kind());
    if (applier == null) {
      log.warn("configuration change {} of unknown kind '{}' ignored", c.version(), LogSafe.text(c.kind()));
      return;
    }
    try {
      applier.accept(c.key());
      long lag = Math.max(0, System.currentTimeMillis() - c.changedAt());
      synchronized (recentLags) {
        recentLags.addLast(new long[] {c.version(), lag});
        if (recentLags.size() > LAGS_KEPT) {
          recentLags.removeFirst();
        }
      }
      if (lag > 1000) {
        log.info("configuration change {} ({} {}) applied {} ms after its commit", c.version(), c.kind(),
            LogSafe.text(c.key()),
            lag);
      }
      log.debug("applied configuration change {} ({} {}) from {}", c.version(), c.kind(), LogSafe.text(c.key()),
          LogSafe.text(c.replica()));
    } catch (RuntimeException e) {
      log.error("configuration change {} ({} {}) could not be applied on this replica: {}", c.version(), c.kind(),
          LogSafe.text(c.key()), LogSafe.text(e.toString(), 1024), e);
    }
  }

  /** Waits for a NOTIFY (PostgreSQL) or a nudge, at most one poll interval. */
  private void waitForSignal() throws SQLException, InterruptedException {
    if (changes.isPostgres()) {
      org.postgresql.PGConnection pg = listener();
      // Returns at the first notification or after the poll interval, whichever comes first.
      pg.getNotifications((int) pollInterval.toMillis());
      return;
    }
    synchronized (wake) {
      wake.wait(pollInterval.toMillis());
    }
  }

  private org.postgresql.PGConnection listener() throws SQLException {
    if (listening == null || listening.isClosed()) {
      Connection c = dataSource.getConnection();
      c.setAutoCommit(true);
      try (Statement st = c.createStatement()) {
        st.execute("listen " + ConfigChangeLog.CHANNEL);
      }
      listening = c;
    }
    return listening.unwrap(org.postgresql.PGConnection.class);
  }

  private void closeListener() {
    if (listening != null) {
      try {
        listening.close();
      } catch (SQLException ignored) {
        // closing anyway
      }
      listening = null;
    }
  }

  private static void sleep(long millis) {
    try {
      TimeUnit.MILLISECONDS.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    closed = true;
    nudge();
    try {
      thread.join(pollInterval.toMillis() + 2_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
