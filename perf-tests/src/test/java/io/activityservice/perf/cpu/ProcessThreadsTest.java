package io.activityservice.perf.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ProcessThreadsTest {

  @Test
  void groupsHotspotThreadsByTheirFifteenCharacterNames() {
    assertEquals(ProcessThreads.JIT, ProcessThreads.hotspotGroup("C2 CompilerThre"));
    assertEquals(ProcessThreads.JIT, ProcessThreads.hotspotGroup("C1 CompilerThre"));
    assertEquals(ProcessThreads.JFR, ProcessThreads.hotspotGroup("JFR Recorder Th"));
    assertEquals(ProcessThreads.GC, ProcessThreads.hotspotGroup("GC Thread#1"));
    assertEquals(ProcessThreads.GC, ProcessThreads.hotspotGroup("G1 Conc#0"));
    assertEquals(ProcessThreads.GC, ProcessThreads.hotspotGroup("VM Thread"));
    assertNull(ProcessThreads.hotspotGroup("jms-sender-1"));
    assertNull(ProcessThreads.hotspotGroup("VM Periodic Tas"));
  }

  @Test
  void groupTotalsOnlyGrowAndCountWhatEachThreadUsedSinceTheFirstReading() {
    ProcessThreads t = new ProcessThreads(-1, ProcessThreads::hotspotGroup);
    Map<String, String> groups = Map.of("10", "jit", "11", "jit", "12", "gc", "13", "jit");
    t.add(Map.of("10", 5_000L, "11", 7_000L, "12", 100L), groups);
    assertEquals(
        Map.of("jit", 0L, "gc", 0L), t.totals(), "the first reading is the starting point");
    t.add(Map.of("10", 6_000L, "11", 7_500L, "12", 400L), groups);
    assertEquals(Map.of("jit", 1_500L, "gc", 300L), t.totals());
    // thread 11 ended (what it used since the last reading is lost), thread 13 is new: all it used
    // counts
    t.add(Map.of("10", 6_200L, "12", 400L, "13", 900L), groups);
    assertEquals(Map.of("jit", 2_600L, "gc", 300L), t.totals());
  }
}
