package io.activityservice.perf.suite;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class TrackerTest {

  @Test
  void countsFirstCopiesDuplicatesAndForeignIdsAndRecordsLatencyFromIntendedTime() {
    Tracker t = new Tracker("run-1-", 3);
    t.markSent(0, 1_000_000);
    t.markSent(1, 2_000_000);
    t.markSent(2, 3_000_000);
    t.received("run-1-0", 3_000_000); // 2 ms
    t.received("run-1-1", 12_000_000); // 10 ms
    t.received("run-1-1", 13_000_000); // duplicate
    t.received("run-0-1", 13_000_000); // other run
    t.received("run-1-x", 13_000_000); // not a sequence number
    t.received("run-1-7", 13_000_000); // out of range
    assertEquals(2, t.received());
    assertEquals(1, t.duplicates());
    assertEquals(3, t.foreign());
    assertEquals(12_000_000, t.lastReceive());
    var h = t.latencies();
    assertEquals(2, h.getTotalCount());
    assertEquals(10_000, h.getMaxValue(), 10);
    assertEquals(2_000, h.getMinValue(), 2);
  }
}
