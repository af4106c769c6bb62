package io.activityservice.perf.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The capacity model of seeds 000/001 (operational analysis) against a full run of the suite: per
 * path the CPU demand per event of every process on the host (the service, the ActiveMQ broker,
 * LocalStack, the runner's embedded Kafka broker) from the bursts of the figures' size, the
 * utilisation law's bound X ≤ C / ΣD for C cores, the bound of a single-threaded resource
 * (LocalStack serves requests on one Python thread: X ≤ 1 / D), the predicted highest rate (the
 * lower bound), and beside it the measured burst throughput and the rate ladder's highest sustained
 * rate, with the error. Reads a report directory's {@code cpu.csv} and {@code report.md}.
 *
 * <p>By hand: {@code java -cp perf-tests/target/perf-runner.jar
 * io.activityservice.perf.report.CapacityModelTable perf-tests/reports/2026-11-25-full [cores] [n]}
 * prints the Markdown table.
 */
public final class CapacityModelTable {

  /** The processes whose CPU counts, as {@code cpu.csv} names them. */
  static final List<String> PROCESSES = List.of("service", "activemq", "localstack", "kafka");

  /** Above this error the table names the effects the model misses. */
  static final double TOLERANCE = 0.15;

  private CapacityModelTable() {}

  /**
   * One path.
   *
   * @param scenario e.g. T2
   * @param demandMicros process to CPU µs per event
   * @param cpuBound C / ΣD, events/s
   * @param singleThreadBound 1 / D of LocalStack, events/s (infinite when it does no work)
   * @param predicted the lower of the two
   * @param burst measured burst throughput, events/s
   * @param sustained the rate ladder's highest sustained rate, events/s, or null when not in the
   *     report
   */
  public record Row(
      String scenario,
      Map<String, Double> demandMicros,
      double cpuBound,
      double singleThreadBound,
      double predicted,
      double burst,
      Double sustained) {

    /** Predicted over measured burst throughput, minus 1. */
    public double error() {
      return predicted / burst - 1;
    }
  }

  /**
   * The rows of a run.
   *
   * @param cpuCsv the lines of {@code cpu.csv}
   * @param sustained scenario to highest sustained rate (from the report)
   * @param cores cores of the host
   * @param n burst size whose CPU makes the figures
   */
  public static List<Row> rows(
      List<String> cpuCsv, Map<String, Double> sustained, int cores, int n) {
    Map<String, Map<String, Double>> cpuMs = new TreeMap<>();
    Map<String, double[]> eventsAndSeconds = new TreeMap<>();
    Map<String, Boolean> seen = new LinkedHashMap<>();
    List<String> header = List.of(cpuCsv.get(0).split(","));
    int scenario = header.indexOf("scenario");
    int mode = header.indexOf("mode");
    int size = header.indexOf("n");
    int rep = header.indexOf("rep");
    int events = header.indexOf("events");
    int window = header.indexOf("window_s");
    int source = header.indexOf("source");
    int cpu = header.indexOf("cpu_ms");
    for (String line : cpuCsv.subList(1, cpuCsv.size())) {
      String[] f = line.split(",");
      if (f.length < header.size()
          || !f[mode].equals("burst")
          || Integer.parseInt(f[size]) != n
          || !PROCESSES.contains(f[source])) {
        continue;
      }
      String s = f[scenario];
      if (s.matches("C[TK]\\d+")) {
        continue; // the Camel peer's paths: its CPU is not the service's
      }
      cpuMs
          .computeIfAbsent(s, k -> new LinkedHashMap<>())
          .merge(f[source], Double.parseDouble(f[cpu]), Double::sum);
      if (seen.putIfAbsent(s + "/" + f[rep], true) == null) {
        double[] es = eventsAndSeconds.computeIfAbsent(s, k -> new double[2]);
        es[0] += Double.parseDouble(f[events]);
        es[1] += Double.parseDouble(f[window]);
      }
    }
    List<Row> rows = new ArrayList<>();
    cpuMs.forEach(
        (s, byProcess) -> {
          double[] es = eventsAndSeconds.get(s);
          Map<String, Double> demand = new LinkedHashMap<>();
          double sum = 0;
          for (String p : PROCESSES) {
            double d = Math.max(0, byProcess.getOrDefault(p, 0.0) * 1000 / es[0]);
            demand.put(p, d);
            sum += d;
          }
          double cpuBound = cores * 1e6 / sum;
          double localstack = demand.get("localstack");
          double single = localstack > 0 ? 1e6 / localstack : Double.POSITIVE_INFINITY;
          rows.add(
              new Row(
                  s,
                  demand,
                  cpuBound,
                  single,
                  Math.min(cpuBound, single),
                  es[0] / es[1],
                  sustained.get(s)));
        });
    return rows;
  }

  /** The highest sustained rates of a report.md's ladder table ("highest sustained rate"). */
  public static Map<String, Double> sustained(List<String> reportMd) {
    Map<String, Double> m = new LinkedHashMap<>();
    boolean in = false;
    for (String line : reportMd) {
      if (line.startsWith("| scenario | highest sustained rate")) {
        in = true;
        continue;
      }
      if (in) {
        if (!line.startsWith("|")) {
          break;
        }
        String[] c = line.split("\\|");
        if (c.length >= 3 && !c[1].trim().startsWith("---")) {
          try {
            m.put(c[1].trim(), Double.parseDouble(c[2].trim().replace(",", "")));
          } catch (NumberFormatException e) {
            // a header or a note
          }
        }
      }
    }
    return m;
  }

  /** The table in Markdown, with the effects the model misses where it is off by more than 15 %. */
  public static String markdown(List<Row> rows, int cores) {
    StringBuilder b = new StringBuilder();
    b.append(
        "| path | service µs/ev | ActiveMQ µs/ev | LocalStack µs/ev | Kafka µs/ev | "
            + cores
            + " cores / ΣD ev/s | 1 / D LocalStack ev/s | predicted ev/s | measured burst ev/s |"
            + " error | ladder's sustained ev/s | what the model misses |\n");
    b.append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (Row r : rows) {
      b.append(
          String.format(
              Locale.ROOT,
              "| %s | %.1f | %.1f | %.1f | %.1f | %,.0f | %s | %,.0f | %,.0f | %+.0f %% | %s | %s |%n",
              r.scenario(),
              r.demandMicros().get("service"),
              r.demandMicros().get("activemq"),
              r.demandMicros().get("localstack"),
              r.demandMicros().get("kafka"),
              r.cpuBound(),
              Double.isInfinite(r.singleThreadBound())
                  ? "–"
                  : String.format(Locale.ROOT, "%,.0f", r.singleThreadBound()),
              r.predicted(),
              r.burst(),
              100 * r.error(),
              r.sustained() == null ? "–" : String.format(Locale.ROOT, "%,.0f", r.sustained()),
              Math.abs(r.error()) <= TOLERANCE ? "within 15 %" : missed(r)));
    }
    return b.toString();
  }

  /** The effects outside the model that the row's figures point at. */
  static String missed(Row r) {
    List<String> why = new ArrayList<>();
    why.add("the runner's producers and consumers share the cores and are not metered");
    why.add("other builds on the host (load average 3–58 in that run)");
    if (r.singleThreadBound() < r.cpuBound()) {
      why.add("LocalStack's request latency (round trips, not CPU, pace its single thread)");
    }
    if (r.burst() > 5000) {
      why.add("a 10,000-event burst lasts about a second: start-up and drain latency weigh in");
    }
    if (r.sustained() != null && r.sustained() < 0.5 * r.burst()) {
      why.add(
          "the ladder is bound by p99 latency, not throughput (seed 001: CPU peaks before throughput)");
    }
    return String.join("; ", why);
  }

  /** Prints the table of a report directory: {@code DIR [cores] [n]}. */
  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args[0]);
    int cores = args.length > 1 ? Integer.parseInt(args[1]) : 2;
    int n = args.length > 2 ? Integer.parseInt(args[2]) : 10_000;
    List<Row> rows =
        rows(
            Files.readAllLines(dir.resolve("cpu.csv")),
            sustained(Files.readAllLines(dir.resolve("report.md"))),
            cores,
            n);
    System.out.print(markdown(rows, cores));
  }
}
