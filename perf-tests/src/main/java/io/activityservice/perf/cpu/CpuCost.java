package io.activityservice.perf.cpu;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * CPU microseconds per relayed event, per scenario and mode, from the runs' {@link CpuUse}s: the
 * CPU used in all its windows over all events relayed in them ("gross"), and the same after
 * subtracting what the source uses when idle over the same time ("net", the cost that grows with
 * the event rate).
 */
public final class CpuCost {

  private CpuCost() {}

  /**
   * One scenario's cost on one source.
   *
   * @param scenario scenario id
   * @param mode run mode
   * @param source CPU source name
   * @param runs windows summed
   * @param events events relayed in them
   * @param seconds total window length
   * @param cpuMs total CPU milliseconds
   * @param grossMicros cpuMs × 1000 / events
   * @param netMicros (cpuMs − idle rate × seconds) × 1000 / events; NaN without an idle rate
   */
  public record Cost(
      String scenario,
      String mode,
      String source,
      int runs,
      long events,
      double seconds,
      double cpuMs,
      double grossMicros,
      double netMicros) {}

  /** Milliseconds of CPU per second of each source between two readings. */
  public static Map<String, Double> rates(CpuMeter.Snapshot a, CpuMeter.Snapshot b) {
    double seconds = (b.nanoTime() - a.nanoTime()) / 1e9;
    Map<String, Double> out = new LinkedHashMap<>();
    if (seconds <= 0) {
      return out;
    }
    a.cpuNanos()
        .forEach(
            (k, v) -> {
              Long end = b.cpuNanos().get(k);
              if (end != null) {
                out.put(k, (end - v) / 1e6 / seconds);
              }
            });
    return out;
  }

  /**
   * Costs per (scenario, mode, source), in the order first seen.
   *
   * @param uses the runs' CPU uses
   * @param idleRates source → idle CPU milliseconds per second (missing: net is NaN)
   */
  public static List<Cost> of(List<CpuUse> uses, Map<String, Double> idleRates) {
    Map<String, double[]> sums = new LinkedHashMap<>(); // runs, events, seconds, cpuMs
    for (CpuUse u : uses) {
      for (Map.Entry<String, Double> e : u.cpuMs().entrySet()) {
        double[] s =
            sums.computeIfAbsent(
                u.scenario() + "\u0000" + u.mode() + "\u0000" + e.getKey(), k -> new double[4]);
        s[0]++;
        s[1] += u.events();
        s[2] += u.seconds();
        s[3] += e.getValue();
      }
    }
    List<Cost> out = new ArrayList<>();
    sums.forEach(
        (key, s) -> {
          String[] k = key.split("\u0000");
          long events = (long) s[1];
          Double idle = idleRates.get(k[2]);
          double gross = events == 0 ? Double.NaN : s[3] * 1000 / events;
          double net =
              events == 0 || idle == null ? Double.NaN : (s[3] - idle * s[2]) * 1000 / events;
          out.add(new Cost(k[0], k[1], k[2], (int) s[0], events, s[2], s[3], gross, net));
        });
    return out;
  }

  /** The cost of one scenario, mode and source, if measured. */
  public static java.util.Optional<Cost> find(
      List<Cost> costs, String scenario, String mode, String source) {
    return costs.stream()
        .filter(
            c ->
                c.scenario().equals(scenario) && c.mode().equals(mode) && c.source().equals(source))
        .findFirst();
  }
}
