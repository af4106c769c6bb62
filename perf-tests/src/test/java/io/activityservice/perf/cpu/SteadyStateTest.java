package io.activityservice.perf.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The steady-state rule: JIT share under 2 % of the process's own CPU, 3 bursts per figure, a bound
 * on repeats.
 */
class SteadyStateTest {

  @Test
  void theJitShareIsTheCompilersCpuOverTheProcesssOwn() {
    assertEquals(0.01, burst("T2", 10_000, 1, 1000, 10).jitShare("service"), 1e-9);
    assertEquals(
        0, burst("T2", 10_000, 1, 1000, 10).jitShare(null), "no process: nothing to tell apart");
    assertEquals(
        0,
        new CpuUse("T3", "burst", 10, 1, 10, 1, Map.of("localstack", 5.0), true)
            .jitShare("service"),
        "compiler threads not read: counts as steady");
    assertEquals(Double.POSITIVE_INFINITY, burst("T2", 10, 1, 0, 3).jitShare("service"));
  }

  @Test
  void aBurstCountsOnlyBelowTheBoundAndAFigureNeedsThreeSuchBursts() {
    List<CpuUse> uses =
        new ArrayList<>(
            List.of(
                burst("T2", 10_000, 1, 1000, 80), // 8 %: JIT still compiling
                burst("T2", 10_000, 2, 1000, 20), // exactly 2 %: does not count (must be below)
                burst("T2", 10_000, 3, 1000, 5),
                burst("T2", 500, 1, 100, 0), // other size
                burst("T4", 10_000, 1, 1000, 0))); // other scenario
    SteadyState.Selection s = SteadyState.select(uses, "T2", 10_000, "service", 3, 0.02);
    assertEquals(3, s.all().size());
    assertEquals(1, s.accepted().size());
    assertFalse(s.steady());
    assertEquals(List.of(uses.get(2)), s.used(), "the figure uses the steady bursts only");
    assertTrue(SteadyState.another(s, 8), "repeat while under the bound");
    assertFalse(SteadyState.another(s, 3), "the bound on bursts stops the repeats");
    assertTrue(s.verdict().startsWith("not steady: 1 of 3 bursts of 10,000"), s.verdict());

    uses.add(burst("T2", 10_000, 4, 1000, 1));
    uses.add(burst("T2", 10_000, 5, 1000, 19));
    SteadyState.Selection done = SteadyState.select(uses, "T2", 10_000, "service", 3, 0.02);
    assertTrue(done.steady());
    assertFalse(SteadyState.another(done, 8), "steady: no more bursts");
    assertTrue(done.verdict().startsWith("steady: 3 of 3"), done.verdict());
  }

  @Test
  void withoutAnySteadyBurstTheFigureUsesAllAndSaysSo() {
    List<CpuUse> uses = List.of(burst("T4", 500, 1, 100, 80), burst("T4", 500, 2, 100, 40));
    SteadyState.Selection s = SteadyState.select(uses, "T4", 500, "service", 3, 0.02);
    assertEquals(uses, s.used());
    assertEquals(0.8, s.jitShareOfUsed(), 1e-9);
    assertTrue(s.verdict().contains("figure from all of them, max JIT share 80.0 %"), s.verdict());
  }

  private static CpuUse burst(String scenario, int n, int rep, double ownMs, double jitMs) {
    return new CpuUse(
        scenario,
        "burst",
        n,
        rep,
        n,
        1.0,
        Map.of("service-own", ownMs, "service-jit", jitMs),
        true);
  }
}
