package io.activityservice.perf.suite;

import java.time.Instant;
import org.HdrHistogram.Histogram;

/**
 * The outcome of one measured run.
 *
 * @param scenario scenario id
 * @param mode {@code burst} (all events at once, first send to last receive), {@code rate} (open
 *     loop at a fixed rate) or {@code cep} (burst with detectors and rules deployed)
 * @param n events sent
 * @param rep repetition number, from 1
 * @param offeredRate target rate in events/s ({@code rate} mode), else 0
 * @param received distinct events received
 * @param duplicates extra copies received
 * @param sendFailures sends that failed
 * @param seconds first send to last receive
 * @param sendSeconds first send to last send call
 * @param latency per-event latency from intended send time, microseconds
 * @param start wall-clock start (for cutting the JFR recording)
 * @param end wall-clock end
 */
public record RunResult(
    String scenario,
    String mode,
    int n,
    int rep,
    double offeredRate,
    long received,
    long duplicates,
    long sendFailures,
    double seconds,
    double sendSeconds,
    Histogram latency,
    Instant start,
    Instant end) {

  /** Whether every event arrived exactly once and every send succeeded. */
  public boolean exactlyOnce() {
    return received == n && duplicates == 0 && sendFailures == 0;
  }

  /** Events lost (sent but not received). */
  public long lost() {
    return n - received;
  }

  /** Received events per second, first send to last receive. */
  public double throughput() {
    return seconds > 0 ? received / seconds : 0;
  }

  /** Milliseconds, first send to last receive. */
  public double millis() {
    return seconds * 1000;
  }

  /** Latency percentile in milliseconds. */
  public double percentileMillis(double p) {
    return latency.getTotalCount() == 0 ? Double.NaN : latency.getValueAtPercentile(p) / 1000.0;
  }

  /** Largest latency in milliseconds. */
  public double maxMillis() {
    return latency.getTotalCount() == 0 ? Double.NaN : latency.getMaxValue() / 1000.0;
  }
}
