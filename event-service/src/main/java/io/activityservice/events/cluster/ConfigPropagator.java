package io.activityservice.events.cluster;

import io.activityservice.channel.support.DaemonThreads;
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
 * Applies, on this replica, the configuration changes other replicas recorded in the {@link
 * ConfigChangeLog}.
 *
 * <p>A change is applied by re-reading the changed thing from the database and installing or
 * removing it locally (an {@link #register applier} per kind), so applying is idempotent and a
 * missed or repeated signal does no harm. Changes this replica recorded itself were applied by the
 * write that made them and are only counted. The thread wakes on PostgreSQL {@code NOTIFY} (sent at
 * commit, so it arrives within milliseconds) and otherwise checks the version every {@code
 * pollInterval}: a replica that was disconnected when a notification went out catches up at the
 * next check. On H2 (one replica) only the check runs.
 *
 * <p>Changes to different things apply in parallel, so a subscription does not wait behind a
 * detector's compile (seconds on a loaded machine): changes to one thing (same kind and key) apply
 * in their order, and a change of a {@link #registerBarrier barrier} kind (event types, which
 * detectors and rule sets compile against) waits for every earlier change and holds back every
 * later one. The {@link #appliedVersion() applied version} is the highest version up to which every
 * change has been applied; each time it advances, the {@link #onApplied listener} is told (the
 * cluster view writes it to {@code cluster_member} and wakes writers waiting for their change to be
 * in force). The same thread also listens to {@link ConfigChangeLog#APPLIED_CHANNEL}, other
 * replicas' "applied" signals, and passes them on ({@link #onOthersApplied}).
 */
public final class ConfigPropagator implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ConfigPropagator.class);

  /**
   * Changes fetched and not yet applied, at most: bounds memory and the appliers' threads after a
   * long absence.
   */
  private static final int WINDOW = 500;

  /**
   * Threads applying changes at once, at most (compiles are CPU-bound; more would only compete for
   * the cores).
   */
  private static final int APPLIERS = 4;

  private final ConfigChangeLog changes;
  private final DataSource dataSource;
  private final Duration pollInterval;
  private final Map<String, Consumer<String>> appliers = new ConcurrentHashMap<>();
  private final java.util.Set<String> barriers = ConcurrentHashMap.newKeySet();
  private final Object wake = new Object();
  private final Thread thread;
  private final java.util.concurrent.ThreadPoolExecutor workers;

  /** Fetched changes not yet counted in the applied version, oldest first; guarded by itself. */
  private final java.util.ArrayDeque<Pending> pending = new java.util.ArrayDeque<>();

  /** The highest version fetched; on the propagator's thread only. */
  private long fetchedVersion;

  private volatile long appliedVersion;
  private volatile java.util.function.LongConsumer appliedListener = v -> {};
  private volatile Runnable othersApplied = () -> {};

  /** Recent changes made elsewhere: version and milliseconds from their commit to applied here. */
  private final java.util.Deque<long[]> recentLags = new java.util.ArrayDeque<>();

  private static final int LAGS_KEPT = 1000;
  private volatile boolean closed;
  private volatile Connection listening;

  /** A fetched change and where it stands; fields guarded by {@link #pending}. */
  private static final class Pending {
    final ConfigChangeLog.Change change;
    final String lane;
    final boolean barrier;
    boolean started;
    boolean done;

    Pending(ConfigChangeLog.Change change, boolean barrier) {
      this.change = change;
      this.lane = change.kind() + '\u0000' + change.key();
      this.barrier = barrier;
    }
  }

  public ConfigPropagator(ConfigChangeLog changes, DataSource dataSource, Duration pollInterval) {
    this.changes = changes;
    this.dataSource = dataSource;
    this.pollInterval = pollInterval;
    this.thread = DaemonThreads.thread("config-propagator", this::run);
    this.workers =
        new java.util.concurrent.ThreadPoolExecutor(
            APPLIERS,
            APPLIERS,
            30,
            TimeUnit.SECONDS,
            new java.util.concurrent.LinkedBlockingQueue<>(),
            DaemonThreads.factory("config-apply"));
    workers.allowCoreThreadTimeOut(true);
    changes.onLocalChange(version -> nudge());
    // Start from the version current now: what was configured before is loaded by the services at
    // start-up (after
    // this, so a change committed while they load is applied again — harmless, applying is
    // idempotent).
    this.appliedVersion = changes.currentVersion();
    this.fetchedVersion = appliedVersion;
  }

  /**
   * Registers how changes of one kind are applied: {@code apply} re-reads the thing with that key
   * from the database and installs it, replaces it, or removes it if it is gone. It must not throw
   * for a thing that fails to apply here (log and report it instead): that would stop propagation
   * for every later change. Changes of this kind to different keys may apply in parallel with each
   * other and with other kinds.
   */
  public ConfigPropagator register(String kind, Consumer<String> apply) {
    appliers.put(kind, apply);
    return this;
  }

  /**
   * Registers a kind that other things are built against (event types: detectors and rule sets
   * compile against their schemas): a change of it applies after every earlier change and before
   * any later one.
   */
  public ConfigPropagator registerBarrier(String kind, Consumer<String> apply) {
    barriers.add(kind);
    return register(kind, apply);
  }

  /**
   * Told the new applied version each time it advances, on an applier's thread: keep it short (hand
   * I/O to another thread).
   */
  public ConfigPropagator onApplied(java.util.function.LongConsumer listener) {
    this.appliedListener = listener;
    return this;
  }

  /**
   * Run when another replica announces on {@link ConfigChangeLog#APPLIED_CHANNEL} that it applied a
   * version.
   */
  public ConfigPropagator onOthersApplied(Runnable listener) {
    this.othersApplied = listener;
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
   * How long the latest changes made by other replicas took to take effect here, from their commit
   * (the replicas' clocks are assumed in sync): pairs of version and milliseconds, oldest first.
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
        if (changes.isPostgres()) {
          listener(); // listening before reading: a change committed after the read is signalled,
          // not missed
        }
        catchUp();
        waitForSignal();
      } catch (RuntimeException | SQLException e) {
        if (!closed) {
          log.warn(
              "configuration propagation failed, retrying in {}: {}", pollInterval, e.toString());
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

  /** Fetches every change after the fetched version and starts those that may start. */
  private void catchUp() throws InterruptedException {
    List<ConfigChangeLog.Change> batch;
    int asked;
    do {
      int room;
      synchronized (pending) {
        while (pending.size() >= WINDOW && !closed) {
          pending.wait(pollInterval.toMillis());
        }
        room = WINDOW - pending.size();
      }
      asked = Math.max(1, room);
      batch = changes.since(fetchedVersion, asked);
      synchronized (pending) {
        for (ConfigChangeLog.Change c : batch) {
          Pending p = new Pending(c, barriers.contains(c.kind()));
          // This replica's own changes were applied by the write that made them.
          p.started = p.done = c.replica().equals(changes.replicaId());
          pending.addLast(p);
          fetchedVersion = c.version();
        }
      }
      settle();
    } while (batch.size() == asked && !closed);
  }

  /**
   * Counts the leading finished changes into the applied version and starts every waiting change
   * whose lane is free and which no unfinished barrier holds back.
   */
  private void settle() {
    long advancedTo = -1;
    List<Pending> toStart = new java.util.ArrayList<>();
    synchronized (pending) {
      while (!pending.isEmpty() && pending.peekFirst().done) {
        advancedTo = pending.removeFirst().change.version();
      }
      if (advancedTo >= 0) {
        appliedVersion = advancedTo;
        pending.notifyAll();
      }
      java.util.Set<String> busyLanes = new java.util.HashSet<>();
      boolean allEarlierDone = true;
      for (Pending p : pending) {
        if (!p.started && !busyLanes.contains(p.lane) && (!p.barrier || allEarlierDone)) {
          p.started = true;
          toStart.add(p);
        }
        if (!p.done) {
          busyLanes.add(p.lane);
          allEarlierDone = false;
          if (p.barrier) {
            break; // nothing after an unfinished barrier starts
          }
        }
      }
    }
    for (Pending p : toStart) {
      try {
        workers.execute(
            () -> {
              try {
                apply(p.change);
              } finally {
                synchronized (pending) {
                  p.done = true;
                }
                settle();
              }
            });
      } catch (java.util.concurrent.RejectedExecutionException closing) {
        return;
      }
    }
    if (advancedTo >= 0) {
      try {
        appliedListener.accept(advancedTo);
      } catch (RuntimeException e) {
        log.warn(
            "could not report configuration version {} as applied: {}", advancedTo, e.toString());
      }
    }
  }

  private void apply(ConfigChangeLog.Change c) {
    Consumer<String> applier = appliers.get(c.kind());
    if (applier == null) {
      log.warn(
          "configuration change {} of unknown kind '{}' ignored",
          c.version(),
          LogSafe.text(c.kind()));
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
        log.info(
            "configuration change {} ({} {}) applied {} ms after its commit",
            c.version(),
            c.kind(),
            LogSafe.text(c.key()),
            lag);
      }
      log.debug(
          "applied configuration change {} ({} {}) from {}",
          c.version(),
          c.kind(),
          LogSafe.text(c.key()),
          LogSafe.text(c.replica()));
    } catch (RuntimeException e) {
      log.error(
          "configuration change {} ({} {}) could not be applied on this replica: {}",
          c.version(),
          c.kind(),
          LogSafe.text(c.key()),
          LogSafe.text(e.toString(), 1024),
          e);
    }
  }

  /** Waits for a NOTIFY (PostgreSQL) or a nudge, at most one poll interval. */
  private void waitForSignal() throws SQLException, InterruptedException {
    if (changes.isPostgres()) {
      org.postgresql.PGConnection pg = listener();
      long deadline = System.nanoTime() + pollInterval.toNanos();
      while (!closed) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
          return;
        }
        // Returns at the first notifications or after the time left, whichever comes first.
        org.postgresql.PGNotification[] received = pg.getNotifications((int) left);
        boolean configChanged = false;
        for (org.postgresql.PGNotification n :
            received == null ? new org.postgresql.PGNotification[0] : received) {
          if (ConfigChangeLog.APPLIED_CHANNEL.equals(n.getName())) {
            othersApplied.run();
          } else {
            configChanged = true;
          }
        }
        if (configChanged) {
          return;
        }
      }
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
        st.execute("listen " + ConfigChangeLog.APPLIED_CHANNEL);
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
    synchronized (pending) {
      pending.notifyAll();
    }
    workers.shutdownNow();
    // Ends a wait for notifications at once rather than at the end of the poll interval: the
    // physical connection
    // (closing a pool's handle would only hand it back to the pool, still waiting).
    Connection c = listening;
    if (c != null) {
      try {
        Connection physical =
            c.isWrapperFor(org.postgresql.PGConnection.class)
                ? c.unwrap(org.postgresql.PGConnection.class) instanceof Connection pg ? pg : c
                : c;
        physical.close();
      } catch (SQLException ignored) {
        // closing anyway
      }
    }
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
