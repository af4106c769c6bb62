package io.activityservice.perf.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CpuCostTest {

  private static final long MS = 1_000_000L;

  @Test
  void aRunUsesTheDifferenceOfItsReadingsPerSource() {
    CpuMeter.Snapshot before =
        new CpuMeter.Snapshot(1_000 * MS, Map.of("service", 500 * MS, "activemq", 100 * MS), true);
    CpuMeter.Snapshot after =
        new CpuMeter.Snapshot(1_500 * MS, Map.of("service", 530 * MS, "localstack", 9 * MS), true);
    CpuUse u = CpuUse.between("T2", "burst", 500, 1, 500, before, after);
    assertEquals(0.5, u.seconds(), 1e-9);
    assertEquals(
        Map.of("service", 30.0), u.cpuMs(), "sources missing from either reading are left out");
    assertTrue(u.idle());
    assertFalse(
        CpuUse.between(
                "T2",
                "burst",
                500,
                1,
                500,
                before,
                new CpuMeter.Snapshot(1_500 * MS, Map.of(), false))
            .idle());
  }

  @Test
  void costPerEventSumsTheRunsOfAScenarioAndSubtractsTheIdleRate() {
    List<CpuUse> uses =
        List.of(
            new CpuUse(
                "T2", "burst", 100, 1, 100, 0.5, Map.of("service", 10.0, "activemq", 4.0), true),
            new CpuUse(
                "T2", "burst", 500, 1, 500, 1.5, Map.of("service", 30.0, "activemq", 12.0), true),
            new CpuUse("T4", "burst", 500, 1, 400, 2.0, Map.of("service", 60.0), true));
    List<CpuCost.Cost> costs = CpuCost.of(uses, Map.of("service", 2.0)); // 2 ms CPU per s when idle
    CpuCost.Cost t2 = CpuCost.find(costs, "T2", "burst", "service").orElseThrow();
    assertEquals(2, t2.runs());
    assertEquals(600, t2.events());
    assertEquals(2.0, t2.seconds(), 1e-9);
    assertEquals(40.0, t2.cpuMs(), 1e-9);
    assertEquals(40.0 * 1000 / 600, t2.grossMicros(), 1e-9); // 66.7 µs
    assertEquals((40.0 - 2.0 * 2.0) * 1000 / 600, t2.netMicros(), 1e-9); // 60 µs
    CpuCost.Cost amq = CpuCost.find(costs, "T2", "burst", "activemq").orElseThrow();
    assertEquals(16.0 * 1000 / 600, amq.grossMicros(), 1e-9);
    assertTrue(Double.isNaN(amq.netMicros()), "no idle rate: no net figure");
    CpuCost.Cost t4 = CpuCost.find(costs, "T4", "burst", "service").orElseThrow();
    assertEquals(400, t4.events(), "events relayed, not sent");
    assertEquals((60.0 - 4.0) * 1000 / 400, t4.netMicros(), 1e-9);
    assertTrue(CpuCost.find(costs, "T4", "burst", "activemq").isEmpty());
  }

  @Test
  void noEventsRelayedGivesNoFigure() {
    List<CpuCost.Cost> costs =
        CpuCost.of(
            List.of(new CpuUse("T2", "burst", 100, 1, 0, 1, Map.of("service", 5.0), true)),
            Map.of("service", 1.0));
    assertTrue(Double.isNaN(costs.get(0).grossMicros()));
    assertTrue(Double.isNaN(costs.get(0).netMicros()));
  }

  @Test
  void idleRatesAreMillisecondsOfCpuPerSecond() {
    CpuMeter.Snapshot a = new CpuMeter.Snapshot(0, Map.of("service", 100 * MS), true);
    CpuMeter.Snapshot b = new CpuMeter.Snapshot(2_000 * MS, Map.of("service", 130 * MS), true);
    assertEquals(Map.of("service", 15.0), CpuCost.rates(a, b));
    assertEquals(Map.of(), CpuCost.rates(b, b), "no time elapsed: no rate");
  }
}
