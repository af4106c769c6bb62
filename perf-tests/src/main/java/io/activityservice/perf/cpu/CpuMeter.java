package io.activityservice.perf.cpu;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Reads the CPU time of every {@link CpuSource} at once, waits for the service to go idle before a
 * reading (so that a run's window does not carry the previous run's tail), and measures each
 * source's idle rate.
 */
public final class CpuMeter {

  /** Length of one idle probe. */
  static final Duration PROBE = Duration.ofMillis(100);

  /**
   * CPU a watched process may use in one probe and still count as idle: one 10 ms clock tick in 100
   * ms, 10 % of a core (process CPU time is read in ticks).
   */
  static final long IDLE_NANOS_PER_PROBE = 10_000_000L;

  /**
   * CPU times read at one moment.
   *
   * @param nanoTime {@link System#nanoTime()} of the reading
   * @param cpuNanos source name → total CPU nanoseconds (sources that could not be read are absent)
   * @param idle whether the watched sources were idle just before the reading
   * @param counts counter name → value (context switches, write calls; see {@link ProcessCounters})
   */
  public record Snapshot(
      long nanoTime, Map<String, Long> cpuNanos, boolean idle, Map<String, Long> counts) {
    /** A reading without counters. */
    public Snapshot(long nanoTime, Map<String, Long> cpuNanos, boolean idle) {
      this(nanoTime, cpuNanos, idle, Map.of());
    }
  }

  private final List<CpuSource> sources;
  private final List<String> watched;
  private final List<ProcessCounters> counters = new java.util.concurrent.CopyOnWriteArrayList<>();

  /**
   * @param sources every source to read
   * @param watched names of the sources that must be idle before a reading (the suite's own
   *     processes, not a shared LocalStack)
   */
  public CpuMeter(List<CpuSource> sources, List<String> watched) {
    this.sources = new java.util.concurrent.CopyOnWriteArrayList<>(sources);
    this.watched = new java.util.concurrent.CopyOnWriteArrayList<>(watched);
  }

  /**
   * Adds the sources of a process started later (the Camel peer).
   *
   * @param watch whether it must be idle before a reading too
   */
  public void add(List<CpuSource> more, String name, boolean watch) {
    sources.addAll(more);
    if (watch) {
      watched.add(name);
    }
  }

  /** Adds a process whose counters are read with each reading taken at the end of an idle wait. */
  public void addCounters(ProcessCounters c) {
    counters.add(c);
  }

  /** The sources. */
  public List<CpuSource> sources() {
    return sources;
  }

  /** Whether there is anything to measure. */
  public boolean enabled() {
    return !sources.isEmpty();
  }

  /** Reads every source now. */
  public Snapshot snapshot() {
    Map<String, Long> m = new LinkedHashMap<>();
    for (CpuSource s : sources) {
      OptionalLong ns = s.cpuNanos();
      if (ns.isPresent()) {
        m.put(s.name(), ns.getAsLong());
      }
    }
    return new Snapshot(System.nanoTime(), m, true);
  }

  /**
   * Waits until the watched sources used at most {@value #IDLE_NANOS_PER_PROBE} ns (10 % of a core)
   * in one 100 ms probe, at most {@code max}, and returns the reading at the end of the first idle
   * probe (or the last reading, marked not idle, when the time ran out).
   */
  public Snapshot idleSnapshot(Duration max) throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    Snapshot previous = snapshot();
    while (true) {
      Thread.sleep(PROBE.toMillis());
      Snapshot now = snapshot();
      if (isIdle(previous, now)) {
        return new Snapshot(now.nanoTime(), now.cpuNanos(), true, counts());
      }
      if (System.nanoTime() > deadline) {
        return new Snapshot(now.nanoTime(), now.cpuNanos(), false, counts());
      }
      previous = now;
    }
  }

  private Map<String, Long> counts() {
    Map<String, Long> m = new LinkedHashMap<>();
    counters.forEach(c -> m.putAll(c.read()));
    return m;
  }

  private boolean isIdle(Snapshot a, Snapshot b) {
    for (String w : watched) {
      Long x = a.cpuNanos().get(w);
      Long y = b.cpuNanos().get(w);
      if (x != null && y != null && y - x > IDLE_NANOS_PER_PROBE) {
        return false;
      }
    }
    return true;
  }

  /**
   * Each source's CPU use while nothing is sent, in milliseconds of CPU per second, over {@code
   * window} (after waiting for idleness).
   */
  public Map<String, Double> idleRates(Duration window) throws InterruptedException {
    Snapshot a = idleSnapshot(Duration.ofSeconds(10));
    Thread.sleep(window.toMillis());
    Snapshot b = snapshot();
    return CpuCost.rates(a, b);
  }
}
