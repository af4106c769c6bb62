package io.activityservice.detector;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One output row of a detector, ready to become a derived event.
 *
 * @param detector the detector that produced it
 * @param columns the selected columns (JSON-ready: maps, lists, strings, numbers, booleans)
 * @param causes ids of the contributing events, as far as the engine can tell (may be empty)
 * @param hopCount hop count of the derived event: max hop count of its inputs + 1
 * @param time the detector's clock when the row was produced (event time for event-time detectors)
 * @param causeTraces the W3C {@code traceparent} of each contributing event that had one: the
 *     derived event's span links to each
 */
public record DetectorRow(
    DetectorDefinition detector,
    Map<String, Object> columns,
    List<String> causes,
    int hopCount,
    Instant time,
    List<String> causeTraces) {

  public DetectorRow {
    causeTraces = causeTraces == null ? List.of() : List.copyOf(causeTraces);
  }

  /** A row whose causes' trace contexts are unknown. */
  public DetectorRow(
      DetectorDefinition detector,
      Map<String, Object> columns,
      List<String> causes,
      int hopCount,
      Instant time) {
    this(detector, columns, causes, hopCount, time, List.of());
  }
}
