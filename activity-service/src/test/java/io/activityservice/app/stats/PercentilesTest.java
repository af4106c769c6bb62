package io.activityservice.app.stats;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PercentilesTest {

  private static final double[] BOUNDS = {1, 2, 4, 8};

  @Test
  void interpolatesInsideTheBucketHoldingTheRank() {
    long[] cumulative = {0, 10, 10, 20}; // 10 values in (1,2], 10 in (4,8]
    assertThat(Percentiles.of(BOUNDS, cumulative, 20, 0.25)).isEqualTo(1.5);
    assertThat(Percentiles.of(BOUNDS, cumulative, 20, 0.5)).isEqualTo(2.0);
    assertThat(Percentiles.of(BOUNDS, cumulative, 20, 0.75)).isEqualTo(6.0);
    assertThat(Percentiles.of(BOUNDS, cumulative, 20, 1.0)).isEqualTo(8.0);
  }

  @Test
  void rankBeyondTheLastBucketAnswersItsBound() {
    assertThat(Percentiles.of(BOUNDS, new long[] {0, 0, 0, 1}, 10, 0.99)).isEqualTo(8.0);
  }
}
