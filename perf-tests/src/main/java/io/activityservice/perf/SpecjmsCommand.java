package io.activityservice.perf;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.perf.cli.CommandLines;
import io.activityservice.perf.report.CapacityModelTable;
import io.activityservice.perf.specjms.Audit;
import io.activityservice.perf.specjms.SpecjmsRun;
import io.activityservice.perf.specjms.Workload;
import io.activityservice.perf.specjms.Workload.Topology;
import io.activityservice.perf.suite.Options;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

/**
 * {@code perf-tests/run.sh --specjms --base N [--topology horizontal|vertical]}: one audited
 * SPECjms2007 run through a service the suite starts (the suite's other options, e.g. {@code
 * --activemq-process}, set up the test bed as usual); {@code --specjms-search} runs BASE 1, 2, 4, …
 * until a run fails its audit, then bisects, and reports the highest BASE that passes; {@code
 * --specjms-solo} runs interactions 1–7 one after another, each alone, and reports the CPU per
 * execution and per delivery of each (the CPU of the same configuration idle subtracted). Output:
 * the audit per run on stdout and {@code <report dir>/specjms.md}. Exit code 0 when the (last
 * single) run passed or the search found a passing BASE, 1 otherwise, 2 for bad options or a
 * refused pre-audit.
 */
@Command(name = "specjms", mixinStandardHelpOptions = true)
public final class SpecjmsCommand {

  @Option(names = "--specjms", description = "run the SPECjms2007 workload")
  boolean specjms;

  @Option(names = "--specjms-search", description = "find the highest BASE that passes the audit")
  boolean search;

  @Option(
      names = "--specjms-solo",
      description =
          "run interactions 1-7 one after another, each alone at its configured rate, and report"
              + " the CPU per execution and per delivery of each (idle CPU subtracted)")
  boolean solo;

  @Option(names = "--base", description = "BASE (default 1; the search's first BASE)")
  int base = 1;

  @Option(
      names = "--topology",
      description = "horizontal or vertical (default horizontal; the search runs the one given)")
  String topology = "horizontal";

  @Option(names = "--specjms-warmup", description = "warm-up seconds (default 10)")
  int warmup = 10;

  @Option(
      names = "--specjms-measure",
      description =
          "measurement seconds (default: long enough for 40 executions of the rarest interaction,"
              + " at least 30)")
  int measure = 0;

  @Option(names = "--specjms-drain", description = "longest drain in seconds (default 15)")
  int drain = 15;

  @Option(names = "--specjms-max-base", description = "the search's highest BASE (default 64)")
  int maxBase = 64;

  @Unmatched List<String> rest = new ArrayList<>();

  /** Whether the arguments ask for a SPECjms run. */
  public static boolean wanted(String[] args) {
    for (String a : args) {
      if (a.equals("--specjms") || a.equals("--specjms-search") || a.equals("--specjms-solo")) {
        return true;
      }
    }
    return false;
  }

  /** Runs as the arguments say; returns the exit code. */
  public static int run(String[] args) throws Exception {
    SpecjmsCommand c;
    Options o;
    Topology t;
    try {
      c = CommandLines.parseOrThrow(new SpecjmsCommand(), args);
      t = Topology.valueOf(c.topology.toUpperCase(Locale.ROOT));
      if (c.base < 1 || c.warmup < 0 || c.measure < 0 || c.drain < 0 || c.maxBase < c.base) {
        throw new IllegalArgumentException(
            "--base at least 1 and at most --specjms-max-base; --specjms-measure, warm-up"
                + " and drain at least 0");
      }
      o = Options.parse(c.rest.toArray(String[]::new));
    } catch (CommandLines.HelpRequested e) {
      System.out.println(e.getMessage());
      return 0;
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      return 2;
    }
    SpecjmsCommand command = c;
    java.util.function.IntFunction<SpecjmsRun.Phases> phasesAt =
        b ->
            new SpecjmsRun.Phases(
                Duration.ofSeconds(command.warmup),
                Duration.ofSeconds(
                    command.measure > 0
                        ? command.measure
                        : command.solo ? SOLO_MEASURE_SECONDS : measureSeconds(Workload.of(t, b))),
                Duration.ofSeconds(command.drain));
    StringBuilder report = new StringBuilder("# SPECjms2007 through the Activity Service\n\n");
    report.append(
        String.format(
            Locale.ROOT,
            "Topology %s; warm-up %d s, measurement %s, drain ≤ %d s; mapping and rules:"
                + " docs/performance.md.%n%n",
            t.name().toLowerCase(Locale.ROOT),
            c.warmup,
            c.measure > 0 ? c.measure + " s" : "40 executions of the rarest interaction (≥ 30 s)",
            c.drain));
    int code;
    try (Testbed bed = Testbed.start(o)) {
      if (c.solo) {
        code = solo(bed, t, c.base, phasesAt.apply(c.base), report);
      } else if (!c.search) {
        SpecjmsRun.Result r = once(bed, t, c.base, 0, phasesAt.apply(c.base), report);
        code = r.refused() != null ? 2 : r.passed() ? 0 : 1;
      } else {
        int lastPass = 0;
        int firstFail = 0;
        Map<Integer, SpecjmsRun.Result> results = new java.util.TreeMap<>();
        int b = c.base;
        int k = 0;
        while (b <= c.maxBase) {
          SpecjmsRun.Result r = once(bed, t, b, k++, phasesAt.apply(b), report);
          if (r.refused() != null) {
            return 2;
          }
          results.put(b, r);
          if (r.passed()) {
            lastPass = b;
            if (firstFail > 0) {
              if (firstFail - lastPass <= 1) {
                break;
              }
              b = (lastPass + firstFail) / 2;
            } else {
              b = b * 2;
            }
          } else {
            firstFail = b;
            if (firstFail - lastPass <= 1) {
              break;
            }
            b = (lastPass + firstFail) / 2;
          }
        }
        String line =
            lastPass > 0
                ? String.format(
                    Locale.ROOT,
                    "Highest passing BASE (%s): %d%s%n",
                    t.name().toLowerCase(Locale.ROOT),
                    lastPass,
                    firstFail > 0 ? " (BASE " + firstFail + " failed)" : " (the search's limit)")
                : "No BASE passed (the first, " + c.base + ", failed)\n";
        System.out.print(line);
        report.append("\n**").append(line.strip()).append("**\n");
        SpecjmsRun.Result passed = results.get(lastPass);
        if (passed != null && !passed.cpuMicrosPerDelivery().isEmpty()) {
          // The capacity model at the highest passing BASE; the suite's full report reads the file
          // when it is written to the same report directory.
          CapacityModelTable.SpecjmsRow model =
              CapacityModelTable.specjmsRow(
                  t.name().toLowerCase(Locale.ROOT),
                  lastPass,
                  firstFail,
                  passed.deliveredPerSecond(),
                  passed.cpuMicrosPerDelivery(),
                  results.containsKey(firstFail)
                      ? results.get(firstFail).rules().stream()
                          .filter(x -> !x.pass())
                          .map(Audit.Rule::name)
                          .toList()
                      : List.of(),
                  Runtime.getRuntime().availableProcessors(),
                  CapacityModelTable.DEFAULT_U_MAX);
          String md = CapacityModelTable.specjmsTable(List.of(model)).markdown();
          System.out.print(md);
          report.append("\n## Capacity model at the highest passing BASE\n\n").append(md);
          Files.createDirectories(o.reportDir());
          Files.writeString(
              o.reportDir().resolve(CapacityModelTable.specjmsFile(model.topology())),
              model.line() + "\n");
        }
        String check = headroomCheck(results, lastPass, firstFail);
        if (check != null) {
          System.out.print(check);
          report.append('\n').append(check);
        }
        code = lastPass > 0 ? 0 : 1;
      }
    }
    Path dir = o.reportDir();
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("specjms.md"), report);
    System.err.println("specjms: report in " + dir.resolve("specjms.md"));
    return code;
  }

  /**
   * A measurement long enough for 40 executions of the rarest interaction (so that one execution
   * more or less is within the ±5 % rules), at least 30 s.
   */
  static long measureSeconds(Workload w) {
    double slowest = Double.MAX_VALUE;
    for (int i = 1; i <= 7; i++) {
      slowest = Math.min(slowest, w.rate(i));
    }
    return Math.max(30, (long) Math.ceil(40 / slowest));
  }

  /**
   * The run-time capacity model against the search: what {@code GET /api/v1/capacity} predicted as
   * the highest sustainable inbound rate during the highest passing BASE, beside the inbound rate
   * of that BASE and of the first failing one.
   */
  static String headroomCheck(
      Map<Integer, SpecjmsRun.Result> results, int lastPass, int firstFail) {
    SpecjmsRun.Result pass = results.get(lastPass);
    if (pass == null
        || pass.capacity() == null
        || !pass.capacity().path("maxEventsPerSecond").isNumber()) {
      return null;
    }
    double predicted = pass.capacity().path("maxEventsPerSecond").asDouble();
    SpecjmsRun.Result fail = results.get(firstFail);
    return String.format(
        Locale.ROOT,
        "Headroom check: at BASE %d GET /api/v1/capacity predicted at most %.1f events in/s"
            + " (bottleneck %s, host CPU %.0f %%); BASE %d sent %.1f/s and passed%s.%n",
        lastPass,
        predicted,
        pass.capacity().path("bottleneck").asText(),
        100 * pass.capacity().path("hostCpuUtilisation").asDouble(),
        lastPass,
        pass.sentPerSecond(),
        fail == null
            ? ""
            : String.format(
                Locale.ROOT,
                ", BASE %d sent %.1f/s and failed: the measured highest rate lies between; predicted"
                    + " / measured %.2f",
                firstFail,
                fail.sentPerSecond(),
                predicted / pass.sentPerSecond()));
  }

  private static SpecjmsRun.Result once(
      Testbed bed, Topology t, int base, int k, SpecjmsRun.Phases phases, StringBuilder report)
      throws Exception {
    Workload w = Workload.of(t, base);
    String prefix = "specjms-" + (t == Topology.HORIZONTAL ? "h" : "v") + k;
    PrintStream out = System.out;
    SpecjmsRun.Result r =
        new SpecjmsRun(w, bed.legs(), bed.api(), bed.cpuMeter(), prefix).run(phases, System.err);
    report.append("## BASE ").append(base).append("\n\n");
    if (r.refused() != null) {
      out.println("specjms: BASE " + base + " refused: " + r.refused());
      report.append("Refused: ").append(r.refused()).append("\n\n");
      return r;
    }
    String table = Audit.table(r.rules());
    out.printf(Locale.ROOT, "%nSPECjms2007 %s BASE %d%n%s", t, base, table);
    StringBuilder facts = new StringBuilder();
    facts.append(
        String.format(
            Locale.ROOT,
            "Predicted %.1f sent/s and %.1f received/s; measured %.1f sent/s, %.1f delivered/s.%n",
            w.totals()[0],
            w.totals()[1],
            r.sentPerSecond(),
            r.deliveredPerSecond()));
    for (Map.Entry<String, Double> e : r.cpuMicrosPerDelivery().entrySet()) {
      facts.append(
          String.format(
              Locale.ROOT,
              "%s of %s: %.0f µs per delivery.%n",
              e.getKey().equals("disk") ? "Busy time (not CPU)" : "CPU",
              e.getKey(),
              e.getValue()));
    }
    JsonNode cap = r.capacity();
    if (cap != null) {
      facts.append(
          String.format(
              Locale.ROOT,
              "GET /api/v1/capacity at the end of the measurement: service CPU %.1f %% of %d"
                  + " cores, host %.1f %%, %.1f events in/s, predicted highest %s events in/s"
                  + " (bottleneck %s).%n",
              100 * cap.path("cpuUtilisation").asDouble(),
              cap.path("cores").asInt(),
              100 * cap.path("hostCpuUtilisation").asDouble(),
              cap.path("eventsPerSecond").asDouble(),
              cap.path("maxEventsPerSecond").isNumber()
                  ? String.format(Locale.ROOT, "%.1f", cap.path("maxEventsPerSecond").asDouble())
                  : "n/a",
              cap.path("bottleneck").asText()));
    }
    String groups = groupTable(r);
    out.print(facts);
    out.print(groups);
    report
        .append("```\n")
        .append(table)
        .append("```\n\n")
        .append(facts)
        .append('\n')
        .append(groups)
        .append('\n');
    return r;
  }

  /**
   * Per message group (Table 5.3): messages sent and deliveries received against the prediction,
   * the 90th percentile delivery time, and how the producers honoured the group. CPU per group is
   * not separable in a mixed run (the interactions mix groups): see {@code --specjms-solo}.
   */
  static String groupTable(SpecjmsRun.Result r) {
    StringBuilder b = new StringBuilder();
    b.append("\n| Group | Sent | Received (predicted) | p90 ms | Producers |\n");
    b.append("|---|---:|---:|---:|---|\n");
    for (SpecjmsRun.GroupReport g : r.groups()) {
      b.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %d (%.0f) | %s | %s |%n",
              g.group().name().toLowerCase(Locale.ROOT),
              g.sent(),
              g.received(),
              g.predictedReceived(),
              Double.isNaN(g.p90Ms()) ? "n/a" : String.format(Locale.ROOT, "%.0f", g.p90Ms()),
              g.producers()));
    }
    b.append(
        "\nThe service handles every group alike, durably and at least once (inbound"
            + " acknowledged once each delivery was accepted or parked in the durable store;"
            + " persistent JMS sends): see docs/performance.md.\n");
    return b.toString();
  }

  /** Default measurement of one interaction in {@code --specjms-solo}. */
  static final int SOLO_MEASURE_SECONDS = 20;

  /** CPU sources shown in the solo table, those the meter has. */
  static final List<String> SOLO_SOURCES =
      List.of("service-own", "activemq-own", "localstack", "kafka", "runner");

  /**
   * Interactions 1–7 one after another, each alone at its configured rate with its own warm-up:
   * each source's CPU over the measurement, minus its idle rate measured first, per execution and
   * per delivery.
   */
  private static int solo(
      Testbed bed, Topology t, int base, SpecjmsRun.Phases phases, StringBuilder report)
      throws Exception {
    Workload w = Workload.of(t, base);
    io.activityservice.perf.cpu.CpuMeter meter = bed.cpuMeter();
    List<SoloRow> rows = new ArrayList<>();
    for (int i = 1; i <= 7; i++) {
      if (w.rate(i) <= 0) {
        continue;
      }
      String prefix = "specjms-" + (t == Topology.HORIZONTAL ? "h" : "v") + "s" + i;
      SpecjmsRun.Result r =
          new SpecjmsRun(w, bed.legs(), bed.api(), meter, prefix, i).run(phases, System.err);
      if (r.refused() != null) {
        System.out.println("specjms-solo: I" + i + " refused: " + r.refused());
        report.append("Refused: ").append(r.refused()).append("\n");
        return 2;
      }
      rows.add(SoloRow.of(i, w.rate(i), r));
    }
    String table = soloTable(rows);
    System.out.print(table);
    report
        .append("## CPU per interaction (--specjms-solo, BASE ")
        .append(base)
        .append(")\n\n")
        .append(
            String.format(
                Locale.ROOT,
                "Each interaction alone at its configured rate: warm-up %d s, measurement %d s;"
                    + " CPU per source over the measurement minus the source's idle rate with that"
                    + " run's channels, subscriptions and consumers in place (read for %d s before"
                    + " anything is sent; the service's is in the table), divided by the executions"
                    + " and by the deliveries of the measurement.%n%n",
                phases.warmup().toSeconds(),
                phases.measure().toSeconds(),
                SpecjmsRun.CONFIGURED_IDLE.toSeconds()))
        .append(table);
    return rows.stream().allMatch(x -> x.passed) ? 0 : 1;
  }

  /**
   * One interaction's solo measurement.
   *
   * @param interaction 1–7
   * @param rate configured executions per second
   * @param executions in the measurement
   * @param deliveries in the measurement
   * @param micros source → net CPU µs over the measurement (idle subtracted)
   * @param serviceIdle the service's own CPU with the run configured and nothing sent, ms/s
   * @param passed whether its audit passed
   */
  record SoloRow(
      int interaction,
      double rate,
      long executions,
      long deliveries,
      Map<String, Double> micros,
      double serviceIdle,
      boolean passed) {

    /** The row of a result: each source's CPU minus its configured idle rate. */
    static SoloRow of(int i, double rate, SpecjmsRun.Result r) {
      Map<String, Double> idle = r.configuredIdle();
      Map<String, Double> net = new java.util.LinkedHashMap<>();
      r.cpuNanos()
          .forEach(
              (source, ns) ->
                  net.put(
                      source, ns / 1000.0 - idle.getOrDefault(source, 0.0) * 1000.0 * r.seconds()));
      return new SoloRow(
          i,
          rate,
          r.executions(),
          r.deliveries(),
          net,
          idle.getOrDefault("service-own", Double.NaN),
          r.passed());
    }
  }

  /** The solo table: per interaction and source, µs per execution and per delivery. */
  static String soloTable(List<SoloRow> rows) {
    List<String> sources = new ArrayList<>();
    for (String s : SOLO_SOURCES) {
      if (rows.stream().anyMatch(r -> r.micros().containsKey(s))) {
        sources.add(s);
      }
    }
    StringBuilder b =
        new StringBuilder(
            "\n| Interaction | Rate /s | Executions | Deliveries | service-own idle ms/s |");
    for (String s : sources) {
      b.append(' ').append(s).append(" µs/exec | ").append(s).append(" µs/delivery |");
    }
    b.append(" Audit |\n|---|---:|---:|---:|---:|");
    b.append("---:|---:|".repeat(sources.size()));
    b.append("---|\n");
    for (SoloRow r : rows) {
      b.append(
          String.format(
              Locale.ROOT,
              "| I%d | %.2f | %d | %d | %.1f |",
              r.interaction(),
              r.rate(),
              r.executions(),
              r.deliveries(),
              r.serviceIdle()));
      for (String s : sources) {
        Double us = r.micros().get(s);
        b.append(
            us == null
                ? " n/a | n/a |"
                : String.format(
                    Locale.ROOT, " %s | %s |", per(us, r.executions()), per(us, r.deliveries())));
      }
      b.append(r.passed() ? " PASS |" : " FAIL |").append('\n');
    }
    return b.toString();
  }

  private static String per(double micros, long n) {
    return n == 0 ? "n/a" : String.format(Locale.ROOT, "%.0f", micros / n);
  }
}
