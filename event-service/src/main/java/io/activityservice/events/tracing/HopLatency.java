package io.activityservice.events.tracing;

import io.activityservice.channel.Acknowledgement;
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
   * receivedAtMillis}, from its {@code time}: for a transport that gives no send time of its own
   * (the REST API).
   */
  public static void waited(Timer transport, CloudEvent event, long receivedAtMillis) {
    waited(transport, event, Acknowledgement.NO_SENT_TIME, receivedAtMillis);
  }

  /**
   * Records on {@code transport} how long {@code event} waited before receipt at {@code
   * receivedAtMillis}: from the transport's send time {@code sentAtMillis} when it gives one (not
   * {@link Acknowledgement#NO_SENT_TIME}), else from the event's {@code time} (the producer's); an
   * event with neither is not counted.
   */
  public static void waited(
      Timer transport, CloudEvent event, long sentAtMillis, long receivedAtMillis) {
    if (sentAtMillis != Acknowledgement.NO_SENT_TIME) {
      transport.record(waitMillis(sentAtMillis, receivedAtMillis), TimeUnit.MILLISECONDS);
      return;
    }
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
