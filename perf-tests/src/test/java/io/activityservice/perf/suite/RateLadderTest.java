package io.activityservice.perf.suite;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class RateLadderTest {

  @Test
  void sustainedNeedsAllEventsTheRateAndP99WithinTheBound() {
    assertTrue(RateLadder.sustained(run(1000, 1000, 1.0, 20_000), 50));
    assertFalse(RateLadder.sustained(run(1000, 999, 1.0, 20_000), 50), "an event missing");
    assertFalse(RateLadder.sustained(run(1000, 1000, 2.0, 20_000), 50), "producer fell behind");
    assertFalse(RateLadder.sustained(run(1000, 1000, 1.0, 80_000), 50), "p99 over the bound");
  }

  private static RunResult run(int n, long received, double sendSeconds, long latencyMicros) {
    Histogram h = new Histogram(3);
    for (int i = 0; i < 100; i++) {
      h.recordValue(latencyMicros);
    }
    return new RunResult("T1", "rate", n, 1, 1000, received, 0, 0, 1.1, sendSeconds, h, Instant.EPOCH, Instant.EPOCH);
  }
}
