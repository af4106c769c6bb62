package io.activityservice.app.console;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The operator console and the live endpoints behind it ({@code activity.console.*}).
 *
 * @param stream the event stream ({@code GET /api/v1/events/stream})
 * @param stats the live statistics ({@code GET /api/v1/stats})
 */
@ConfigurationProperties("activity.console")
public record ConsoleProperties(@DefaultValue Stream stream, @DefaultValue Stats stats) {

  /**
   * Bounds of the server-sent event streams.
   *
   * @param maxStreams streams open at once on this replica; one more is refused with 503
   * @param bufferSize events waiting for one slow client; beyond it events are dropped and counted
   * @param idleTimeout a stream that sent no event for this long ends; clients reconnect
   * @param heartbeat how often an idle stream sends a comment, so a vanished client is noticed
   */
  public record Stream(
      @DefaultValue("16") Integer maxStreams,
      @DefaultValue("256") Integer bufferSize,
      @DefaultValue("5m") Duration idleTimeout,
      @DefaultValue("15s") Duration heartbeat) {
    public Stream {
      if (maxStreams < 1
          || bufferSize < 1
          || idleTimeout.toMillis() < 100
          || heartbeat.toMillis() < 10) {
        throw new IllegalArgumentException(
            "activity.console.stream: max-streams and buffer-size must be at least 1,"
                + " idle-timeout at least 100ms and heartbeat at least 10ms, e.g. 16, 256, 5m, 15s");
      }
    }
  }

  /**
   * The statistics ring buffer.
   *
   * @param interval sampling interval
   * @param retention how much history is kept, the longest {@code window}
   * @param maxSeries series per family in one sample, e.g. event types (the rest is {@code other})
   */
  public record Stats(
      @DefaultValue("1s") Duration interval,
      @DefaultValue("15m") Duration retention,
      @DefaultValue("200") Integer maxSeries) {
    public Stats {
      if (interval.toMillis() < 100
          || retention.compareTo(interval) < 0
          || retention.dividedBy(interval) > 100_000
          || maxSeries < 1) {
        throw new IllegalArgumentException(
            "activity.console.stats: interval at least 100ms, retention at least one"
                + " interval and at most 100000 intervals, max-series at least 1, e.g. 1s, 15m, 200");
      }
    }
  }
}
