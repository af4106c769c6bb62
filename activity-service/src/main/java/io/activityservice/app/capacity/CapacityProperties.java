package io.activityservice.app.capacity;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The capacity model behind {@code GET /api/v1/capacity} ({@code activity.capacity.*}).
 *
 * @param window how far back the model looks: CPU time and events over this sliding window (from
 *     the statistics samples, so at least two {@code activity.console.stats.interval}s and at most
 *     {@code activity.console.stats.retention})
 * @param targetUtilisation the share of the host's cores the service may use before it counts as
 *     saturated (0 to 1); the headroom is what is left up to it. Below 1 on purpose: latency grows
 *     steeply as a CPU nears saturation (seed 001 saw the knee well before peak throughput)
 * @param warningShare the warning metric {@code activity.capacity.headroom.low} is 1 while the
 *     predicted headroom is less than this share of the predicted highest sustainable rate (0 to 1)
 */
@ConfigurationProperties("activity.capacity")
public record CapacityProperties(
    @DefaultValue("1m") Duration window,
    @DefaultValue("0.8") Double targetUtilisation,
    @DefaultValue("0.2") Double warningShare) {
  public CapacityProperties {
    if (window.toMillis() < 1000) {
      throw new IllegalArgumentException(
          "activity.capacity.window must be at least 1s (two statistics intervals), e.g. 1m");
    }
    if (!(targetUtilisation > 0 && targetUtilisation <= 1)) {
      throw new IllegalArgumentException(
          "activity.capacity.target-utilisation must be above 0 and at most 1, e.g. 0.8");
    }
    if (!(warningShare >= 0 && warningShare < 1)) {
      throw new IllegalArgumentException(
          "activity.capacity.warning-share must be at least 0 and below 1, e.g. 0.2");
    }
  }
}
