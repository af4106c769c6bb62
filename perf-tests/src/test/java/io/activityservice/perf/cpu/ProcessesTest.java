package io.activityservice.perf.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ProcessesTest {

  @Test
  void findsTheInodesOfSocketsListeningOnAPort() {
    List<String> table =
        List.of(
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
            "   0: 0100007F:11D6 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4711 1 0000 100 0 0 10 0",
            "   1: 0100007F:11D6 0100007F:A1B2 01 00000000:00000000 00:00000000 00000000     0        0 4712 1 0000 20 4 30 10 -1",
            "   2: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4713 1 0000 100 0 0 10 0");
    assertEquals(
        Set.of("4711"),
        Processes.parseListening(table, 4566),
        "established connections do not count");
    assertEquals(Set.of("4713"), Processes.parseListening(table, 8080));
    assertEquals(Set.of(), Processes.parseListening(table, 9999));
  }
}
