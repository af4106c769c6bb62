package io.activityservice.app.cep;

import io.activityservice.detector.esper.EsperDetectorEngine;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of complex event detectors ({@code activity.detectors.*}).
 *
 * @param queueCapacity bound of each detector thread's queue of events; when full, events are
 *     dropped for detectors (never for subscriptions) and counted in {@code
 *     activity.detectors.dropped}
 * @param threads detector engine threads; each detector runs on one of them (1-64)
 * @param maxHopCount derived events whose hop count exceeds this are dead-lettered, breaking
 *     detector loops
 * @param tick how often processing-time detector clocks advance: their timer resolution (1ms-10s)
 * @param maxWindowEvents largest count window, {@code prior} or pattern repeat an EPL may ask for
 * @param maxWindowTime longest time window or {@code output every} an EPL may ask for
 * @param maxPatternSubexpressions pattern branches alive at once per detector
 * @param maxMatchRecognizeStates match-recognize states alive at once per detector
 */
@ConfigurationProperties("activity.detectors")
public record DetectorProperties(
    @DefaultValue("10000") Integer queueCapacity,
    @DefaultValue("1") Integer threads,
    @DefaultValue("8") Integer maxHopCount,
    @DefaultValue("100ms") Duration tick,
    @DefaultValue("" + EsperDetectorEngine.Settings.DEFAULT_MAX_WINDOW_EVENTS) Long maxWindowEvents,
    @DefaultValue("24h") Duration maxWindowTime,
    @DefaultValue("" + EsperDetectorEngine.Settings.DEFAULT_MAX_PATTERN_SUBEXPRESSIONS)
        Long maxPatternSubexpressions,
    @DefaultValue("" + EsperDetectorEngine.Settings.DEFAULT_MAX_MATCH_RECOGNIZE_STATES)
        Long maxMatchRecognizeStates) {

  public DetectorProperties {
    if (maxWindowEvents < 1 || maxPatternSubexpressions < 1 || maxMatchRecognizeStates < 1) {
      throw new IllegalArgumentException(
          "activity.detectors.max-window-events, max-pattern-subexpressions and"
              + " max-match-recognize-states must be at least 1, e.g. 100000, 10000, 10000");
    }
    if (maxWindowTime.isNegative() || maxWindowTime.isZero()) {
      throw new IllegalArgumentException(
          "activity.detectors.max-window-time must be a positive duration, e.g. 24h");
    }
    if (queueCapacity < 1) {
      throw new IllegalArgumentException(
          "activity.detectors.queue-capacity must be at least 1, e.g. 10000");
    }
    if (threads < 1 || threads > 64) {
      throw new IllegalArgumentException(
          "activity.detectors.threads must be between 1 and 64, e.g. 1");
    }
    if (maxHopCount < 1) {
      throw new IllegalArgumentException(
          "activity.detectors.max-hop-count must be at least 1, e.g. 8");
    }
    if (tick.toMillis() < 1 || tick.compareTo(Duration.ofSeconds(10)) > 0) {
      throw new IllegalArgumentException(
          "activity.detectors.tick must be between 1ms and 10s, e.g. 100ms");
    }
  }

  /** The engine settings. */
  EsperDetectorEngine.Settings toSettings() {
    return new EsperDetectorEngine.Settings(
        threads,
        queueCapacity,
        tick,
        maxWindowEvents,
        maxWindowTime,
        maxPatternSubexpressions,
        maxMatchRecognizeStates);
  }
}
