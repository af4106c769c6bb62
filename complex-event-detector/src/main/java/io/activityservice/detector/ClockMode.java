package io.activityservice.detector;

import io.activityservice.events.problem.InvalidInputException;

/** What drives a detector's clock (time windows, {@code timer:within}, {@code timer:interval}). */
public enum ClockMode {
  /** Wall-clock time of the service (default). */
  PROCESSING_TIME("processing-time"),
  /**
   * The {@code time} attribute of the events the detector consumes: deterministic for replayed
   * data.
   */
  EVENT_TIME("event-time");

  private final String text;

  ClockMode(String text) {
    this.text = text;
  }

  /** The name used in the REST API and the database. */
  public String text() {
    return text;
  }

  /** Parses {@code processing-time} (also the default for null) or {@code event-time}. */
  public static ClockMode parse(String text) {
    if (text == null || text.isBlank()) {
      return PROCESSING_TIME;
    }
    for (ClockMode m : values()) {
      if (m.text.equalsIgnoreCase(text.trim())) {
        return m;
      }
    }
    throw new InvalidInputException(
        "clock", "must be 'processing-time' (default) or 'event-time', not '" + text + "'");
  }
}
