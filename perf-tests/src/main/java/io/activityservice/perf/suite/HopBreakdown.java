package io.activityservice.perf.suite;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a scenario's time went inside the service: the per-hop timers ({@code activity.hop.*},
 * docs/tracing.md) scraped from {@code /actuator/prometheus} before and after each measured burst;
 * the difference is that burst's events only (bursts run one at a time). Per hop, the mean
 * milliseconds over every burst of a scenario. A missing or unreadable scrape leaves the scenario
 * out; it never fails a run.
 */
public final class HopBreakdown {

  /** The hops in the order of an event's path through the service. */
  public static final List<String> HOPS = List.of("transport", "ingest", "route", "parked", "send");

  private static final Pattern LINE =
      Pattern.compile(
          "^activity_hop_(transport|ingest|route|parked|send)_seconds_(count|sum)(\\{[^}]*})?\\s+(\\S+)");

  /** Count and total seconds of one hop, summed over its series (channels). */
  public record Timed(double count, double seconds) {

    Timed minus(Timed before) {
      return new Timed(count - before.count, seconds - before.seconds);
    }

    Timed plus(Timed other) {
      return new Timed(count + other.count, seconds + other.seconds);
    }
  }

  private final Map<String, Map<String, Timed>> byScenario = new LinkedHashMap<>();

  /** Per hop, its count and total seconds in a Prometheus text exposition. */
  public static Map<String, Timed> parse(String prometheus) {
    Map<String, Timed> hops = new LinkedHashMap<>();
    for (String line : prometheus.split("\n")) {
      Matcher m = LINE.matcher(line);
      if (!m.find()) {
        continue;
      }
      double value;
      try {
        value = Double.parseDouble(m.group(4));
      } catch (NumberFormatException e) {
        continue;
      }
      Timed add = m.group(2).equals("count") ? new Timed(value, 0) : new Timed(0, value);
      hops.merge(m.group(1), add, Timed::plus);
    }
    return hops;
  }

  /** Adds one burst of {@code scenario}: the difference of two scrapes. */
  public synchronized void add(
      String scenario, Map<String, Timed> before, Map<String, Timed> after) {
    Map<String, Timed> sums = byScenario.computeIfAbsent(scenario, k -> new LinkedHashMap<>());
    after.forEach(
        (hop, t) -> {
          Timed d = t.minus(before.getOrDefault(hop, new Timed(0, 0)));
          if (d.count() > 0) {
            sums.merge(hop, d, Timed::plus);
          }
        });
  }

  /** Per scenario, per hop: mean milliseconds (hops without events left out). */
  public synchronized Map<String, Map<String, Double>> meansMillis() {
    Map<String, Map<String, Double>> means = new LinkedHashMap<>();
    byScenario.forEach(
        (scenario, sums) -> {
          Map<String, Double> row = new LinkedHashMap<>();
          for (String hop : HOPS) {
            Timed t = sums.get(hop);
            if (t != null && t.count() > 0) {
              row.put(hop, 1000 * t.seconds() / t.count());
            }
          }
          if (!row.isEmpty()) {
            means.put(scenario, row);
          }
        });
    return means;
  }
}
