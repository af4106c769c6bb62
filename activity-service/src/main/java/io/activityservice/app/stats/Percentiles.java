package io.activityservice.app.stats;

/**
 * Percentiles from a fixed-boundary histogram, interpolated linearly inside the bucket that holds
 * the rank.
 */
final class Percentiles {

  private Percentiles() {}

  /**
   * The {@code q} quantile of {@code n} values counted in cumulative buckets.
   *
   * @param upperBounds bucket upper bounds, ascending
   * @param cumulative values less than or equal to each bound
   * @param n all values (more than the last bucket holds if some exceed its bound)
   * @return the estimate; the last bound when the rank lies beyond it
   */
  static double of(double[] upperBounds, long[] cumulative, long n, double q) {
    double rank = Math.max(1, Math.ceil(q * n));
    double lowerBound = 0;
    long below = 0;
    for (int i = 0; i < upperBounds.length; i++) {
      if (cumulative[i] >= rank) {
        long inBucket = cumulative[i] - below;
        double fraction = inBucket == 0 ? 1 : (rank - below) / inBucket;
        return lowerBound + (upperBounds[i] - lowerBound) * fraction;
      }
      below = cumulative[i];
      lowerBound = upperBounds[i];
    }
    return upperBounds.length == 0 ? 0 : upperBounds[upperBounds.length - 1];
  }
}
