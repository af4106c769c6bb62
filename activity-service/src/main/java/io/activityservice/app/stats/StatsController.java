package io.activityservice.app.stats;

import io.activityservice.app.console.ConsoleProperties;
import io.activityservice.events.problem.InvalidInputException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/v1/stats}: recent per-second rates and routing latency percentiles of this
 * replica.
 */
@RestController
class StatsController {

  /**
   * The answer.
   *
   * @param replica the replica that answered (in cluster mode each replica samples its own traffic)
   * @param interval the sampling interval
   * @param window the window asked for
   * @param times end of each interval, epoch milliseconds
   * @param series per family ({@code in} by type; {@code received} by inbound channel kind; {@code
   *     out}, {@code failed}, {@code deadLettered} by channel; {@code detectorIn}, {@code
   *     detectorOut} by detector; {@code ruleMatches}, {@code ruleActionFailures} by rule set):
   *     series to events per second, one value per time
   * @param totals per family: series to events in the window
   * @param latency routing latency (receipt until every matching delivery was delivered or parked)
   *     per interval: {@code p50}, {@code p99} in milliseconds (null where no event completed) and
   *     {@code count}
   * @param hops per-hop latency in the window ({@code activity.hop.*} timers): per hop ({@code
   *     transport}, {@code ingest}, {@code route}, {@code parked}, {@code send}), series (the
   *     inbound channel's or target's scheme, or {@code all}) to mean milliseconds
   */
  record StatsView(
      String replica,
      Duration interval,
      Duration window,
      List<Long> times,
      Map<String, Map<String, List<Double>>> series,
      Map<String, Map<String, Double>> totals,
      StatsSampler.LatencyColumns latency,
      Map<String, Map<String, Double>> hops) {}

  private final StatsSampler sampler;
  private final ConsoleProperties props;
  private final String replicaId;

  StatsController(
      StatsSampler sampler,
      ConsoleProperties props,
      io.activityservice.app.cluster.ClusterProperties cluster) {
    this.sampler = sampler;
    this.props = props;
    this.replicaId = cluster.replicaId();
  }

  @Operation(
      summary = "Recent rates and latency of this replica",
      description =
          """
      Per-second rates sampled from the service's meters every `activity.console.stats.interval` (1s) into a ring \
      buffer of `activity.console.stats.retention` (15m): events in by type and by inbound channel kind \
      (`received`: `http` or the channel's scheme), deliveries out, failed attempts and \
      dead letters by channel, detector input and output, rule firings and failed actions, routing latency \
      p50/p99 per interval, and the mean time per hop (transport wait, ingest, route, parked, send) in the window. \
      Columnar, ready for charts.""")
  @GetMapping("/api/v1/stats")
  StatsView stats(
      @Parameter(
              description =
                  "How far back, e.g. 5m, 90s or PT5M (default 5m, at most the retention)")
          @RequestParam(defaultValue = "5m")
          String window,
      @Parameter(description = "Families to include, comma-separated (default all), e.g. in,out")
          @RequestParam(required = false)
          String series) {
    Duration w = parseWindow(window);
    List<StatsSampler.Family> families = parseFamilies(series);
    StatsSampler.Window data = sampler.window(w, families);
    return new StatsView(
        replicaId,
        props.stats().interval(),
        w,
        data.times(),
        data.series(),
        data.totals(),
        data.latency(),
        data.hops());
  }

  private Duration parseWindow(String text) {
    Duration retention = props.stats().retention();
    Duration w;
    try {
      w = DurationStyle.detectAndParse(text.trim());
    } catch (IllegalArgumentException | DateTimeParseException e) {
      throw new InvalidInputException("window", "is not a duration: use e.g. 5m, 90s or PT5M");
    }
    if (w.compareTo(props.stats().interval()) < 0 || w.compareTo(retention) > 0) {
      throw new InvalidInputException(
          "window",
          "must lie between the sampling interval ("
              + props.stats().interval()
              + ") and the retention ("
              + retention
              + ")");
    }
    return w;
  }

  private static List<StatsSampler.Family> parseFamilies(String text) {
    List<StatsSampler.Family> families = new ArrayList<>();
    if (text == null || text.isBlank()) {
      return families;
    }
    for (String name : text.split(",")) {
      String n = name.trim();
      StatsSampler.Family f =
          Arrays.stream(StatsSampler.Family.values())
              .filter(x -> x.key().toLowerCase(Locale.ROOT).equals(n.toLowerCase(Locale.ROOT)))
              .findFirst()
              .orElseThrow(
                  () ->
                      new InvalidInputException(
                          "series",
                          "unknown family '"
                              + n
                              + "'; known: "
                              + String.join(
                                  ", ",
                                  Arrays.stream(StatsSampler.Family.values())
                                      .map(StatsSampler.Family::key)
                                      .toList())));
      families.add(f);
    }
    return families;
  }
}
