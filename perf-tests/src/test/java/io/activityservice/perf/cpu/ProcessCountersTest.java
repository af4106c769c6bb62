package io.activityservice.perf.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ProcessCountersTest {

  @Test
  void parsesContextSwitchesAndWriteCalls() {
    String status =
        "Name:\tjava\nState:\tS (sleeping)\nvoluntary_ctxt_switches:\t1523\nnonvoluntary_ctxt_switches:\t17\n";
    assertArrayEquals(new long[] {1523, 17}, ProcessCounters.contextSwitches(status));
    String io = "rchar: 10\nwchar: 20\nsyscr: 300\nsyscw: 4000\nread_bytes: 0\n";
    assertEquals(
        Map.of("service.syscw", 4000L, "service.syscr", 300L), ProcessCounters.io("service", io));
  }

  @Test
  void readsThisProcess() {
    Map<String, Long> c = new ProcessCounters("self", ProcessHandle.current().pid()).read();
    assertTrue(c.get("self.vcsw") > 0, c.toString());
    assertTrue(c.containsKey("self.ivcsw"), c.toString());
  }
}
