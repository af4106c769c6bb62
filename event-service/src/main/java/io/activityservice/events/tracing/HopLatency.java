package io.activityservice.events.tracing;

import io.cloudevents.CloudEvent;
import io.micrometer.core.instrument.Timer;
import java.time.OffsetDateTime;
import java.util.concurrent.TimeUnit;

/**
 * Per-hop latency without a tracing backend: the arithmetic of the {@code activity.hop.*} timers,
 * which hang beside the {@link EventTracing} seam (where it starts its spans). Wall-clock waits
 * (producer's send time to receipt, parked to delivered) compare two clocks, so they never go
 * negative: a producer whose clock runs ahead of ours counts as no wait.
 */
public final class HopLatency {

  private HopLatency() {}

  /** The wait between {@code fromMillis} and {@code toMillis} (epoch ms); never negative. */
  public static long waitMillis(long fromMillis, long toMillis) {
    return Math.max(0, toMillis - fromMillis);
  }

  /**
   * Records on {@code transport} how long {@code event} waited before receipt at {@code
   * receivedAtMillis}, from its {@code time} (the producer's send time); an event without a time is
   * not counted.
   */
  public static void waited(Timer transport, CloudEvent event, long receivedAtMillis) {
    OffsetDateTime time = event.getTime();
    if (time != null) {
      transport.record(waitMillis(epochMillis(time), receivedAtMillis), TimeUnit.MILLISECONDS);
    }
  }

  /** Epoch milliseconds of a time, without allocating an {@code Instant}. */
  public static long epochMillis(OffsetDateTime time) {
    return time.toEpochSecond() * 1000 + time.getNano() / 1_000_000;
  }
}
