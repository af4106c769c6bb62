package io.activityservice.perf.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The relay-cost target rows of a run as a tab-separated file ({@value #FILE}: key, status, figure,
 * target) beside its results.csv, so a later run given {@code --baseline <that run>/results.csv}
 * shows them as "before".
 */
public final class RelayTargets {

  /** File name in a report directory. */
  public static final String FILE = "relay-targets.tsv";

  private RelayTargets() {}

  /** Writes the rows. */
  public static void write(Path file, List<RelayCost.Row> rows) throws IOException {
    StringBuilder out = new StringBuilder("key\tstatus\tfigure\ttarget\n");
    for (RelayCost.Row r : rows) {
      out.append(clean(r.key()))
          .append('\t')
          .append(clean(r.status()))
          .append('\t')
          .append(clean(r.figure()))
          .append('\t')
          .append(clean(r.target()))
          .append('\n');
    }
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, out);
  }

  /** Reads the rows by key; empty if the file does not exist (an older run). */
  public static Map<String, RelayCost.Row> read(Path file) throws IOException {
    Map<String, RelayCost.Row> out = new LinkedHashMap<>();
    if (!Files.isRegularFile(file)) {
      return out;
    }
    return parse(Files.readAllLines(file));
  }

  /** Parses the lines of a file written by {@link #write}. */
  static Map<String, RelayCost.Row> parse(List<String> lines) {
    Map<String, RelayCost.Row> out = new LinkedHashMap<>();
    for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
      String[] f = line.split("\t", -1);
      if (f.length >= 4) {
        out.put(f[0], new RelayCost.Row(f[0], f[3], f[2], f[1], null));
      }
    }
    return out;
  }

  private static String clean(String s) {
    return s == null ? "" : s.replace('\t', ' ').replace('\n', ' ');
  }
}
