package io.activityservice.perf.stats;

import java.util.SplittableRandom;

/**
 * Percentile bootstrap confidence intervals for comparing two independent samples (e.g. the ten
 * repetitions of a scenario via the service and of its direct counterpart). Resampling is seeded,
 * so a report is reproducible from its data.
 */
public final class Bootstrap {

  /** Default number of resamples. */
  public static final int RESAMPLES = 10_000;

  /**
   * A point estimate with its confidence interval.
   *
   * @param estimate the statistic on the original samples
   * @param low lower bound of the interval
   * @param high upper bound of the interval
   */
  public record Interval(double estimate, double low, double high) {

    /** Whether the interval lies entirely above {@code value}. */
    public boolean above(double value) {
      return low > value;
    }

    /** Whether the interval lies entirely below {@code value}. */
    public boolean below(double value) {
      return high < value;
    }

    /** Whether the interval excludes {@code value}. */
    public boolean excludes(double value) {
      return above(value) || below(value);
    }
  }

  private final int resamples;
  private final long seed;

  /** A bootstrap with {@code resamples} resamples and a fixed seed. */
  public Bootstrap(int resamples, long seed) {
    if (resamples < 100) {
      throw new IllegalArgumentException("use at least 100 resamples, e.g. 10000");
    }
    this.resamples = resamples;
    this.seed = seed;
  }

  /** {@value #RESAMPLES} resamples, seed 42. */
  public static Bootstrap standard() {
    return new Bootstrap(RESAMPLES, 42);
  }

  /** 95 % interval of mean(a) / mean(b). Needs at least one value in each sample. */
  public Interval ratioOfMeans(double[] a, double[] b) {
    return interval(a, b, true);
  }

  /** 95 % interval of mean(a) − mean(b). Needs at least one value in each sample. */
  public Interval differenceOfMeans(double[] a, double[] b) {
    return interval(a, b, false);
  }

  private Interval interval(double[] a, double[] b, boolean ratio) {
    if (a.length == 0 || b.length == 0) {
      throw new IllegalArgumentException("both samples need at least one value");
    }
    SplittableRandom random = new SplittableRandom(seed);
    double[] stats = new double[resamples];
    for (int r = 0; r < resamples; r++) {
      double ma = resampledMean(a, random);
      double mb = resampledMean(b, random);
      stats[r] = ratio ? ma / mb : ma - mb;
    }
    double ma = Stats.mean(a);
    double mb = Stats.mean(b);
    return new Interval(
        ratio ? ma / mb : ma - mb, Stats.quantile(stats, 0.025), Stats.quantile(stats, 0.975));
  }

  private static double resampledMean(double[] xs, SplittableRandom random) {
    double s = 0;
    for (int i = 0; i < xs.length; i++) {
      s += xs[random.nextInt(xs.length)];
    }
    return s / xs.length;
  }
}
