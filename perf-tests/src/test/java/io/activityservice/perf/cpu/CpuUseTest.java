package io.activityservice.perf.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

class CpuUseTest {

  @Test
  void aPacedRunsUseCarriesItsRateAndTheCountersIncreases() {
    CpuMeter.Snapshot a =
        new CpuMeter.Snapshot(
            0,
            Map.of("service-own", 1_000_000L),
            true,
            Map.of("service.vcsw", 100L, "service.syscw", 50L));
    CpuMeter.Snapshot b =
        new CpuMeter.Snapshot(
            2_000_000_000L,
            Map.of("service-own", 21_000_000L),
            true,
            Map.of("service.vcsw", 400L, "service.syscw", 49L));
    CpuUse u = CpuUse.between("T2", "rate", 1000, 2, 1000, 990, a, b);
    assertEquals(1000, u.rate());
    assertEquals(20.0, u.cpuMs().get("service-own"), 1e-9);
    assertEquals(2.0, u.seconds(), 1e-9);
    assertEquals(
        Map.of("service.vcsw", 300L, "service.syscw", 0L), u.counts(), "a counter never goes down");
  }
}
