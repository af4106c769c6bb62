package io.activityservice.channel.batching;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.activityservice.channel.batching.BatchPolicy.Decision;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The adaptive rule on made-up observations: no clock, no threads. */
class AdaptiveBatchPolicyTest {

  private static final long MS = 1_000_000L;

  /**
   * A policy that has seen arrivals every {@code gapNanos} for a while and requests of {@code
   * latencyMs}.
   */
  private static AdaptiveBatchPolicy observed(long gapNanos, double latencyMs, long[] now) {
    AdaptiveBatchPolicy p = new AdaptiveBatchPolicy(10, Duration.ofMillis(5), 8);
    long t = 0;
    for (int i = 0; i < 5_000 && t < 2_000 * MS; i++) {
      p.arrived(t);
      t += gapNanos;
    }
    for (int i = 0; i < 50; i++) {
      p.completed(1, (long) (latencyMs * MS));
    }
    now[0] = t - gapNanos;
    return p;
  }

  @Test
  void beforeAnyObservationEveryEntryGoesAtOnce() {
    AdaptiveBatchPolicy p = new AdaptiveBatchPolicy(10, Duration.ofMillis(5), 8);
    p.arrived(0);
    assertThat(p.decide(0, 1, 0, 0)).isEqualTo(Decision.send(1));
    assertThat(p.targetSize(0)).isEqualTo(1);
  }

  @Test
  void atLowLoadEveryEntryGoesAtOnceLikeBatchSizeOne() {
    long[] now = new long[1];
    AdaptiveBatchPolicy p = observed(20 * MS, 20, now); // 50 events/s, 20 ms per request, 8 slots
    assertThat(p.arrivalRate(now[0])).isBetween(30.0, 70.0);
    assertThat(p.targetSize(now[0])).isEqualTo(1);
    assertThat(p.lingerNanos(now[0])).isZero();
    assertThat(p.decide(now[0], 1, 0, 0)).isEqualTo(Decision.send(1));
  }

  @Test
  void atLowLoadEntriesWaitBehindARequestOnTheWireUntilItCompletesOrTheLingerIsOver() {
    long[] now = new long[1];
    AdaptiveBatchPolicy p = observed(20 * MS, 20, now); // target size 1
    Decision wait = p.decide(now[0], 3, MS, 1);
    assertThat(wait.send()).as("one request in flight: the clump waits for it").isZero();
    assertThat(wait.waitNanos()).isEqualTo(4 * MS);
    assertThat(p.decide(now[0], 3, MS, 0))
        .as("it completed: all go together")
        .isEqualTo(Decision.send(3));
    assertThat(p.decide(now[0], 3, 5 * MS, 1))
        .as("never longer than the linger")
        .isEqualTo(Decision.send(3));
    assertThat(p.decide(now[0], 12, 0, 3))
        .as("a full batch never waits")
        .isEqualTo(Decision.send(10));
  }

  @Test
  void aLargerTargetKeepsUsingFreeSlotsWhileRequestsAreInFlight() {
    long[] now = new long[1];
    AdaptiveBatchPolicy p = observed(100_000, 20, now); // 10,000 events/s: target 10 > 1
    assertThat(p.targetSize(now[0])).isGreaterThan(1);
    assertThat(p.decide(now[0], 10, 0, 7)).isEqualTo(Decision.send(10));
  }

  @Test
  void underOverloadFullBatchesLeaveAndTheLingerIsBounded() {
    long[] now = new long[1];
    AdaptiveBatchPolicy p = observed(50_000, 20, now); // 20,000 events/s, 20 ms per request
    assertThat(p.targetSize(now[0])).isEqualTo(10);
    assertThat(p.sendsAt(now[0])).isEqualTo(10);
    assertThat(p.lingerNanos(now[0])).isLessThanOrEqualTo(5 * MS).isPositive();
    Decision wait = p.decide(now[0], 3, 0, 0);
    assertThat(wait.send()).isZero();
    assertThat(wait.waitNanos()).isLessThanOrEqualTo(5 * MS);
    assertThat(p.decide(now[0], 10, 0, 0)).isEqualTo(Decision.send(10));
    assertThat(p.decide(now[0], 37, 0, 0))
        .as("a backlog leaves in full batches")
        .isEqualTo(Decision.send(10));
    assertThat(p.decide(now[0], 3, p.lingerNanos(now[0]), 0))
        .as("linger over")
        .isEqualTo(Decision.send(3));
  }

  @Test
  void batchesGrowWithTheArrivalRate() {
    int last = 0;
    for (long gap : new long[] {10 * MS, 2 * MS, MS, 500_000, 200_000, 100_000}) {
      long[] now = new long[1];
      AdaptiveBatchPolicy p = observed(gap, 10, now);
      int size = p.targetSize(now[0]);
      assertThat(size).as("gap %d ns", gap).isGreaterThanOrEqualTo(last);
      last = size;
    }
    assertThat(last).isGreaterThan(1);
  }

  @Test
  void slowerRequestsGiveLargerBatches() {
    long[] now = new long[1];
    int fast = observed(MS, 2, now).targetSize(now[0]);
    int slow = observed(MS, 20, now).targetSize(now[0]);
    assertThat(slow).isGreaterThan(fast);
  }

  @Test
  void theRateFallsBackAfterAQuietSpell() {
    long[] now = new long[1];
    AdaptiveBatchPolicy p = observed(50_000, 20, now);
    long later = now[0] + 2_000 * MS;
    p.arrived(later);
    assertThat(p.targetSize(later)).isEqualTo(1);
    assertThat(p.decide(later, 1, 0, 0)).isEqualTo(Decision.send(1));
  }

  @Test
  void invalidSettingsAreRefused() {
    assertThatThrownBy(() -> new AdaptiveBatchPolicy(0, Duration.ZERO, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new AdaptiveBatchPolicy(10, Duration.ofMillis(-1), 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> new AdaptiveBatchPolicy(10, Duration.ZERO, 8, 0, Duration.ofMillis(100)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void fixedPolicyWaitsForItsSizeOrLinger() {
    FixedBatchPolicy p = new FixedBatchPolicy(5, Duration.ofMillis(5));
    assertThat(p.decide(0, 4, MS, 0)).isEqualTo(Decision.waitFor(4 * MS));
    assertThat(p.decide(0, 5, 0, 0)).isEqualTo(Decision.send(5));
    assertThat(p.decide(0, 12, 0, 0)).isEqualTo(Decision.send(5));
    assertThat(p.decide(0, 2, 5 * MS, 0)).isEqualTo(Decision.send(2));
    assertThat(new FixedBatchPolicy(1, Duration.ofMillis(5)).decide(0, 1, 0, 0))
        .isEqualTo(Decision.send(1));
  }
}
