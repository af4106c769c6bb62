package io.activityservice.events.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Tells whether a configuration version is in force on every live replica, and waits (bounded)
 * until it is: what a definition write waits for before it answers.
 *
 * <p>A version is <em>in force</em> on a replica once the replica has applied every change up to it
 * (its {@link ConfigPropagator#appliedVersion() applied version}, written to {@code cluster_member}
 * as soon as it advances); it is in force in the cluster once it is in force on this replica (from
 * memory) and on every other replica whose heartbeat is live (seen within three heartbeats). A
 * replica that is not live is not waited for: it applies the change when it comes back (its
 * propagator catches up from the change log). A replica that is paused but still counts as live (a
 * GC pause, SIGSTOP, within three heartbeats) holds the answer until the bound.
 *
 * <p>Waiting costs no polling loop: waiters sleep until a replica announces a newer version ({@code
 * NOTIFY activity_config_applied}, passed on by the {@link ConfigPropagator} to {@link #signal()})
 * and re-read the versions then, with a bounded fallback re-check ({@value #RECHECK_MILLIS} ms) for
 * a lost signal or a replica that stopped being live meanwhile.
 */
public final class ConfigApplyWaiter {

  /** Longest sleep between two checks when no signal comes. */
  static final long RECHECK_MILLIS = 500;

  /**
   * Where a configuration version stands.
   *
   * @param version the configuration version
   * @param inForce whether every live replica has applied it
   * @param lagging live replicas that have not applied it yet, by name (empty when in force)
   */
  public record Status(long version, boolean inForce, List<String> lagging) {
    public Status {
      lagging = List.copyOf(lagging);
    }
  }

  private final String replicaId;
  private final LongSupplier selfApplied;
  private final Supplier<ClusterMembers> members;
  private final Object signals = new Object();

  /** Counts signals, so a waiter that re-reads the versions misses none sent while it read. */
  private long signalCount;

  /**
   * @param replicaId this replica's name
   * @param selfApplied this replica's applied version ({@link ConfigPropagator#appliedVersion()})
   * @param members the cluster view, or null while it is not started (then this replica is alone
   *     and every version counts as in force)
   */
  public ConfigApplyWaiter(
      String replicaId, LongSupplier selfApplied, Supplier<ClusterMembers> members) {
    this.replicaId = replicaId;
    this.selfApplied = selfApplied;
    this.members = members;
  }

  /** Wakes the waiters to re-read the replicas' versions: a replica applied a newer version. */
  public void signal() {
    synchronized (signals) {
      signalCount++;
      signals.notifyAll();
    }
  }

  /** Where {@code version} stands now (one read of {@code cluster_member}). */
  public Status status(long version) {
    ClusterMembers view = members.get();
    if (view == null) {
      // Not started yet (no propagation, no heartbeat): this replica applied its own change and is
      // alone.
      return new Status(version, true, List.of());
    }
    List<String> lagging = new ArrayList<>();
    if (selfApplied.getAsLong() < version) {
      lagging.add(replicaId);
    }
    // On H2 this process is the only replica (rows of its earlier runs are history, not replicas).
    List<ClusterMembers.Applied> replicas =
        view.sharedDatabase() ? view.appliedVersions() : List.of();
    for (ClusterMembers.Applied m : replicas) {
      if (m.live() && !m.replicaId().equals(replicaId) && m.configVersion() < version) {
        lagging.add(m.replicaId());
      }
    }
    lagging.sort(null);
    return new Status(version, lagging.isEmpty(), lagging);
  }

  /**
   * Waits until {@code version} is in force on every live replica, or {@code bound} has passed.
   *
   * @return where the version stands when the wait ended: in force, or the replicas still lagging
   */
  public Status await(long version, Duration bound) {
    long deadline = System.nanoTime() + bound.toNanos();
    while (true) {
      long seen;
      synchronized (signals) {
        seen = signalCount;
      }
      Status s = status(version);
      long left = deadline - System.nanoTime();
      if (s.inForce() || left <= 0) {
        return s;
      }
      try {
        synchronized (signals) {
          if (signalCount == seen) {
            TimeUnit.NANOSECONDS.timedWait(
                signals, Math.min(left, TimeUnit.MILLISECONDS.toNanos(RECHECK_MILLIS)));
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return status(version);
      }
    }
  }
}
