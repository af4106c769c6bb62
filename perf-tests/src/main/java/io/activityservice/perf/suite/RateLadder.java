package io.activityservice.perf.suite;

import java.util.List;
import java.util.Optional;

/**
 * The offered rates of the open-loop latency runs per transport, and the sustainability rules. A
 * run meets its bound when every event arrived exactly once, the producer kept at least 90 % of the
 * rate, and p99 latency stayed within the bound. A rate (a step of the ladder) is sustained when at
 * least {@value #NEEDED} of its {@value #RUNS} runs met the bound, so one latency spike on a shared
 * machine does not fail a whole step.
 */
public final class RateLadder {

  /** Runs per step. */
  public static final int RUNS = 3;

  /** Runs of a step that must meet the bound. */
  public static final int NEEDED = 2;

  private RateLadder() {}

  /** Rates (events/s) to try on {@code transport}, ascending. */
  public static List<Double> rates(String transport, boolean quick) {
    return switch (transport) {
      case "sqs" ->
          quick ? List.of(50.0, 200.0) : List.of(50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0, 4000.0);
      case "kafka" ->
          quick ? List.of(100.0, 1000.0) : List.of(100.0, 1000.0, 2000.0, 5000.0, 10000.0, 20000.0);
      default ->
          quick
              ? List.of(100.0, 1000.0, 5000.0)
              : List.of(100.0, 1000.0, 2000.0, 5000.0, 10000.0, 20000.0, 40000.0);
    };
  }

  /**
   * The rate every scenario of a group runs at even after a lower rate failed, so that the report
   * always has latency figures (the added-latency target, REST→JMS, before/after) at it: JMS 1,000,
   * SQS 200, Kafka 1,000 ev/s.
   */
  public static double referenceRate(String transport) {
    return transport.equals("sqs") ? 200.0 : 1000.0;
  }

  /** Whether the run {@code r} met its offered rate with p99 within {@code p99BoundMs}. */
  public static boolean sustained(RunResult r, double p99BoundMs) {
    boolean kept = r.sendSeconds() <= 0 || r.n() / r.sendSeconds() >= 0.9 * r.offeredRate();
    return r.exactlyOnce() && kept && r.percentileMillis(99) <= p99BoundMs;
  }

  /** Whether a step whose runs met the bound as in {@code passes} is sustained: at least 2 of 3. */
  public static boolean stepSustained(List<Boolean> passes) {
    return passes.stream().filter(p -> p).count() >= NEEDED;
  }

  /**
   * The step's outcome once the remaining runs cannot change it (2 passes, or 2 failures of 3),
   * else empty: lets the quick mode skip a third run.
   */
  public static Optional<Boolean> decided(List<Boolean> passes) {
    long pass = passes.stream().filter(p -> p).count();
    long fail = passes.size() - pass;
    if (pass >= NEEDED) {
      return Optional.of(true);
    }
    if (fail > RUNS - NEEDED || passes.size() >= RUNS) {
      return Optional.of(false);
    }
    return Optional.empty();
  }
}
