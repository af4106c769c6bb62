package io.activityservice.perf.cpu;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The CPU time each source used during one measured run: from an idle reading right before the
 * run's first send to an idle reading after its last receipt, so work the service does after the
 * last event arrived (acknowledgements, settling) is counted too.
 *
 * @param scenario scenario id
 * @param mode run mode ({@code burst}, {@code rate}, {@code alone}, {@code beside}, …)
 * @param n events sent
 * @param rep repetition
 * @param events events relayed (received by the consumer)
 * @param seconds length of the reading window
 * @param cpuMs source name → CPU milliseconds used in the window
 * @param idle whether both readings were taken with the service idle
 * @param rate offered rate of a paced run (events/s), else 0
 * @param counts counter name ({@code <process>.<counter>}, see {@link ProcessCounters}) → increase
 *     in the window
 */
public record CpuUse(
    String scenario,
    String mode,
    int n,
    int rep,
    long events,
    double seconds,
    Map<String, Double> cpuMs,
    boolean idle,
    double rate,
    Map<String, Long> counts) {

  /** A use without a rate or counters. */
  public CpuUse(
      String scenario,
      String mode,
      int n,
      int rep,
      long events,
      double seconds,
      Map<String, Double> cpuMs,
      boolean idle) {
    this(scenario, mode, n, rep, events, seconds, cpuMs, idle, 0, Map.of());
  }

  /** The use between two snapshots (sources missing from either are left out). */
  public static CpuUse between(
      String scenario,
      String mode,
      int n,
      int rep,
      long events,
      CpuMeter.Snapshot before,
      CpuMeter.Snapshot after) {
    return between(scenario, mode, n, rep, 0, events, before, after);
  }

  /** The use of a paced run at {@code rate} between two snapshots. */
  public static CpuUse between(
      String scenario,
      String mode,
      int n,
      int rep,
      double rate,
      long events,
      CpuMeter.Snapshot before,
      CpuMeter.Snapshot after) {
    Map<String, Double> ms = new LinkedHashMap<>();
    before
        .cpuNanos()
        .forEach(
            (k, v) -> {
              Long end = after.cpuNanos().get(k);
              if (end != null) {
                ms.put(k, (end - v) / 1e6);
              }
            });
    Map<String, Long> counts = new LinkedHashMap<>();
    before
        .counts()
        .forEach(
            (k, v) -> {
              Long end = after.counts().get(k);
              if (end != null) {
                counts.put(k, Math.max(0, end - v));
              }
            });
    return new CpuUse(
        scenario,
        mode,
        n,
        rep,
        events,
        (after.nanoTime() - before.nanoTime()) / 1e9,
        ms,
        before.idle() && after.idle(),
        rate,
        counts);
  }

  /**
   * The share of {@code process}'s own CPU that its JIT compiler threads used in this window
   * ({@code <process>-jit} over {@code <process>-own}); 0 when they were not read (no JIT to tell
   * apart), infinite when the compilers ran but the process's own threads did not.
   */
  public double jitShare(String process) {
    if (process == null) {
      return 0;
    }
    Double jit = cpuMs.get(process + "-jit");
    Double own = cpuMs.get(process + "-own");
    if (jit == null || own == null) {
      return 0;
    }
    if (own <= 0) {
      return jit > 0 ? Double.POSITIVE_INFINITY : 0;
    }
    return Math.max(0, jit) / own;
  }
}
