package io.activityservice.perf.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BootstrapTest {

  @Test
  void ratioOfClearlyDifferentSamplesExcludesOne() {
    double[] slow = {200, 210, 190, 205, 195, 200, 202, 198, 201, 199};
    double[] fast = {100, 105, 95, 102, 98, 100, 101, 99, 100, 100};
    Bootstrap.Interval iv = Bootstrap.standard().ratioOfMeans(slow, fast);
    assertEquals(2.0, iv.estimate(), 0.01);
    assertTrue(iv.low() <= iv.estimate() && iv.estimate() <= iv.high());
    assertTrue(iv.above(1));
    assertTrue(iv.low() > 1.9 && iv.high() < 2.1);
  }

  @Test
  void overlappingSamplesDoNotExcludeOne() {
    double[] a = {100, 300, 150, 250, 200};
    double[] b = {120, 280, 160, 240, 210};
    Bootstrap.Interval iv = Bootstrap.standard().ratioOfMeans(a, b);
    assertFalse(iv.excludes(1));
  }

  @Test
  void sameSeedGivesSameInterval() {
    double[] a = {1, 2, 3, 4, 5};
    double[] b = {2, 3, 4, 5, 6};
    assertEquals(
        new Bootstrap(1000, 7).differenceOfMeans(a, b),
        new Bootstrap(1000, 7).differenceOfMeans(a, b));
    assertEquals(-1, new Bootstrap(1000, 7).differenceOfMeans(a, b).estimate(), 1e-12);
  }

  @Test
  void emptySampleIsRefused() {
    assertThrows(
        IllegalArgumentException.class,
        () -> Bootstrap.standard().ratioOfMeans(new double[0], new double[] {1}));
  }
}
