package io.activityservice.events.transform;

import java.time.Duration;

/**
 * Bounds on one evaluation of a subscription's transformation (the JSONata sandbox): an evaluation
 * past one is stopped and its delivery dead-lettered with the reason; the others go on.
 *
 * @param timeout wall time of one evaluation (all its expressions)
 * @param maxDepth nesting of evaluation (recursion) in one expression
 * @param maxOutputBytes size of the serialized data and of each attribute value
 * @param maxAllocatedBytes bytes one evaluation may allocate on its thread (checked while it runs,
 *     with the JVM's per-thread allocation counter)
 * @param maxExpressionLength characters of one expression, checked when a subscription is created
 */
public record TransformLimits(
    Duration timeout,
    int maxDepth,
    int maxOutputBytes,
    long maxAllocatedBytes,
    int maxExpressionLength) {

  /**
   * 1 s, depth 200, 256 KiB out, 64 MiB allocated, 8,192 characters. The time is wall time, so it
   * includes GC pauses and waiting for a core: 100 ms stopped a harmless evaluation during a GC
   * pause on a loaded 2-core machine (PipelineBenchmark); runaway expressions are mostly stopped
   * earlier by the depth and allocation bounds.
   */
  public static final TransformLimits DEFAULT =
      new TransformLimits(Duration.ofSeconds(1), 200, 256 * 1024, 64L * 1024 * 1024, 8192);

  public TransformLimits {
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException(
          "activity.transforms.timeout must be a positive duration, e.g. 1s");
    }
    if (maxDepth < 10 || maxDepth > 10_000) {
      throw new IllegalArgumentException(
          "activity.transforms.max-depth must be between 10 and 10000");
    }
    if (maxOutputBytes < 1024) {
      throw new IllegalArgumentException(
          "activity.transforms.max-output-bytes must be at least 1024");
    }
    if (maxAllocatedBytes < 1024 * 1024) {
      throw new IllegalArgumentException(
          "activity.transforms.max-allocated-bytes must be at least 1048576 (1 MiB)");
    }
    if (maxExpressionLength < 16) {
      throw new IllegalArgumentException(
          "activity.transforms.max-expression-length must be at least 16");
    }
  }
}
