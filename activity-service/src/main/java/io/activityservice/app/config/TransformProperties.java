package io.activityservice.app.config;

import io.activityservice.events.transform.TransformLimits;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Bounds on each evaluation of a subscription's transformation ({@code activity.transforms.*}, the
 * JSONata sandbox; docs/transformations.md). An evaluation past one is stopped and its delivery
 * dead-lettered with the reason. The defaults are those of {@link TransformLimits#DEFAULT} (a test
 * checks that they agree); invalid values stop the start-up with a message naming the setting.
 *
 * @param timeout wall time of one evaluation (all of a subscription's expressions for one event)
 * @param maxDepth nesting of evaluation (recursion) in one expression
 * @param maxOutputBytes size of the serialized data and of each attribute value
 * @param maxAllocatedBytes memory one evaluation may allocate (the JVM's per-thread allocation
 *     counter)
 * @param maxExpressionLength characters of one expression, checked when a subscription is created
 */
@ConfigurationProperties("activity.transforms")
public record TransformProperties(
    @DefaultValue("1s") Duration timeout,
    @DefaultValue("200") Integer maxDepth,
    @DefaultValue("256KB") DataSize maxOutputBytes,
    @DefaultValue("64MB") DataSize maxAllocatedBytes,
    @DefaultValue("8192") Integer maxExpressionLength) {

  public TransformProperties {
    limits(timeout, maxDepth, maxOutputBytes, maxAllocatedBytes, maxExpressionLength); // validates
  }

  /** The bounds. */
  public TransformLimits limits() {
    return limits(timeout, maxDepth, maxOutputBytes, maxAllocatedBytes, maxExpressionLength);
  }

  private static TransformLimits limits(
      Duration timeout,
      Integer maxDepth,
      DataSize maxOutputBytes,
      DataSize maxAllocatedBytes,
      Integer maxExpressionLength) {
    if (maxOutputBytes.toBytes() > Integer.MAX_VALUE / 2) {
      throw new IllegalArgumentException(
          "activity.transforms.max-output-bytes must be at most 1GB");
    }
    return new TransformLimits(
        timeout,
        maxDepth,
        (int) maxOutputBytes.toBytes(),
        maxAllocatedBytes.toBytes(),
        maxExpressionLength);
  }
}
