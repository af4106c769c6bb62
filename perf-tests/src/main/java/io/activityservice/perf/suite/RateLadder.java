package io.activityservice.perf.suite;

import java.util.List;

/**
 * The offered rates of the open-loop latency runs per transport, and the sustainability rule: a rate is
 * sustained when every event arrived exactly once, the producer kept at least 90 % of the rate, and p99
 * latency stayed within the bound.
 */
public final class RateLadder {

  private RateLadder() {
  }

  /** Rates (events/s) to try on {@code transport}, ascending. */
  public static List<Double> rates(String transport, boolean quick) {
    return switch (transport) {
      case "sqs" -> quick ? List.of(50.0, 200.0) : List.of(50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0, 4000.0);
      case "kafka" -> quick ? List.of(100.0, 1000.0) : List.of(100.0, 1000.0, 2000.0, 5000.0, 10000.0, 20000.0);
      default -> quick ? List.of(100.0, 1000.0, 5000.0)
          : List.of(100.0, 1000.0, 2000.0, 5000.0, 10000.0, 20000.0, 40000.0);
    };
  }

  /** Whether {@code r} sustained its offered rate with p99 within {@code p99BoundMs}. */
  public static boolean sustained(RunResult r, double p99BoundMs) {
    boolean kept = r.sendSeconds() <= 0 || r.n() / r.sendSeconds() >= 0.9 * r.offeredRate();
    return r.exactlyOnce() && kept && r.percentileMillis(99) <= p99BoundMs;
  }
}
