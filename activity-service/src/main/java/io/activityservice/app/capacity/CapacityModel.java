package io.activityservice.app.capacity;

import io.activityservice.app.stats.StatsSampler;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Operational analysis of this replica over a sliding window (seeds 000 §4.1.4 and 001): the
 * utilisation law U = X·D gives the CPU demand per event D from the process's CPU time and the
 * events it handled; at the current mix every path can grow by the same factor until the CPU
 * reaches the target utilisation of the host's cores, less what other processes on the host use.
 *
 * <p>Paths are inbound channel kind × outbound scheme. The service counts events per inbound kind
 * ({@code activity.events.received}) and deliveries per target ({@code activity.events.out}), not
 * per pair, so a path's rate is the deliveries on its scheme shared out by the inbound kinds' share
 * of received events: exact with one inbound kind or one outbound scheme, otherwise an estimate
 * that assumes the outbound mix does not depend on the inbound channel. One process CPU counter
 * cannot tell paths apart either, so every path carries the mix's demand per delivered event; the
 * demand of each path measured alone is in the performance report (docs/performance.md).
 */
public final class CapacityModel {

  /** Bottleneck: the service's own CPU time is the larger part of the host's load. */
  public static final String SERVICE_CPU = "service-cpu";

  /**
   * Bottleneck: other processes on the host (e.g. a co-located broker) use more CPU than the
   * service; the host's cores run out first.
   */
  public static final String HOST_CPU = "host-cpu";

  /** Bottleneck: not measurable (no CPU time from the JVM, or no traffic in the window). */
  public static final String UNKNOWN = "unknown";

  private CapacityModel() {}

  /**
   * One path.
   *
   * @param inbound inbound channel kind: {@code http} (REST API) or the channel's scheme
   * @param outbound the target channels' scheme, e.g. {@code jms}, {@code sqs}, {@code https}
   * @param eventsPerSecond events received on {@code inbound} and delivered on {@code outbound}
   * @param cpuMicrosPerEvent the service's CPU demand per delivered event at the current mix, in µs
   *     (null when not measurable)
   * @param headroomEventsPerSecond events per second this path can still take at the current mix
   *     before the CPU reaches the target utilisation (null when not measurable)
   * @param bottleneck the resource that saturates first: {@value #SERVICE_CPU}, {@value #HOST_CPU}
   *     or {@value #UNKNOWN}
   */
  public record Path(
      String inbound,
      String outbound,
      double eventsPerSecond,
      @Schema(types = {"number", "null"}) Double cpuMicrosPerEvent,
      @Schema(types = {"number", "null"}) Double headroomEventsPerSecond,
      String bottleneck) {}

  /**
   * The model's answer.
   *
   * @param window the window asked for
   * @param seconds the time the samples in it cover
   * @param cores processors available to the JVM
   * @param cpuUtilisation this process's CPU time over the window as a share of all its cores (0 to
   *     1), null when not measurable
   * @param hostCpuUtilisation the whole host's CPU load (0 to 1), null when not measurable
   * @param targetUtilisation the configured target ({@code activity.capacity.target-utilisation})
   * @param eventsPerSecond events received per second, all inbound kinds
   * @param deliveriesPerSecond deliveries accepted per second, all targets
   * @param cpuMicrosPerEvent CPU µs per received event (null when not measurable)
   * @param maxEventsPerSecond predicted highest sustainable received rate at the current mix (null
   *     when not measurable)
   * @param headroomShare the share of that rate still free (0 to 1; null when not measurable)
   * @param warning whether the headroom share is below {@code activity.capacity.warning-share}
   * @param bottleneck the resource that saturates first
   * @param paths one per inbound kind × outbound scheme seen in the window
   */
  public record Capacity(
      Duration window,
      double seconds,
      int cores,
      @Schema(types = {"number", "null"}) Double cpuUtilisation,
      @Schema(types = {"number", "null"}) Double hostCpuUtilisation,
      double targetUtilisation,
      double eventsPerSecond,
      double deliveriesPerSecond,
      @Schema(types = {"number", "null"}) Double cpuMicrosPerEvent,
      @Schema(types = {"number", "null"}) Double maxEventsPerSecond,
      @Schema(types = {"number", "null"}) Double headroomShare,
      boolean warning,
      String bottleneck,
      List<Path> paths) {}

  /** Evaluates the model over the window's totals. */
  public static Capacity evaluate(
      StatsSampler.Totals totals, Duration window, int cores, CapacityProperties settings) {
    double seconds = totals.seconds();
    double received = sum(totals.received());
    Map<String, Double> byScheme = new TreeMap<>();
    totals.delivered().forEach((target, n) -> byScheme.merge(scheme(target), n, Double::sum));
    double delivered = sum(byScheme);
    boolean timed = seconds > 0;
    Double cpuUtilisation =
        timed && totals.cpuSeconds() >= 0 ? totals.cpuSeconds() / (seconds * cores) : null;
    Double host = Double.isNaN(totals.hostLoad()) ? null : clamp(totals.hostLoad());
    double other = cpuUtilisation == null || host == null ? 0 : Math.max(0, host - cpuUtilisation);

    Double growth = null; // how many times the current traffic the CPU can take
    if (cpuUtilisation != null && cpuUtilisation > 0 && received > 0) {
      growth = Math.max(0, settings.targetUtilisation() - other) / cpuUtilisation;
    }
    String bottleneck = growth == null ? UNKNOWN : other > cpuUtilisation ? HOST_CPU : SERVICE_CPU;
    Double perDelivery =
        cpuUtilisation != null && delivered > 0 ? totals.cpuSeconds() * 1e6 / delivered : null;
    List<Path> paths = new ArrayList<>();
    if (timed && received > 0) {
      for (Map.Entry<String, Double> in : new TreeMap<>(totals.received()).entrySet()) {
        double share = in.getValue() / received;
        for (Map.Entry<String, Double> out : byScheme.entrySet()) {
          double rate = out.getValue() * share / seconds;
          if (rate <= 0) {
            continue;
          }
          paths.add(
              new Path(
                  in.getKey(),
                  out.getKey(),
                  rate,
                  perDelivery,
                  growth == null ? null : rate * Math.max(0, growth - 1),
                  bottleneck));
        }
      }
    }
    double inRate = timed ? received / seconds : 0;
    return new Capacity(
        window,
        seconds,
        cores,
        cpuUtilisation,
        host,
        settings.targetUtilisation(),
        inRate,
        timed ? delivered / seconds : 0,
        cpuUtilisation != null && received > 0 ? totals.cpuSeconds() * 1e6 / received : null,
        growth == null ? null : inRate * growth,
        growth == null ? null : growth <= 1 ? 0.0 : 1 - 1 / growth,
        growth != null && (growth <= 1 || 1 - 1 / growth < settings.warningShare()),
        bottleneck,
        List.copyOf(paths));
  }

  /** The scheme of a target tag, e.g. {@code jms} of {@code jms:queue:orders}. */
  static String scheme(String target) {
    int colon = target.indexOf(':');
    return (colon > 0 ? target.substring(0, colon) : target).toLowerCase(Locale.ROOT);
  }

  private static double sum(Map<String, Double> counts) {
    double n = 0;
    for (double v : counts.values()) {
      n += v;
    }
    return n;
  }

  private static double clamp(double v) {
    return Math.max(0, Math.min(1, v));
  }
}
