package io.activityservice.perf.specjms;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The audit of a SPECjms2007 run (Table 5.8 of the thesis): every rule must pass for the BASE to
 * count.
 *
 * <ol>
 *   <li>per interaction, the input rate over the measurement period within ±5 % of the configured
 *       one;
 *   <li>per interaction, messages sent and received within ±5 % of the model's prediction;
 *   <li>pacing misses (a driver found itself behind schedule) at most 20 % of the executions;
 *   <li>per destination, the 90th percentile of delivery time at most 5,000 ms;
 *   <li>every message sent is received, on topics by every subscriber.
 * </ol>
 */
public final class Audit {

  /** Relative tolerance of rates and counts. */
  public static final double TOLERANCE = 0.05;

  /** Most pacing misses, as a share of executions. */
  public static final double MAX_PACING_MISSES = 0.20;

  /** Bound of the 90th percentile delivery time per destination. */
  public static final double MAX_P90_MS = 5000;

  private Audit() {}

  /**
   * What one interaction did in the measurement period.
   *
   * @param interaction 1–7
   * @param configuredRate executions per second the workload asks for
   * @param executions executions started in the measurement period
   * @param misses of them, started behind schedule
   * @param predictedSent messages the model predicts for the measurement period
   * @param sent messages sent by those executions
   * @param predictedReceived deliveries the model predicts
   * @param received deliveries of those messages received by the end of the drain
   */
  public record InteractionCounts(
      int interaction,
      double configuredRate,
      long executions,
      long misses,
      double predictedSent,
      long sent,
      double predictedReceived,
      long received) {}

  /** One rule's verdict: its name, the figure, the bound, and whether it passed. */
  public record Rule(String name, String measured, String bound, boolean pass) {}

  /**
   * The audit.
   *
   * @param measureSeconds length of the measurement period
   * @param interactions per interaction (those configured with a rate above 0)
   * @param p90ByDestination per destination, the 90th percentile delivery time in ms
   * @param expectedDeliveries deliveries every message of the run should have made
   * @param deliveries distinct deliveries received (message × destination)
   */
  public static List<Rule> rules(
      double measureSeconds,
      List<InteractionCounts> interactions,
      Map<String, Double> p90ByDestination,
      long expectedDeliveries,
      long deliveries) {
    List<Rule> rules = new ArrayList<>();
    for (InteractionCounts c : interactions) {
      double rate = c.executions() / measureSeconds;
      rules.add(
          within("I" + c.interaction() + " input rate (/s)", rate, c.configuredRate(), "%.3f"));
      rules.add(within("I" + c.interaction() + " sent", c.sent(), c.predictedSent(), "%.0f"));
      rules.add(
          within("I" + c.interaction() + " received", c.received(), c.predictedReceived(), "%.0f"));
      double share = c.executions() == 0 ? 0 : (double) c.misses() / c.executions();
      rules.add(
          new Rule(
              "I" + c.interaction() + " pacing misses",
              String.format(Locale.ROOT, "%.1f %%", 100 * share),
              "≤ 20 %",
              share <= MAX_PACING_MISSES));
    }
    p90ByDestination.forEach(
        (dest, p90) ->
            rules.add(
                new Rule(
                    "p90 delivery " + dest,
                    String.format(Locale.ROOT, "%.0f ms", p90),
                    "≤ 5000 ms",
                    p90 <= MAX_P90_MS)));
    rules.add(
        new Rule(
            "every message received by every subscriber",
            deliveries + " of " + expectedDeliveries,
            "all",
            deliveries >= expectedDeliveries));
    return rules;
  }

  /** Whether every rule passed. */
  public static boolean passed(List<Rule> rules) {
    return !rules.isEmpty() && rules.stream().allMatch(Rule::pass);
  }

  private static Rule within(String name, double measured, double expected, String format) {
    double error = expected == 0 ? (measured == 0 ? 0 : 1) : measured / expected - 1;
    return new Rule(
        name,
        String.format(Locale.ROOT, format + " (%+.1f %%)", measured, 100 * error),
        String.format(Locale.ROOT, format + " ± 5 %%", expected),
        Math.abs(error) <= TOLERANCE);
  }

  /** The audit as a text table with PASS/FAIL per rule. */
  public static String table(List<Rule> rules) {
    StringBuilder b = new StringBuilder();
    int w = 12;
    for (Rule r : rules) {
      w = Math.max(w, r.name().length());
    }
    b.append(
        String.format(
            Locale.ROOT,
            "%-" + w + "s  %-24s  %-22s  %s%n",
            "rule",
            "measured",
            "bound",
            "verdict"));
    for (Rule r : rules) {
      b.append(
          String.format(
              Locale.ROOT,
              "%-" + w + "s  %-24s  %-22s  %s%n",
              r.name(),
              r.measured(),
              r.bound(),
              r.pass() ? "PASS" : "FAIL"));
    }
    b.append(passed(rules) ? "AUDIT PASSED" : "AUDIT FAILED").append('\n');
    return b.toString();
  }
}
