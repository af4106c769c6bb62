package io.activityservice.perf.cpu;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Counters of another process that say how it spends its CPU: context switches summed over its
 * threads ({@code /proc/<pid>/task/*}{@code /status}: {@code voluntary_ctxt_switches} — a thread
 * blocked, e.g. a hand-off to another thread or waiting on a socket; {@code
 * nonvoluntary_ctxt_switches} — it was preempted) and its write-family and read-family system calls
 * ({@code /proc/<pid>/io}: {@code syscw} counts write/writev calls, i.e. socket writes, file writes
 * and selector wake-ups through pipes/eventfds; {@code syscr} reads). A thread that ends between
 * two readings takes its context switches with it.
 */
public final class ProcessCounters {

  /** Counter names (suffixes). */
  public static final String VOLUNTARY = "vcsw";

  /** Involuntary context switches. */
  public static final String INVOLUNTARY = "ivcsw";

  /** Write-family system calls. */
  public static final String WRITES = "syscw";

  /** Read-family system calls. */
  public static final String READS = "syscr";

  /**
   * Prefix (after the process's name) of one application thread's CPU nanoseconds, {@code
   * <name>.thread.<tid>}: JIT compiler, JFR and GC threads are left out (see {@link
   * ProcessThreads#hotspotGroup}). The capacity model takes the busiest thread as a single server.
   */
  public static final String THREAD = "thread.";

  private final String name;
  private final long pid;

  /**
   * @param name the process's name in counter names ({@code <name>.vcsw} …)
   * @param pid the process
   */
  public ProcessCounters(String name, long pid) {
    this.name = name;
    this.pid = pid;
  }

  /** The counters now (empty if the process cannot be read). */
  public Map<String, Long> read() {
    Map<String, Long> out = new LinkedHashMap<>();
    long vol = 0;
    long invol = 0;
    try (DirectoryStream<Path> tasks =
        Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : tasks) {
        try {
          long[] cs = contextSwitches(Files.readString(task.resolve("status")));
          vol += cs[0];
          invol += cs[1];
          String comm = Files.readString(task.resolve("comm")).trim();
          if (ProcessThreads.hotspotGroup(comm) == null) {
            String schedstat = Files.readString(task.resolve("schedstat")).trim();
            out.put(
                name + "." + THREAD + task.getFileName(),
                Long.parseLong(schedstat.substring(0, schedstat.indexOf(' '))));
          }
        } catch (IOException e) {
          // the thread ended meanwhile
        }
      }
      out.put(name + "." + VOLUNTARY, vol);
      out.put(name + "." + INVOLUNTARY, invol);
    } catch (IOException | RuntimeException e) {
      return out;
    }
    try {
      out.putAll(io(name, Files.readString(Path.of("/proc", Long.toString(pid), "io"))));
    } catch (IOException | RuntimeException e) {
      // not readable (another user's process)
    }
    return out;
  }

  /**
   * Voluntary and involuntary context switches from a {@code /proc/<pid>/task/<tid>/status} text.
   */
  static long[] contextSwitches(String status) {
    long[] out = new long[2];
    for (String line : status.split("\n")) {
      if (line.startsWith("voluntary_ctxt_switches:")) {
        out[0] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
      } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
        out[1] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
      }
    }
    return out;
  }

  /**
   * {@code syscw} and {@code syscr} from a {@code /proc/<pid>/io} text, named {@code <name>.syscw}
   * …
   */
  static Map<String, Long> io(String name, String io) {
    Map<String, Long> out = new LinkedHashMap<>();
    for (String line : io.split("\n")) {
      if (line.startsWith("syscw:")) {
        out.put(name + "." + WRITES, Long.parseLong(line.substring(6).trim()));
      } else if (line.startsWith("syscr:")) {
        out.put(name + "." + READS, Long.parseLong(line.substring(6).trim()));
      }
    }
    return out;
  }
}
