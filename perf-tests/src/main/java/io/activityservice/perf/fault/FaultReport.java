package io.activityservice.perf.fault;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The fault suite's report: {@code report.md} (settings, one table row per fault, the soak's
 * samples and its bound check) and {@code report.csv} (the same rows, one column per figure),
 * rewritten after every phase so an interrupted run keeps what it measured.
 */
public final class FaultReport {

  /**
   * Growth allowed in the soak between the first sample after warm-up (a quarter in) and the end.
   */
  public static final double HEAP_GROWTH_BOUND = 0.20;

  /** RSS growth allowed likewise (RSS also holds JIT code and GC bookkeeping that settle late). */
  public static final double RSS_GROWTH_BOUND = 0.20;

  /** One fault's figures. */
  public record Row(
      String fault,
      String what,
      double rate,
      double faultSeconds,
      boolean drained,
      Ledger.Counts c,
      double recoverySeconds,
      Snapshot before,
      Snapshot after) {}

  /**
   * One step of the rate search: the stream at {@code rate} for {@code seconds}; end-to-end latency
   * (send → the last of the JMS, SQS and webhook targets) over the step's second half; the seconds
   * the backlog took to drain after the stream stopped; whether the step held the rate. (The perf
   * suite's latency ladder, {@code suite.RateStep}, measures one scenario on one service; this
   * search measures the fault topology: three replicas, every transport, the detector and the rule
   * set at once.)
   */
  public record RateSearchStep(
      double rate,
      double seconds,
      int sent,
      int acked,
      double p50,
      double p99,
      double max,
      double drainSeconds,
      boolean held) {}

  /** The soak's figures. */
  public record Soak(
      double rate,
      Duration length,
      boolean drained,
      Ledger.Counts c,
      List<Snapshot> samples,
      List<Ledger.Counts> counts) {}

  private final Path dir;
  private final String arguments;
  private final List<Row> rows = new ArrayList<>();
  private final Map<String, String> settings = new LinkedHashMap<>();
  private Soak soak;
  private final List<RateSearchStep> rateSteps = new ArrayList<>();
  private String rateCriterion;

  public FaultReport(Path dir, String arguments) {
    this.dir = dir;
    this.arguments = arguments;
  }

  public void settings(Map<String, String> values) {
    settings.putAll(values);
  }

  public void add(Row row) {
    rows.add(row);
  }

  /** Records a step of the rate search and the criterion a step must meet to count as sustained. */
  public void rateStep(RateSearchStep step, String criterion) {
    rateSteps.add(step);
    rateCriterion = criterion;
  }

  /** The highest rate of the search that held, with every lower step holding too; 0 if none. */
  public double sustainableRate() {
    double best = 0;
    for (RateSearchStep s : rateSteps) {
      if (!s.held()) {
        break;
      }
      best = s.rate();
    }
    return best;
  }

  public void soak(Soak value) {
    soak = value;
  }

  /**
   * Seconds from the end of the fault until the last event acknowledged before it ended reached its
   * last target; -1 if some acknowledged event never arrived.
   */
  public static double recoverySeconds(Ledger.Counts c, long faultEndNanos) {
    if (c.lostPairs() > 0) {
      return -1;
    }
    return Math.max(0, (c.drainedAtNanos - faultEndNanos) / 1e9);
  }

  /** Writes report.md and report.csv. */
  public void write(Ledger ledger) throws IOException {
    Files.createDirectories(dir);
    StringBuilder md =
        new StringBuilder("# Fault suite\n\n")
            .append("Run ")
            .append(Instant.now())
            .append(" on ")
            .append(Runtime.getRuntime().availableProcessors())
            .append(" cores; arguments: `")
            .append(arguments.isBlank() ? "(defaults)" : arguments)
            .append("`\n\n");
    settings.forEach((k, v) -> md.append("- ").append(k).append(": ").append(v).append('\n'));
    md.append(
        """

        Acknowledged = REST 2xx, the broker's confirmation of a persistent send, SQS's SendMessage answer. Delivered =
        distinct ids arriving per target (JMS queue / SQS queue / webhook / flaky webhook). Lost = acknowledged but never delivered
        (per target, summed). Recovery = fault end → the last event acknowledged before the fault ended reached its
        last target. Detector pairs and rule outputs are expected for pairs whose open and close were both acknowledged
        (rule: marked closes acknowledged). Heap = sum over replicas after a full GC; RSS = sum over replicas.

        | fault | sent (JMS/SQS/REST) | acked | not acked | delivered JMS/SQS/webhook/flaky | duplicates JMS/SQS/webhook/flaky | lost | delivered though not acked | detector pairs found/expected (missing) | rule outputs found/expected | recovery s | heap MiB before→after | RSS MiB before→after | parked / dead-letter / archived / config rows before→after |
        |---|---|---|---|---|---|---|---|---|---|---|---|---|---|
        """);
    for (Row r : rows) {
      md.append(mdRow(r.fault(), r.c(), r.recoverySeconds(), r.drained(), r.before(), r.after()))
          .append('\n');
    }
    if (soak != null) {
      md.append(
              mdRow(
                  "soak " + soak.length().toMinutes() + " min",
                  soak.c(),
                  -2,
                  soak.drained(),
                  soak.samples().get(0),
                  soak.samples().get(soak.samples().size() - 1)))
          .append('\n');
    }
    md.append("\nWhat each fault did:\n\n");
    for (Row r : rows) {
      md.append("- **")
          .append(r.fault())
          .append("** (")
          .append(r.rate())
          .append(" events/s): ")
          .append(r.what())
          .append(r.drained() ? "" : " — NOT DRAINED within the drain timeout")
          .append(
              r.c().duplicatesByChannel.isEmpty()
                  ? ""
                  : "; duplicates by inbound channel " + r.c().duplicatesByChannel)
          .append('\n');
    }
    if (!ledger.failures.isEmpty()) {
      md.append("\nSends not acknowledged, by channel and reason (all phases):\n\n");
      ledger.failures.entrySet().stream()
          .sorted(Map.Entry.comparingByKey())
          .forEach(
              e ->
                  md.append("- ")
                      .append(e.getValue().sum())
                      .append(" × ")
                      .append(e.getKey())
                      .append('\n'));
    }
    md.append("\nArrivals with ids the suite never sent: ")
        .append(ledger.foreign.sum())
        .append('\n');
    if (!rateSteps.isEmpty()) {
      md.append(rateSection());
    }
    if (soak != null) {
      md.append(soakSection());
    }
    Files.writeString(dir.resolve("report.md"), md.toString());
    Files.writeString(dir.resolve("report.csv"), csv());
  }

  private static String mdRow(
      String name, Ledger.Counts c, double recovery, boolean drained, Snapshot b, Snapshot a) {
    return "| "
        + name
        + " | "
        + c.sent
        + " ("
        + c.sentByChannel.getOrDefault("jms", 0)
        + "/"
        + c.sentByChannel.getOrDefault("sqs", 0)
        + "/"
        + c.sentByChannel.getOrDefault("rest", 0)
        + ")"
        + " | "
        + c.acked
        + " | "
        + (c.sent - c.acked)
        + " | "
        + join(c.delivered)
        + " | "
        + join(c.duplicates)
        + " | **"
        + c.lostPairs()
        + "**"
        + (c.lostPairs() > 0 ? " (" + join(c.lost) + ")" : "")
        + " | "
        + join(c.deliveredUnacked)
        + " | "
        + c.pairsFound
        + "/"
        + c.pairsExpected
        + " ("
        + c.pairsMissing
        + ")"
        + (c.pairsDuplicated > 0 ? " +" + c.pairsDuplicated + " dup" : "")
        + " | "
        + c.rulesFound
        + "/"
        + c.rulesExpected
        + " | "
        + (recovery == -2 ? "n/a" : recovery < 0 ? "not drained" : String.format("%.1f", recovery))
        + (drained ? "" : " ⚠")
        + " | "
        + mib(Snapshot.sum(b.heap()))
        + "→"
        + mib(Snapshot.sum(a.heap()))
        + " | "
        + mib(Snapshot.sum(b.rss()))
        + "→"
        + mib(Snapshot.sum(a.rss()))
        + " | "
        + rows(b)
        + " → "
        + rows(a)
        + " |";
  }

  private static String rows(Snapshot s) {
    return List.of("parked_delivery", "dead_letter", "archived_event", "config_change").stream()
        .map(t -> s.tables().containsKey(t) ? Long.toString(s.tables().get(t)[0]) : "?")
        .collect(Collectors.joining(" / "));
  }

  private static String join(int[] values) {
    return java.util.Arrays.stream(values)
        .mapToObj(Integer::toString)
        .collect(Collectors.joining("/"));
  }

  private static String mib(long bytes) {
    return bytes < 0 ? "?" : Long.toString(bytes >> 20);
  }

  private String rateSection() {
    StringBuilder s =
        new StringBuilder("\n## Sustainable rate\n\nCriterion: ")
            .append(rateCriterion)
            .append(
                ".\n\n| events/s | seconds | sent | acked | latency p50 s | p99 s | max s | drain after stop s | held |\n")
            .append("|---|---|---|---|---|---|---|---|---|\n");
    for (RateSearchStep r : rateSteps) {
      s.append("| ")
          .append(r.rate())
          .append(" | ")
          .append(Math.round(r.seconds()))
          .append(" | ")
          .append(r.sent())
          .append(" | ")
          .append(r.acked())
          .append(" | ")
          .append(seconds(r.p50()))
          .append(" | ")
          .append(seconds(r.p99()))
          .append(" | ")
          .append(seconds(r.max()))
          .append(" | ")
          .append(seconds(r.drainSeconds()))
          .append(" | ")
          .append(r.held() ? "yes" : "**no**")
          .append(" |\n");
    }
    s.append("\nSustainable rate (highest step held, every lower one held too): **")
        .append(sustainableRate())
        .append(" events/s**.\n");
    return s.toString();
  }

  private static String seconds(double v) {
    return Double.isInfinite(v)
        ? "not all arrived"
        : String.format(java.util.Locale.ROOT, "%.2f", v);
  }

  private String soakSection() {
    StringBuilder s =
        new StringBuilder("\n## Soak: ")
            .append(soak.length().toMinutes())
            .append(" min at ")
            .append(soak.rate())
            .append(" events/s\n\n")
            .append(
                "| minute | sent | acked | delivered (min over targets) | heap MiB | RSS MiB | parked | dead letters |"
                    + " archived rows | archived MiB | config rows |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    long t0 = soak.samples().get(0).epochMillis();
    for (int i = 0; i < soak.samples().size(); i++) {
      Snapshot x = soak.samples().get(i);
      Ledger.Counts c = soak.counts().get(i);
      s.append("| ")
          .append(String.format("%.1f", (x.epochMillis() - t0) / 60_000.0))
          .append(" | ")
          .append(c.sent)
          .append(" | ")
          .append(c.acked)
          .append(" | ")
          .append(java.util.Arrays.stream(c.delivered).min().orElse(0))
          .append(" | ")
          .append(mib(Snapshot.sum(x.heap())))
          .append(" | ")
          .append(mib(Snapshot.sum(x.rss())))
          .append(" | ")
          .append(cell(x, "parked_delivery", 0))
          .append(" | ")
          .append(cell(x, "dead_letter", 0))
          .append(" | ")
          .append(cell(x, "archived_event", 0))
          .append(" | ")
          .append(
              x.tables().containsKey("archived_event")
                  ? mib(x.tables().get("archived_event")[1])
                  : "?")
          .append(" | ")
          .append(cell(x, "config_change", 0))
          .append(" |\n");
    }
    // The bound: from the first sample a quarter in (warm: JIT, pools, caches filled) to the last
    // during load.
    List<Snapshot> during = soak.samples().subList(0, Math.max(1, soak.samples().size() - 1));
    Snapshot first = during.get(Math.min(during.size() - 1, Math.max(1, during.size() / 4)));
    Snapshot last = during.get(during.size() - 1);
    double heapGrowth = growth(Snapshot.sum(first.heap()), Snapshot.sum(last.heap()));
    double rssGrowth = growth(Snapshot.sum(first.rss()), Snapshot.sum(last.rss()));
    Snapshot end = soak.samples().get(soak.samples().size() - 1);
    s.append(
            String.format(
                "%nBound: heap after GC and RSS (sums over replicas) may grow at most %.0f %% / %.0f %% from"
                    + " the sample a quarter in to the last sample under load; the delivery store must hold no parked delivery"
                    + " and no dead letter once drained; configuration rows constant; archived rows = archived events"
                    + " (retention P1D, dropped by day partition).%n%n",
                HEAP_GROWTH_BOUND * 100, RSS_GROWTH_BOUND * 100))
        .append(
            String.format(
                "- heap: %+.1f %% → %s%n",
                heapGrowth * 100, heapGrowth <= HEAP_GROWTH_BOUND ? "within" : "EXCEEDED"))
        .append(
            String.format(
                "- RSS: %+.1f %% → %s%n",
                rssGrowth * 100, rssGrowth <= RSS_GROWTH_BOUND ? "within" : "EXCEEDED"))
        .append("- parked deliveries / dead letters at the end: ")
        .append(cell(end, "parked_delivery", 0))
        .append(" / ")
        .append(cell(end, "dead_letter", 0))
        .append('\n');
    return s.toString();
  }

  private static String cell(Snapshot s, String table, int index) {
    return s.tables().containsKey(table) ? Long.toString(s.tables().get(table)[index]) : "?";
  }

  private static double growth(long from, long to) {
    return from <= 0 || to < 0 ? Double.NaN : (double) (to - from) / from;
  }

  private String csv() {
    StringBuilder s =
        new StringBuilder(
            "fault,rate,fault_seconds,sent,sent_jms,sent_sqs,sent_rest,acked,not_acked,"
                + "delivered_jms,delivered_sqs,delivered_webhook,delivered_flaky,duplicates_jms,duplicates_sqs,"
                + "duplicates_webhook,duplicates_flaky,lost_jms,lost_sqs,lost_webhook,lost_flaky,delivered_unacked,pairs_expected,pairs_found,pairs_missing,rules_expected,rules_found,"
                + "recovery_s,drained,heap_before_mib,heap_after_mib,rss_before_mib,rss_after_mib");
    for (String t : Snapshot.TABLES) {
      s.append(',')
          .append(t)
          .append("_rows_before,")
          .append(t)
          .append("_rows_after,")
          .append(t)
          .append("_kib_before,")
          .append(t)
          .append("_kib_after");
    }
    s.append('\n');
    for (Row r : rows) {
      csvRow(
          s,
          r.fault(),
          r.rate(),
          r.faultSeconds(),
          r.c(),
          r.recoverySeconds(),
          r.drained(),
          r.before(),
          r.after());
    }
    if (soak != null) {
      csvRow(
          s,
          "soak",
          soak.rate(),
          soak.length().toSeconds(),
          soak.c(),
          -2,
          soak.drained(),
          soak.samples().get(0),
          soak.samples().get(soak.samples().size() - 1));
    }
    return s.toString();
  }

  private static void csvRow(
      StringBuilder s,
      String name,
      double rate,
      double seconds,
      Ledger.Counts c,
      double recovery,
      boolean drained,
      Snapshot b,
      Snapshot a) {
    List<Object> v =
        new ArrayList<>(
            List.of(
                name,
                rate,
                String.format("%.1f", seconds),
                c.sent,
                c.sentByChannel.getOrDefault("jms", 0),
                c.sentByChannel.getOrDefault("sqs", 0),
                c.sentByChannel.getOrDefault("rest", 0),
                c.acked,
                c.sent - c.acked));
    for (int[] a2 : List.of(c.delivered, c.duplicates, c.lost)) {
      for (int x : a2) {
        v.add(x);
      }
    }
    v.add(java.util.Arrays.stream(c.deliveredUnacked).max().orElse(0));
    v.addAll(
        List.of(
            c.pairsExpected,
            c.pairsFound,
            c.pairsMissing,
            c.rulesExpected,
            c.rulesFound,
            recovery == -2 ? "" : String.format("%.1f", recovery),
            drained,
            mib(Snapshot.sum(b.heap())),
            mib(Snapshot.sum(a.heap())),
            mib(Snapshot.sum(b.rss())),
            mib(Snapshot.sum(a.rss()))));
    for (String t : Snapshot.TABLES) {
      long[] x = b.tables().get(t);
      long[] y = a.tables().get(t);
      v.add(x == null ? "" : x[0]);
      v.add(y == null ? "" : y[0]);
      v.add(x == null ? "" : x[1] >> 10);
      v.add(y == null ? "" : y[1] >> 10);
    }
    s.append(v.stream().map(String::valueOf).collect(Collectors.joining(","))).append('\n');
  }
}
