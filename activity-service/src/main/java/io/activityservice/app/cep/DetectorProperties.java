package io.activityservice.app.cep;

import io.activityservice.detector.esper.EsperDetectorEngine;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of complex event detectors ({@code activity.detectors.*}).
 *
 * @param queueCapacity bound of each detector thread's queue of events (default 10000); when full, events are
 *                      dropped for detectors (never for subscriptions) and counted in {@code activity.detectors.dropped}
 * @param threads       detector engine threads; each detector runs on one of them (default 1)
 * @param maxHopCount   derived events whose hop count exceeds this are dead-lettered, breaking detector loops (default 8)
 * @param tick          how often processing-time detector clocks advance: their timer resolution (default 100ms)
 * @param maxWindowEvents            largest count window, {@code prior} or pattern repeat an EPL may ask for (default 100000)
 * @param maxWindowTime              longest time window or {@code output every} an EPL may ask for (default 24h)
 * @param maxPatternSubexpressions   pattern branches alive at once per detector (default 10000)
 * @param maxMatchRecognizeStates    match-recognize states alive at once per detector (default 10000)
 */
@ConfigurationProperties("activity.detectors")
public record DetectorProperties(Integer queueCapacity, Integer threads, Integer maxHopCount, Duration tick,
                                 Long maxWindowEvents, Duration maxWindowTime, Long maxPatternSubexpressions,
                                 Long maxMatchRecognizeStates) {

  public DetectorProperties {
    queueCapacity = queueCapacity == null ? 10_000 : queueCapacity;
    threads = threads == null ? 1 : threads;
    maxHopCount = maxHopCount == null ? 8 : maxHopCount;
    tick = tick == null ? Duration.ofMillis(100) : tick;
    maxWindowEvents = maxWindowEvents == null ? EsperDetectorEngine.Settings.DEFAULT_MAX_WINDOW_EVENTS : maxWindowEvents;
    maxWindowTime = maxWindowTime == null ? EsperDetectorEngine.Settings.DEFAULT_MAX_WINDOW_TIME : maxWindowTime;
    maxPatternSubexpressions = maxPatternSubexpressions == null
        ? EsperDetectorEngine.Settings.DEFAULT_MAX_PATTERN_SUBEXPRESSIONS : maxPatternSubexpressions;
    maxMatchRecognizeStates = maxMatchRecognizeStates == null
        ? EsperDetectorEngine.Settings.DEFAULT_MAX_MATCH_RECOGNIZE_STATES : maxMatchRecognizeStates;
    if (maxWindowEvents < 1 || maxPatternSubexpressions < 1 || maxMatchRecognizeStates < 1) {
      throw new IllegalArgumentException("activity.detectors.max-window-events, max-pattern-subexpressions and"
          + " max-match-recognize-states must be at least 1, e.g. 100000, 10000, 10000");
    }
    if (maxWindowTime.isNegative() || maxWindowTime.isZero()) {
      throw new IllegalArgumentException("activity.detectors.max-window-time must be a positive duration, e.g. 24h");
    }
    if (queueCapacity < 1) {
      throw new IllegalArgumentException("activity.detectors.queue-capacity must be at least 1, e.g. 10000");
    }
    if (threads < 1 || threads > 64) {
      throw new IllegalArgumentException("activity.detectors.threads must be between 1 and 64, e.g. 1");
    }
    if (maxHopCount < 1) {
      throw new IllegalArgumentException("activity.detectors.max-hop-count must be at least 1, e.g. 8");
    }
    if (tick.toMillis() < 1 || tick.compareTo(Duration.ofSeconds(10)) > 0) {
      throw new IllegalArgumentException("activity.detectors.tick must be between 1ms and 10s, e.g. 100ms");
    }
  }

  /** The engine settings. */
  EsperDetectorEngine.Settings toSettings() {
    return new EsperDetectorEngine.Settings(threads, queueCapacity, tick, maxWindowEvents, maxWindowTime,
        maxPatternSubexpressions, maxMatchRecognizeStates);
  }
}
