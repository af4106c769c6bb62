package io.activityservice.perf.suite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
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

  @Test
  void aStepIsSustainedWhenTwoOfThreeRunsMeetTheBound() {
    assertTrue(RateLadder.stepSustained(List.of(true, true, true)));
    assertTrue(
        RateLadder.stepSustained(List.of(true, false, true)), "one spike does not fail the step");
    assertTrue(RateLadder.stepSustained(List.of(false, true, true)));
    assertFalse(RateLadder.stepSustained(List.of(true, false, false)));
    assertFalse(RateLadder.stepSustained(List.of(false, false, false)));
    assertTrue(
        RateLadder.stepSustained(List.of(true, true)), "decided early (quick mode): two passes");
    assertFalse(
        RateLadder.stepSustained(List.of(false, false)),
        "decided early (quick mode): two failures");
  }

  @Test
  void theOutcomeIsDecidedOnceTheRemainingRunsCannotChangeIt() {
    assertEquals(Optional.empty(), RateLadder.decided(List.of()));
    assertEquals(Optional.empty(), RateLadder.decided(List.of(true)));
    assertEquals(Optional.empty(), RateLadder.decided(List.of(false)));
    assertEquals(Optional.of(true), RateLadder.decided(List.of(true, true)));
    assertEquals(Optional.of(false), RateLadder.decided(List.of(false, false)));
    assertEquals(
        Optional.empty(), RateLadder.decided(List.of(true, false)), "split: the third run decides");
    assertEquals(Optional.of(true), RateLadder.decided(List.of(true, false, true)));
    assertEquals(Optional.of(false), RateLadder.decided(List.of(false, true, false)));
    // decided() and stepSustained() agree on every complete step
    for (int mask = 0; mask < 8; mask++) {
      List<Boolean> p = List.of((mask & 1) != 0, (mask & 2) != 0, (mask & 4) != 0);
      assertEquals(Optional.of(RateLadder.stepSustained(p)), RateLadder.decided(p), p.toString());
    }
  }

  private static RunResult run(int n, long received, double sendSeconds, long latencyMicros) {
    Histogram h = new Histogram(3);
    for (int i = 0; i < 100; i++) {
      h.recordValue(latencyMicros);
    }
    return new RunResult(
        "T1",
        "rate",
        n,
        1,
        1000,
        received,
        0,
        0,
        1.1,
        sendSeconds,
        h,
        Instant.EPOCH,
        Instant.EPOCH);
  }
}
