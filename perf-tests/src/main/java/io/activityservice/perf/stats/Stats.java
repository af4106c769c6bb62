package io.activityservice.perf.stats;

import java.util.Arrays;

/** Descriptive statistics of small samples (repetitions of a measurement). */
public final class Stats {

  private Stats() {}

  /** Arithmetic mean; NaN for an empty sample. */
  public static double mean(double[] xs) {
    if (xs.length == 0) {
      return Double.NaN;
    }
    double s = 0;
    for (double x : xs) {
      s += x;
    }
    return s / xs.length;
  }

  /** Smallest value; NaN for an empty sample. */
  public static double min(double[] xs) {
    return Arrays.stream(xs).min().orElse(Double.NaN);
  }

  /** Largest value; NaN for an empty sample. */
  public static double max(double[] xs) {
    return Arrays.stream(xs).max().orElse(Double.NaN);
  }

  /** Sample standard deviation (n − 1); 0 for fewer than two values. */
  public static double stddev(double[] xs) {
    if (xs.length < 2) {
      return 0;
    }
    double m = mean(xs);
    double s = 0;
    for (double x : xs) {
      s += (x - m) * (x - m);
    }
    return Math.sqrt(s / (xs.length - 1));
  }

  /**
   * The {@code p}-quantile (0..1) of a sample with linear interpolation between order statistics
   * (type 7, as R and NumPy default); NaN for an empty sample.
   */
  public static double quantile(double[] xs, double p) {
    if (xs.length == 0) {
      return Double.NaN;
    }
    double[] s = xs.clone();
    Arrays.sort(s);
    double h = (s.length - 1) * Math.min(1, Math.max(0, p));
    int lo = (int) Math.floor(h);
    int hi = Math.min(s.length - 1, lo + 1);
    return s[lo] + (h - lo) * (s[hi] - s[lo]);
  }
}
