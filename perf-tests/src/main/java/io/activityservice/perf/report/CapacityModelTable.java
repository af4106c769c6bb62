package io.activityservice.perf.report;

import io.activityservice.perf.cpu.CpuUse;
import io.activityservice.perf.cpu.ProcessCounters;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiFunction;

/**
 * The capacity model of seeds 000/001 (operational analysis) against a run of the suite, part of
 * every report: per path the CPU demand per event D of every process that shares the host on it
 * (the service, the ActiveMQ broker process, LocalStack, the embedded Kafka broker's threads, the
 * runner JVM that drives the load) from the bursts of the largest N, the CPU the host's other
 * processes used meanwhile (the host's busy time minus those), and the utilisation law's bottleneck
 * bound over the host's cores: X ≤ (U_max·C − other) / ΣD_host. Beside it the bound of a deployment
 * whose brokers and clients run elsewhere (C / D_service) and the bound of LocalStack's single
 * interpreter thread (1 / D). Predicted = the lower of the host's and LocalStack's bounds; measured
 * = the bursts' throughput (first send to last receive), with the error; where it exceeds 15 % the
 * row names the effects outside the model that its own figures show (host not saturated, the p99
 * knee before saturation, the JIT/GC share, context switches).
 *
 * <p>By hand on an older report directory: {@code java -cp perf-tests/target/perf-runner.jar
 * io.activityservice.perf.report.CapacityModelTable perf-tests/reports/2026-11-25-full [cores]
 * [u-max]} reads its {@code cpu.csv} and {@code report.md} (burst throughput then from the CPU
 * windows, which include the idle waits: lower than the bursts' own).
 */
public final class CapacityModelTable {

  /** The processes that share the host on a path, as {@code cpu.csv} names them. */
  static final List<String> PROCESSES =
      List.of("service", "activemq", "localstack", "kafka", "runner");

  /** The whole host's busy CPU time, as {@code cpu.csv} names it. */
  static final String HOST = "host";

  /** The host's disks' busy time (not CPU), as {@code cpu.csv} names it. */
  static final String DISK = "disk";

  /** Above this error the table names the effects the model misses. */
  static final double TOLERANCE = 0.15;

  /** The highest utilisation the model lets the host's cores reach, by default. */
  public static final double DEFAULT_U_MAX = 1.0;

  private CapacityModelTable() {}

  /**
   * One path.
   *
   * @param scenario e.g. T2
   * @param n burst size whose CPU makes the figures
   * @param demandMicros process to CPU µs per event (gross, over the bursts' windows)
   * @param otherCores cores the host's other processes kept busy meanwhile (NaN when the host's CPU
   *     was not read)
   * @param hostBound (U_max·C − other) / ΣD, events/s
   * @param serviceBound C / D_service, events/s: the service alone on the host
   * @param singleThreadBound 1 / D of LocalStack, events/s (infinite when it does no work)
   * @param busiestThread the process whose application thread was busiest per event (its JIT, JFR
   *     and GC threads left out), or null when threads were not read
   * @param threadBound 1 / D of that thread, events/s: one thread is one server (infinite when not
   *     read)
   * @param diskBound 1 / D of the host's disks (their busy time per event; persistent brokers wait
   *     on them), events/s (infinite when not read or idle)
   * @param predicted the lowest of the host's, LocalStack's, the busiest thread's and the disks'
   *     bounds
   * @param burst measured burst throughput, events/s
   * @param sustained the rate ladder's highest sustained rate, events/s, or null when not run
   * @param hostUtilisation the host's CPU utilisation the model implies at the measured throughput,
   *     (X·ΣD + other) / C
   * @param jitGcShare JIT compiler and GC threads' share of the service's CPU (NaN when not read)
   * @param switchesPerEvent the service's context switches per event (NaN when not read)
   */
  public record Row(
      String scenario,
      int n,
      Map<String, Double> demandMicros,
      double otherCores,
      double hostBound,
      double serviceBound,
      double singleThreadBound,
      String busiestThread,
      double threadBound,
      double diskBound,
      double predicted,
      double burst,
      Double sustained,
      double hostUtilisation,
      double jitGcShare,
      double switchesPerEvent) {

    /** Predicted over measured burst throughput, minus 1. */
    public double error() {
      return predicted / burst - 1;
    }

    /** Σ D over the host's processes, µs per event. */
    public double hostDemand() {
      return demandMicros.values().stream().mapToDouble(Double::doubleValue).sum();
    }
  }

  /**
   * The bottleneck bound of the utilisation law: the highest rate at which processes demanding
   * {@code demandMicros} µs of CPU per event in total fit on {@code cores} cores kept at most
   * {@code uMax} busy, of which {@code otherCores} are taken by other work.
   */
  public static double bound(double demandMicros, int cores, double uMax, double otherCores) {
    if (demandMicros <= 0) {
      return Double.POSITIVE_INFINITY;
    }
    return Math.max(0, uMax * cores - otherCores) * 1e6 / demandMicros;
  }

  /**
   * The rows of a run, one per path with bursts (the Camel peer's paths left out: its CPU is not
   * the service's).
   *
   * @param uses each run's CPU use per source
   * @param burstThroughput scenario and N → mean burst throughput in events/s, or null when unknown
   *     (then events over the CPU windows)
   * @param sustained scenario to highest sustained rate (the rate ladder)
   * @param cores cores of the host
   * @param uMax highest utilisation of the cores
   */
  public static List<Row> rows(
      List<CpuUse> uses,
      BiFunction<String, Integer, Double> burstThroughput,
      Map<String, Double> sustained,
      int cores,
      double uMax) {
    Map<String, Integer> largest = new TreeMap<>();
    for (CpuUse u : uses) {
      if (u.mode().equals("burst") && !u.scenario().matches("C[TK]\\d+")) {
        largest.merge(u.scenario(), u.n(), Math::max);
      }
    }
    List<Row> rows = new ArrayList<>();
    largest.forEach(
        (s, n) -> {
          Map<String, Double> cpuMs = new LinkedHashMap<>();
          double events = 0;
          double seconds = 0;
          double switches = 0;
          boolean counted = false;
          Map<String, Double> busiestNs = new TreeMap<>();
          for (CpuUse u : uses) {
            if (!u.scenario().equals(s) || !u.mode().equals("burst") || u.n() != n) {
              continue;
            }
            events += u.events();
            seconds += u.seconds();
            u.cpuMs().forEach((k, v) -> cpuMs.merge(k, v, Double::sum));
            Long v = u.counts().get("service." + ProcessCounters.VOLUNTARY);
            Long iv = u.counts().get("service." + ProcessCounters.INVOLUNTARY);
            if (v != null && iv != null) {
              switches += v + iv;
              counted = true;
            }
            // Per process, its busiest application thread in this burst.
            Map<String, Long> top = new TreeMap<>();
            u.counts()
                .forEach(
                    (k, ns) -> {
                      int at = k.indexOf("." + ProcessCounters.THREAD);
                      if (at > 0) {
                        top.merge(k.substring(0, at), ns, Math::max);
                      }
                    });
            top.forEach((process, ns) -> busiestNs.merge(process, (double) ns, Double::sum));
          }
          if (events <= 0 || seconds <= 0) {
            return;
          }
          Map<String, Double> demand = new LinkedHashMap<>();
          double ours = 0;
          for (String p : PROCESSES) {
            double ms = Math.max(0, cpuMs.getOrDefault(p, 0.0));
            demand.put(p, ms * 1000 / events);
            ours += ms;
          }
          double sum = ours * 1000 / events;
          Double host = cpuMs.get(HOST);
          double other = host == null ? Double.NaN : Math.max(0, host - ours) / 1000 / seconds;
          double hostBound = bound(sum, cores, uMax, Double.isNaN(other) ? 0 : other);
          double serviceBound = bound(demand.get("service"), cores, 1.0, 0);
          double localstack = demand.get("localstack");
          double single = localstack > 0 ? 1e6 / localstack : Double.POSITIVE_INFINITY;
          String thread = null;
          double threadMicros = 0;
          for (Map.Entry<String, Double> e : busiestNs.entrySet()) {
            double micros = e.getValue() / 1000 / events;
            if (micros > threadMicros) {
              threadMicros = micros;
              thread = e.getKey();
            }
          }
          double threadBound = threadMicros > 0 ? 1e6 / threadMicros : Double.POSITIVE_INFINITY;
          double diskMicros = Math.max(0, cpuMs.getOrDefault(DISK, 0.0)) * 1000 / events;
          double diskBound = diskMicros > 0 ? 1e6 / diskMicros : Double.POSITIVE_INFINITY;
          Double measured = burstThroughput.apply(s, n);
          double burst = measured != null && measured > 0 ? measured : events / seconds;
          double service = cpuMs.getOrDefault("service", 0.0);
          double jitGc =
              cpuMs.containsKey("service-jit") && service > 0
                  ? (cpuMs.get("service-jit") + cpuMs.getOrDefault("service-gc", 0.0)) / service
                  : Double.NaN;
          rows.add(
              new Row(
                  s,
                  n,
                  demand,
                  other,
                  hostBound,
                  serviceBound,
                  single,
                  thread,
                  threadBound,
                  diskBound,
                  Math.min(Math.min(hostBound, diskBound), Math.min(single, threadBound)),
                  burst,
                  sustained.get(s),
                  (burst * sum / 1e6 + (Double.isNaN(other) ? 0 : other)) / cores,
                  jitGc,
                  counted ? switches / events : Double.NaN));
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

  /** The table, with the effects the model misses where it is off by more than 15 %. */
  public static Table table(List<Row> rows, int cores, double uMax) {
    Table t =
        new Table(
            "path",
            "N",
            "service µs/ev",
            "ActiveMQ µs/ev",
            "LocalStack µs/ev",
            "Kafka µs/ev",
            "runner µs/ev",
            "ΣD host µs/ev",
            "other cores busy",
            String.format(Locale.ROOT, "(%.2f·%d − other) / ΣD ev/s", uMax, cores),
            cores + " / D service ev/s",
            "1 / D LocalStack ev/s",
            "1 / D busiest thread ev/s",
            "1 / D disk ev/s",
            "predicted ev/s",
            "measured burst ev/s",
            "error",
            "ladder's sustained ev/s",
            "what the model misses");
    for (Row r : rows) {
      t.row(
          r.scenario(),
          String.format(Locale.ROOT, "%,d", r.n()),
          f1(r.demandMicros().get("service")),
          f1(r.demandMicros().get("activemq")),
          f1(r.demandMicros().get("localstack")),
          f1(r.demandMicros().get("kafka")),
          f1(r.demandMicros().get("runner")),
          f1(r.hostDemand()),
          Double.isNaN(r.otherCores()) ? "–" : String.format(Locale.ROOT, "%.2f", r.otherCores()),
          rate(r.hostBound()),
          rate(r.serviceBound()),
          rate(r.singleThreadBound()),
          r.busiestThread() == null ? "–" : rate(r.threadBound()) + " (" + r.busiestThread() + ")",
          rate(r.diskBound()),
          rate(r.predicted()),
          rate(r.burst()),
          String.format(Locale.ROOT, "%+.0f %%", 100 * r.error()),
          r.sustained() == null ? "–" : rate(r.sustained()),
          Math.abs(r.error()) <= TOLERANCE ? "within 15 %" : missed(r));
    }
    return t;
  }

  /**
   * The model applied to another deployment: {@code replicas} service processes of {@code cores}
   * cores each, with the brokers, LocalStack and the clients on hosts of their own (so only the
   * service's measured demand per event counts against the replicas' cores), beside the one-host
   * bound of the run. The replicas share the load evenly (competing consumers, partitions), so the
   * bound is {@code replicas × U_max·cores / D_service}; what it leaves out is said in the table's
   * last column.
   */
  public static Table projection(List<Row> rows, int cores, int replicas, double uMax) {
    if (cores < 1 || replicas < 1) {
      throw new IllegalArgumentException("cores and replicas must be at least 1");
    }
    Table t =
        new Table(
            "path",
            "service µs/ev",
            String.format(Locale.ROOT, "%d × %.2f·%d / D service ev/s", replicas, uMax, cores),
            "this run's one-host prediction ev/s",
            "not in the projection");
    for (Row r : rows) {
      double perReplica = bound(r.demandMicros().getOrDefault("service", 0.0), cores, uMax, 0);
      t.row(
          r.scenario(),
          f1(r.demandMicros().getOrDefault("service", 0.0)),
          rate(replicas * perReplica),
          rate(r.predicted()),
          "the brokers' and clients' own capacity; the round trips and windows that paced this"
              + " run's bursts (error column above); a key or partition that cannot spread");
    }
    return t;
  }

  private static String f1(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }

  private static String rate(double v) {
    return Double.isInfinite(v) ? "–" : String.format(Locale.ROOT, "%,.0f", v);
  }

  /** The effects outside the model that the row's own figures point at. */
  static String missed(Row r) {
    List<String> why = new ArrayList<>();
    if (r.error() > 0 && r.hostUtilisation() < 0.85) {
      why.add(
          String.format(
              Locale.ROOT,
              "the host's CPU was not saturated in the bursts (U ≈ %.0f %%%s%s): waiting, not a"
                  + " busy resource, paced them (round trips, acknowledgement and prefetch windows)",
              100 * r.hostUtilisation(),
              Double.isFinite(r.threadBound())
                  ? String.format(
                      Locale.ROOT,
                      ", busiest thread %.0f %% of a core",
                      100 * r.burst() / r.threadBound())
                  : "",
              Double.isFinite(r.diskBound())
                  ? String.format(
                      Locale.ROOT, ", disks busy %.0f %%", 100 * r.burst() / r.diskBound())
                  : ""));
    }
    if (r.error() < 0) {
      why.add(
          "the demand is over-counted: the CPU windows include the idle waits around each burst"
              + " (timers, pollers) and 10 ms clock ticks");
    }
    if (r.sustained() != null && r.sustained() < 0.5 * r.burst()) {
      why.add(
          r.sustained() > 0
              ? String.format(
                  Locale.ROOT,
                  "p99 knee before CPU saturation: the latency bound holds only up to %,.0f ev/s"
                      + " (seed 001)",
                  r.sustained())
              : "p99 knee before CPU saturation: the latency bound held at no rate of the ladder"
                  + " (seed 001)");
    }
    if (r.jitGcShare() > 0.10) {
      why.add(
          String.format(
              Locale.ROOT, "JIT/GC threads %.0f %% of the service's CPU", 100 * r.jitGcShare()));
    }
    if (r.switchesPerEvent() > 2) {
      why.add(
          String.format(
              Locale.ROOT,
              "%.1f context switches per event in the service (seed 001)",
              r.switchesPerEvent()));
    }
    if (r.n() / r.burst() < 1) {
      why.add(
          String.format(
              Locale.ROOT, "a burst lasts %.2f s: start-up and drain weigh in", r.n() / r.burst()));
    }
    return why.isEmpty() ? "not identified from the measured figures" : String.join("; ", why);
  }

  /**
   * The model for the SPECjms mix at the highest BASE that passed the audit.
   *
   * @param topology horizontal or vertical
   * @param highestPass the highest passing BASE
   * @param firstFail the lowest failing BASE above it, or 0 when none failed
   * @param deliveredPerSecond deliveries per second at {@code highestPass}
   * @param demandMicros process to CPU µs per delivery at {@code highestPass}
   * @param otherCores cores the host's other processes kept busy meanwhile (NaN when not read)
   * @param failedRules the audit rules {@code firstFail} failed (empty when none)
   * @param cores cores of the host
   * @param uMax highest utilisation of the cores
   */
  public record SpecjmsRow(
      String topology,
      int highestPass,
      int firstFail,
      double deliveredPerSecond,
      Map<String, Double> demandMicros,
      double otherCores,
      List<String> failedRules,
      int cores,
      double uMax) {

    /** Σ D over the host's processes, µs per delivery. */
    public double hostDemand() {
      double sum = 0;
      for (String p : PROCESSES) {
        sum += demandMicros.getOrDefault(p, 0.0);
      }
      return sum;
    }

    /** The host's bound in deliveries per second. */
    public double hostBound() {
      return bound(hostDemand(), cores, uMax, Double.isNaN(otherCores) ? 0 : otherCores);
    }

    /**
     * The predicted highest BASE: the host's bound over the deliveries per second per BASE (the
     * rates of Tables 5.4/5.7 grow linearly with BASE).
     */
    public double predictedBase() {
      return hostBound() / (deliveredPerSecond / highestPass);
    }

    /** Predicted over measured highest BASE, minus 1. */
    public double error() {
      return predictedBase() / highestPass - 1;
    }

    /** The host's utilisation at the highest passing BASE, (X·ΣD + other) / C. */
    public double hostUtilisation() {
      return (deliveredPerSecond * hostDemand() / 1e6 + (Double.isNaN(otherCores) ? 0 : otherCores))
          / cores;
    }

    /** The effects outside the model the figures show, or "within 15 %". */
    public String missed() {
      if (Math.abs(error()) <= TOLERANCE) {
        return "within 15 %";
      }
      List<String> why = new ArrayList<>();
      if (error() > 0 && hostUtilisation() < 0.85) {
        why.add(
            String.format(
                Locale.ROOT,
                "the host's CPU was not saturated at BASE %d (U ≈ %.0f %%)",
                highestPass,
                100 * hostUtilisation()));
      }
      if (firstFail > 0 && !failedRules.isEmpty()) {
        why.add(
            "BASE "
                + firstFail
                + " failed on "
                + String.join(", ", failedRules)
                + (failedRules.stream().anyMatch(r -> r.contains("90"))
                    ? " — the p90 delivery knee comes before CPU saturation (seed 001)"
                    : ""));
      }
      if (firstFail > highestPass + 1) {
        why.add("the search stopped between BASE " + highestPass + " and " + firstFail);
      } else if (firstFail == 0) {
        why.add("no BASE failed up to the search's limit");
      }
      if (error() < 0) {
        why.add("the demand per delivery is over-counted (idle work in the window)");
      }
      return why.isEmpty() ? "not identified from the measured figures" : String.join("; ", why);
    }

    /** One line of the file a SPECjms search leaves in its report directory. */
    public String line() {
      StringBuilder cpu = new StringBuilder();
      demandMicros.forEach(
          (k, v) ->
              cpu.append(cpu.isEmpty() ? "" : ";")
                  .append(k)
                  .append('=')
                  .append(String.format(Locale.ROOT, "%.3f", v)));
      return String.join(
          "\t",
          topology,
          Integer.toString(highestPass),
          Integer.toString(firstFail),
          String.format(Locale.ROOT, "%.3f", deliveredPerSecond),
          Double.isNaN(otherCores) ? "NaN" : String.format(Locale.ROOT, "%.4f", otherCores),
          String.join(";", failedRules),
          cpu.toString(),
          Integer.toString(cores),
          String.format(Locale.ROOT, "%.3f", uMax));
    }

    /** Reads a {@link #line()} back. */
    public static SpecjmsRow parse(String line) {
      String[] f = line.split("\t", -1);
      Map<String, Double> cpu = new LinkedHashMap<>();
      for (String kv : f[6].split(";")) {
        int eq = kv.indexOf('=');
        if (eq > 0) {
          cpu.put(kv.substring(0, eq), Double.parseDouble(kv.substring(eq + 1)));
        }
      }
      return new SpecjmsRow(
          f[0],
          Integer.parseInt(f[1]),
          Integer.parseInt(f[2]),
          Double.parseDouble(f[3]),
          cpu,
          Double.parseDouble(f[4]),
          f[5].isEmpty() ? List.of() : List.of(f[5].split(";")),
          Integer.parseInt(f[7]),
          Double.parseDouble(f[8]));
    }
  }

  /**
   * A SPECjms search's row from the CPU per delivery of its highest passing run ({@code host} = the
   * whole host's busy CPU, as the test bed names it).
   */
  public static SpecjmsRow specjmsRow(
      String topology,
      int highestPass,
      int firstFail,
      double deliveredPerSecond,
      Map<String, Double> cpuMicrosPerDelivery,
      List<String> failedRules,
      int cores,
      double uMax) {
    Map<String, Double> demand = new LinkedHashMap<>();
    double ours = 0;
    for (String p : PROCESSES) {
      double d = Math.max(0, cpuMicrosPerDelivery.getOrDefault(p, 0.0));
      demand.put(p, d);
      ours += d;
    }
    Double host = cpuMicrosPerDelivery.get(HOST);
    double other = host == null ? Double.NaN : Math.max(0, host - ours) * deliveredPerSecond / 1e6;
    return new SpecjmsRow(
        topology,
        highestPass,
        firstFail,
        deliveredPerSecond,
        demand,
        other,
        failedRules,
        cores,
        uMax);
  }

  /** The SPECjms rows as a table: predicted beside measured highest passing BASE. */
  public static Table specjmsTable(List<SpecjmsRow> rows) {
    Table t =
        new Table(
            "SPECjms topology",
            "deliveries/s at the highest passing BASE",
            "service µs/del",
            "ActiveMQ µs/del",
            "LocalStack µs/del",
            "Kafka µs/del",
            "runner µs/del",
            "ΣD host µs/del",
            "other cores busy",
            "(U_max·C − other) / ΣD del/s",
            "predicted highest BASE",
            "measured highest passing BASE",
            "error",
            "what the model misses");
    for (SpecjmsRow r : rows) {
      t.row(
          r.topology(),
          f1(r.deliveredPerSecond()),
          f1(r.demandMicros().getOrDefault("service", 0.0)),
          f1(r.demandMicros().getOrDefault("activemq", 0.0)),
          f1(r.demandMicros().getOrDefault("localstack", 0.0)),
          f1(r.demandMicros().getOrDefault("kafka", 0.0)),
          f1(r.demandMicros().getOrDefault("runner", 0.0)),
          f1(r.hostDemand()),
          Double.isNaN(r.otherCores()) ? "–" : String.format(Locale.ROOT, "%.2f", r.otherCores()),
          rate(r.hostBound()),
          f1(r.predictedBase()),
          r.highestPass() + (r.firstFail() > 0 ? " (" + r.firstFail() + " failed)" : ""),
          String.format(Locale.ROOT, "%+.0f %%", 100 * r.error()),
          r.missed());
    }
    return t;
  }

  /** The file a SPECjms search of {@code topology} leaves in its report directory. */
  public static String specjmsFile(String topology) {
    return "specjms-capacity-" + topology + ".tsv";
  }

  /** The SPECjms rows left in a report directory by earlier searches (none when absent). */
  public static List<SpecjmsRow> specjmsRows(Path dir) throws IOException {
    List<SpecjmsRow> rows = new ArrayList<>();
    for (String t : List.of("horizontal", "vertical")) {
      Path f = dir.resolve(specjmsFile(t));
      if (Files.exists(f)) {
        for (String line : Files.readAllLines(f)) {
          if (!line.isBlank()) {
            rows.add(SpecjmsRow.parse(line));
          }
        }
      }
    }
    return rows;
  }

  /** Reads a {@code cpu.csv} back into CPU uses (one per run; no counters). */
  public static List<CpuUse> parseCpuCsv(List<String> cpuCsv) {
    List<String> header = List.of(cpuCsv.get(0).split(","));
    int scenario = header.indexOf("scenario");
    int mode = header.indexOf("mode");
    int size = header.indexOf("n");
    int rep = header.indexOf("rep");
    int events = header.indexOf("events");
    int window = header.indexOf("window_s");
    int source = header.indexOf("source");
    int cpu = header.indexOf("cpu_ms");
    int idle = header.indexOf("idle_readings");
    Map<String, String[]> firstOf = new LinkedHashMap<>();
    Map<String, Map<String, Double>> ms = new LinkedHashMap<>();
    for (String line : cpuCsv.subList(1, cpuCsv.size())) {
      String[] f = line.split(",");
      if (f.length < header.size()) {
        continue;
      }
      String key = f[scenario] + "," + f[mode] + "," + f[size] + "," + f[rep];
      firstOf.putIfAbsent(key, f);
      ms.computeIfAbsent(key, k -> new LinkedHashMap<>())
          .merge(f[source], Double.parseDouble(f[cpu]), Double::sum);
    }
    List<CpuUse> out = new ArrayList<>();
    firstOf.forEach(
        (key, f) ->
            out.add(
                new CpuUse(
                    f[scenario],
                    f[mode],
                    Integer.parseInt(f[size]),
                    Integer.parseInt(f[rep]),
                    Long.parseLong(f[events]),
                    Double.parseDouble(f[window]),
                    ms.get(key),
                    idle >= 0 && Boolean.parseBoolean(f[idle]))));
    return out;
  }

  /**
   * Prints the table of a report directory and its projection to another deployment: {@code DIR
   * [cores] [u-max] [replicas]}.
   */
  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args[0]);
    int cores = args.length > 1 ? Integer.parseInt(args[1]) : 2;
    double uMax = args.length > 2 ? Double.parseDouble(args[2]) : DEFAULT_U_MAX;
    int replicas = args.length > 3 ? Integer.parseInt(args[3]) : 1;
    List<Row> rows =
        rows(
            parseCpuCsv(Files.readAllLines(dir.resolve("cpu.csv"))),
            (s, n) -> null,
            sustained(Files.readAllLines(dir.resolve("report.md"))),
            cores,
            uMax);
    System.out.print(table(rows, cores, uMax).markdown());
    System.out.println();
    System.out.print(projection(rows, cores, replicas, uMax).markdown());
  }
}
