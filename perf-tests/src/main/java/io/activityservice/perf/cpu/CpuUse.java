package io.activityservice.perf.cpu;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The CPU time each source used during one measured run: from an idle reading right before the run's first
 * send to an idle reading after its last receipt, so work the service does after the last event arrived
 * (acknowledgements, settling) is counted too.
 *
 * @param scenario scenario id
 * @param mode     run mode ({@code burst}, {@code alone}, {@code beside}, …)
 * @param n        events sent
 * @param rep      repetition
 * @param events   events relayed (received by the consumer)
 * @param seconds  length of the reading window
 * @param cpuMs    source name → CPU milliseconds used in the window
 * @param idle     whether both readings were taken with the service idle
 */
public record CpuUse(String scenario, String mode, int n, int rep, long events, double seconds,
    Map<String, Double> cpuMs, boolean idle) {

  /** The use between two snapshots (sources missing from either are left out). */
  public static CpuUse between(String scenario, String mode, int n, int rep, long events, CpuMeter.Snapshot before,
      CpuMeter.Snapshot after) {
    Map<String, Double> ms = new LinkedHashMap<>();
    before.cpuNanos().forEach((k, v) -> {
      Long end = after.cpuNanos().get(k);
      if (end != null) {
        ms.put(k, (end - v) / 1e6);
      }
    });
    return new CpuUse(scenario, mode, n, rep, events, (after.nanoTime() - before.nanoTime()) / 1e9, ms,
        before.idle() && after.idle());
  }
}
