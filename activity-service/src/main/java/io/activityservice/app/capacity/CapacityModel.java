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
 * events it handled; at the current mix every path can grow by the same factor until the host's
 * cores reach the target utilisation. Other processes on the host are fitted against the service's
 * event rate over the window's samples (least squares, other = a + b·X): a co-located broker or
 * LocalStack whose load grows with the traffic is demand per event (b), the rest a fixed share (a);
 * so X_max = (U_max·C − a) / (D + b).
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
   * @param otherCpuCores the other processes' CPU that does not grow with this service's event
   *     rate, in cores (a of the fit other = a + b·X; null when not measurable)
   * @param otherCpuMicrosPerEvent the other processes' CPU per event this service receives, in µs
   *     (b of the fit: a co-located broker or LocalStack that scales with the traffic; 0 when the
   *     window's samples could not be fitted, null when not measurable)
   * @param otherFitSamples samples the fit used (0: too few, or a rate that did not vary, so the
   *     other processes' load is taken as fixed)
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
      @Schema(types = {"number", "null"}) Double otherCpuCores,
      @Schema(types = {"number", "null"}) Double otherCpuMicrosPerEvent,
      int otherFitSamples,
      List<Path> paths) {}

  /**
   * The other processes' CPU on the host against this service's event rate, other = a + b·X.
   *
   * @param cores a: cores they use whatever the rate
   * @param perEvent b: core-seconds they use per event this service receives
   * @param samples samples fitted (0 when taken as fixed: a = their mean, b = 0)
   */
  record OtherLoad(double cores, double perEvent, int samples) {}

  /** Fewest samples for a fit of the other processes' load. */
  static final int MIN_FIT_SAMPLES = 3;

  /**
   * Least squares over the window's samples of the other processes' CPU (the host's load less this
   * process's CPU, in cores) against the received rate. A slope below 0 (their load fell as the
   * traffic grew: unrelated work) is not extrapolated: they count as fixed at their mean; an
   * intercept below 0 is refitted through the origin. With fewer than {@value #MIN_FIT_SAMPLES}
   * measurable samples, or a rate that did not vary, their mean over the window stands.
   *
   * @param meanOther the window's mean other load in cores, used when no fit is possible
   */
  static OtherLoad fitOther(List<StatsSampler.Point> points, int cores, double meanOther) {
    double n = 0;
    double sx = 0;
    double sy = 0;
    double sxx = 0;
    double sxy = 0;
    for (StatsSampler.Point p : points) {
      if (p.seconds() <= 0 || p.cpuSeconds() < 0 || Double.isNaN(p.hostLoad())) {
        continue;
      }
      double x = p.received() / p.seconds();
      double y = Math.max(0, clamp(p.hostLoad()) * cores - p.cpuSeconds() / p.seconds());
      n++;
      sx += x;
      sy += y;
      sxx += x * x;
      sxy += x * y;
    }
    double varX = n > 0 ? sxx / n - (sx / n) * (sx / n) : 0;
    if (n < MIN_FIT_SAMPLES || varX <= 1e-9 * Math.max(1, sxx / n)) {
      return new OtherLoad(Math.max(0, meanOther), 0, 0);
    }
    double b = (sxy / n - (sx / n) * (sy / n)) / varX;
    double a = sy / n - b * sx / n;
    if (b < 0) {
      return new OtherLoad(sy / n, 0, (int) n);
    }
    if (a < 0) {
      return new OtherLoad(0, sxy / sxx, (int) n);
    }
    return new OtherLoad(a, b, (int) n);
  }

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
    OtherLoad fit =
        cpuUtilisation == null || host == null
            ? new OtherLoad(0, 0, 0)
            : fitOther(totals.points(), cores, other * cores);

    Double growth = null; // how many times the current traffic the CPU can take
    String bottleneck = UNKNOWN;
    if (cpuUtilisation != null && cpuUtilisation > 0 && received > 0) {
      // Utilisation law over the host's cores: X·(D + b) + a ≤ U_max·C.
      double x = received / seconds;
      double demand = totals.cpuSeconds() / received; // core-seconds per event
      double max =
          Math.max(0, settings.targetUtilisation() * cores - fit.cores())
              / (demand + fit.perEvent());
      growth = max / x;
      bottleneck = fit.cores() + fit.perEvent() * x > demand * x ? HOST_CPU : SERVICE_CPU;
    }
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
        cpuUtilisation == null || host == null ? null : fit.cores(),
        cpuUtilisation == null || host == null ? null : fit.perEvent() * 1e6,
        fit.samples(),
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
