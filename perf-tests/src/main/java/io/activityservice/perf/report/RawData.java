package io.activityservice.perf.report;

import io.activityservice.perf.cpu.CpuUse;
import io.activityservice.perf.suite.RunResult;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;

/**
 * The raw outputs: {@code results.csv} (one row per run), {@code cpu.csv} (CPU time per source in
 * each burst's window) and one HdrHistogram log per scenario ({@code <scenario>.hlog}, one interval
 * histogram per run, tagged {@code <mode>-N<n>-r<rep>} or {@code rate-<rate>-r<run>}; latencies in
 * microseconds).
 */
public final class RawData {

  /** The CSV header. */
  public static final String CSV_HEADER =
      "scenario,mode,n,rep,offered_rate,received,duplicates,send_failures,"
          + "seconds,send_seconds,throughput_ev_s,p50_ms,p90_ms,p99_ms,p999_ms,max_ms,start,end";

  /** The header of cpu.csv. */
  public static final String CPU_CSV_HEADER =
      "scenario,mode,n,rep,events,window_s,source,cpu_ms,idle_readings";

  private RawData() {}

  /** Writes cpu.csv into {@code dir}: one row per burst and CPU source. */
  public static void writeCpu(Path dir, List<CpuUse> uses) throws IOException {
    Files.createDirectories(dir);
    StringBuilder csv = new StringBuilder(CPU_CSV_HEADER).append('\n');
    for (CpuUse u : uses) {
      u.cpuMs()
          .forEach(
              (source, ms) ->
                  csv.append(
                      String.format(
                          Locale.ROOT,
                          "%s,%s,%d,%d,%d,%.3f,%s,%.1f,%s%n",
                          u.scenario(),
                          u.mode(),
                          u.n(),
                          u.rep(),
                          u.events(),
                          u.seconds(),
                          source,
                          ms,
                          u.idle())));
    }
    Files.writeString(dir.resolve("cpu.csv"), csv);
  }

  /** Writes results.csv and the .hlog files into {@code dir}. */
  public static void write(Path dir, List<RunResult> results) throws IOException {
    Files.createDirectories(dir);
    StringBuilder csv = new StringBuilder(CSV_HEADER).append('\n');
    for (RunResult r : results) {
      csv.append(csvRow(r)).append('\n');
    }
    Files.writeString(dir.resolve("results.csv"), csv);
    Map<String, List<RunResult>> byScenario = new LinkedHashMap<>();
    results.forEach(
        r -> byScenario.computeIfAbsent(r.scenario(), k -> new java.util.ArrayList<>()).add(r));
    for (Map.Entry<String, List<RunResult>> e : byScenario.entrySet()) {
      try (OutputStream out = Files.newOutputStream(dir.resolve(e.getKey() + ".hlog"));
          PrintStream ps = new PrintStream(out, false, "UTF-8")) {
        HistogramLogWriter w = new HistogramLogWriter(ps);
        w.outputComment(
            "Activity Service perf-tests: per-event channel-to-channel latency in microseconds, scenario "
                + e.getKey());
        w.outputLogFormatVersion();
        w.outputStartTime(e.getValue().get(0).start().toEpochMilli());
        w.setBaseTime(e.getValue().get(0).start().toEpochMilli());
        w.outputLegend();
        for (RunResult r : e.getValue()) {
          Histogram h = r.latency().copy();
          h.setStartTimeStamp(r.start().toEpochMilli());
          h.setEndTimeStamp(r.end().toEpochMilli());
          h.setTag(tag(r));
          w.outputIntervalHistogram(h);
        }
      }
    }
  }

  /** The tag of a run in its .hlog. */
  static String tag(RunResult r) {
    return r.mode().equals("rate")
        ? "rate-" + Math.round(r.offeredRate()) + "-r" + r.rep()
        : r.mode() + "-N" + r.n() + "-r" + r.rep();
  }

  /** One CSV row. */
  static String csvRow(RunResult r) {
    return String.format(
        Locale.ROOT,
        "%s,%s,%d,%d,%.0f,%d,%d,%d,%.6f,%.6f,%.1f,%.3f,%.3f,%.3f,%.3f,%.3f,%s,%s",
        r.scenario(),
        r.mode(),
        r.n(),
        r.rep(),
        r.offeredRate(),
        r.received(),
        r.duplicates(),
        r.sendFailures(),
        r.seconds(),
        r.sendSeconds(),
        r.throughput(),
        r.percentileMillis(50),
        r.percentileMillis(90),
        r.percentileMillis(99),
        r.percentileMillis(99.9),
        r.maxMillis(),
        r.start(),
        r.end());
  }
}
