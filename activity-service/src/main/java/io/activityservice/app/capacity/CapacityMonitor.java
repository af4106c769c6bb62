package io.activityservice.app.capacity;

import io.activityservice.app.console.ConsoleProperties;
import io.activityservice.app.stats.StatsSampler;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The capacity model over the statistics samples of the last {@code activity.capacity.window}, and
 * its warning metrics: {@code activity.capacity.headroom.share} (the share of the predicted highest
 * sustainable rate still free, NaN while not measurable) and {@code activity.capacity.headroom.low}
 * (1 while that share is below {@code activity.capacity.warning-share}, else 0). Evaluated when
 * asked (a request, a scrape): a pass over the window's samples, off every hot path.
 */
public final class CapacityMonitor {

  private final StatsSampler sampler;
  private final CapacityProperties settings;
  private final int cores;

  /**
   * @throws IllegalStateException when the window does not fit the statistics samples, naming the
   *     settings to change
   */
  public CapacityMonitor(
      StatsSampler sampler,
      CapacityProperties settings,
      ConsoleProperties.Stats stats,
      MeterRegistry registry) {
    if (settings.window().compareTo(stats.interval().multipliedBy(2)) < 0
        || settings.window().compareTo(stats.retention()) > 0) {
      throw new IllegalStateException(
          "activity.capacity.window ("
              + settings.window()
              + ") must lie between two activity.console.stats.interval ("
              + stats.interval().multipliedBy(2)
              + ") and activity.console.stats.retention ("
              + stats.retention()
              + "), e.g. 1m");
    }
    this.sampler = sampler;
    this.settings = settings;
    this.cores = Runtime.getRuntime().availableProcessors();
    Gauge.builder("activity.capacity.headroom.share", this, CapacityMonitor::headroomShare)
        .description(
            "Share of the predicted highest sustainable event rate still free at the current mix"
                + " (NaN while not measurable)")
        .register(registry);
    Gauge.builder("activity.capacity.headroom.low", this, m -> m.current().warning() ? 1 : 0)
        .description(
            "1 while the predicted headroom is below activity.capacity.warning-share, else 0")
        .register(registry);
  }

  /** The model over the current window. */
  public CapacityModel.Capacity current() {
    return CapacityModel.evaluate(
        sampler.totals(settings.window()), settings.window(), cores, settings);
  }

  private double headroomShare() {
    Double share = current().headroomShare();
    return share == null ? Double.NaN : share;
  }
}
