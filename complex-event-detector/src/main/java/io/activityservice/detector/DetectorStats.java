package io.activityservice.detector;

/**
 * Counters of one detector since it was deployed.
 *
 * @param eventsIn events sent into the detector
 * @param rowsOut output rows (derived events handed on)
 * @param dropped events of its types the engine dropped because its queue was full (engine-wide)
 */
public record DetectorStats(long eventsIn, long rowsOut, long dropped) {}
