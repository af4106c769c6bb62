package io.activityservice.detector;

/**
 * Receives the rows of detectors. Called on the engine's threads: must not block and must not
 * throw.
 */
@FunctionalInterface
public interface DetectorOutput {
  void emit(DetectorRow row);
}
