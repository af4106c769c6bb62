package io.activityservice.app.console;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The operator console and the live endpoints behind it ({@code activity.console.*}).
 *
 * @param stream the event stream ({@code GET /api/v1/events/stream})
 * @param stats  the live statistics ({@code GET /api/v1/stats})
 */
@ConfigurationProperties("activity.console")
public record ConsoleProperties(Stream stream, Stats stats) {

  public ConsoleProperties {
    stream = stream == null ? new Stream(null, null, null, null) : stream;
    stats = stats == null ? new Stats(null, null, null) : stats;
  }

  /**
   * Bounds of the server-sent event streams.
   *
   * @param maxStreams  streams open at once on this replica (default 16); one more is refused with 503
   * @param bufferSize  events waiting for one slow client (default 256); beyond it events are dropped and counted
   * @param idleTimeout a stream that sent no event for this long ends (default 5m); clients reconnect
   * @param heartbeat   how often an idle stream sends a comment, so a vanished client is noticed (default 15s)
   */
  public record Stream(Integer maxStreams, Integer bufferSize, Duration idleTimeout, Duration heartbeat) {
    public Stream {
      maxStreams = maxStreams == null ? 16 : maxStreams;
      bufferSize = bufferSize == null ? 256 : bufferSize;
      idleTimeout = idleTimeout == null ? Duration.ofMinutes(5) : idleTimeout;
      heartbeat = heartbeat == null ? Duration.ofSeconds(15) : heartbeat;
      if (maxStreams < 1 || bufferSize < 1 || idleTimeout.toMillis() < 100 || heartbeat.toMillis() < 10) {
        throw new IllegalArgumentException("activity.console.stream: max-streams and buffer-size must be at least 1,"
            + " idle-timeout at least 100ms and heartbeat at least 10ms, e.g. 16, 256, 5m, 15s");
      }
    }
  }

  /**
   * The statistics ring buffer.
   *
   * @param interval  sampling interval (default 1s)
   * @param retention how much history is kept, the longest {@code window} (default 15m)
   * @param maxSeries series per family in one sample, e.g. event types (default 200; the rest is {@code other})
   */
  public record Stats(Duration interval, Duration retention, Integer maxSeries) {
    public Stats {
      interval = interval == null ? Duration.ofSeconds(1) : interval;
      retention = retention == null ? Duration.ofMinutes(15) : retention;
      maxSeries = maxSeries == null ? 200 : maxSeries;
      if (interval.toMillis() < 100 || retention.compareTo(interval) < 0 || retention.dividedBy(interval) > 100_000
          || maxSeries < 1) {
        throw new IllegalArgumentException("activity.console.stats: interval at least 100ms, retention at least one"
            + " interval and at most 100000 intervals, max-series at least 1, e.g. 1s, 15m, 200");
      }
    }
  }
}
