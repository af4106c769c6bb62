package io.activityservice.perf.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class StatsTest {

  @Test
  void descriptiveStatistics() {
    double[] xs = {4, 1, 3, 2};
    assertEquals(2.5, Stats.mean(xs), 1e-12);
    assertEquals(1, Stats.min(xs));
    assertEquals(4, Stats.max(xs));
    assertEquals(Math.sqrt(5.0 / 3), Stats.stddev(xs), 1e-12);
  }

  @Test
  void quantileInterpolatesLikeType7() {
    double[] xs = {1, 2, 3, 4, 5};
    assertEquals(3, Stats.quantile(xs, 0.5), 1e-12);
    assertEquals(1, Stats.quantile(xs, 0), 1e-12);
    assertEquals(5, Stats.quantile(xs, 1), 1e-12);
    assertEquals(1.4, Stats.quantile(xs, 0.1), 1e-12);
    assertTrue(Double.isNaN(Stats.quantile(new double[0], 0.5)));
  }
}
