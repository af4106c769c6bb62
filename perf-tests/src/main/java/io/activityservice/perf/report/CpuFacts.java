package io.activityservice.perf.report;

import io.activityservice.perf.cpu.CpuUse;
import java.util.List;
import java.util.Map;

/**
 * What the report needs about CPU time: each burst's CPU use per source, the sources' idle rates
 * and descriptions, and whether the service's process also ran the ActiveMQ broker.
 *
 * @param uses per burst and source
 * @param idleRates source → idle CPU ms per s (mean of the idle measurements)
 * @param idleMeasurements each idle measurement, in order
 * @param sources source name → what it is and how it is read
 * @param brokerInService whether the service ran its embedded ActiveMQ (then its CPU includes the
 *     broker's)
 * @param shared sources that also serve others (a shared LocalStack): their idle rate is no
 *     baseline, so the report shows their gross figures
 */
public record CpuFacts(
    List<CpuUse> uses,
    Map<String, Double> idleRates,
    List<Map<String, Double>> idleMeasurements,
    Map<String, String> sources,
    boolean brokerInService,
    List<String> shared) {

  /** No CPU readings (an external service, or a run that did not read them). */
  public static CpuFacts none() {
    return new CpuFacts(List.of(), Map.of(), List.of(), Map.of(), false, List.of());
  }
}
