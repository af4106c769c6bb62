package io.activityservice.perf.cpu;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * CPU time of groups of threads of another process, from Linux's {@code
 * /proc/<pid>/task/<tid>/schedstat} (nanoseconds on the CPU) and {@code comm} (the thread's name,
 * 15 characters): e.g. a JVM's JIT compiler threads ({@code C2 CompilerThre…}) or its JFR threads.
 * Each group's total only grows: a thread's time is added as it accrues between readings; a thread
 * that ends between two readings loses what it used since the last one (the readings are at most a
 * few hundred milliseconds apart around each run).
 */
public final class ProcessThreads {

  /** The JVM's JIT compiler threads. */
  public static final String JIT = "jit";

  /** The JVM's Flight Recorder threads. */
  public static final String JFR = "jfr";

  /** The JVM's garbage collector and VM operation threads. */
  public static final String GC = "gc";

  private final long pid;
  private final Function<String, String> group;
  private final Map<String, Long> last = new HashMap<>();
  private final Map<String, Long> totals = new LinkedHashMap<>();
  private long readAt;
  private boolean readable = true;
  private boolean scanned;

  /**
   * @param pid the process
   * @param group a thread's name → its group, or null for threads not counted
   */
  public ProcessThreads(long pid, Function<String, String> group) {
    this.pid = pid;
    this.group = group;
  }

  /**
   * Groups of a HotSpot JVM's threads by name: {@value #JIT} (C1/C2 compiler threads), {@value
   * #JFR} and {@value #GC} (GC workers, G1's concurrent threads, the VM thread that runs safepoint
   * operations).
   */
  public static String hotspotGroup(String comm) {
    if (comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre")) {
      return JIT;
    }
    if (comm.startsWith("JFR ")) {
      return JFR;
    }
    if (comm.startsWith("GC Thread") || comm.startsWith("G1 ") || comm.equals("VM Thread")) {
      return GC;
    }
    return null;
  }

  /**
   * The CPU nanoseconds of {@code groupName} so far (from the first reading on), or empty if
   * unreadable.
   */
  public synchronized OptionalLong nanos(String groupName) {
    // One scan serves every group read at about the same moment.
    if (!scanned || System.nanoTime() - readAt > 5_000_000L) {
      scan();
    }
    return readable ? OptionalLong.of(totals.getOrDefault(groupName, 0L)) : OptionalLong.empty();
  }

  private void scan() {
    readAt = System.nanoTime();
    Map<String, Long> now = new HashMap<>();
    Map<String, String> groups = new HashMap<>();
    try (DirectoryStream<Path> tasks =
        Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : tasks) {
        try {
          String g = group.apply(Files.readString(task.resolve("comm")).trim());
          if (g == null) {
            continue;
          }
          String schedstat = Files.readString(task.resolve("schedstat")).trim();
          String tid = task.getFileName().toString();
          now.put(tid, Long.parseLong(schedstat.substring(0, schedstat.indexOf(' '))));
          groups.put(tid, g);
        } catch (IOException | RuntimeException e) {
          // the thread ended meanwhile
        }
      }
    } catch (IOException | RuntimeException e) {
      readable = false;
      return;
    }
    add(now, groups);
  }

  /**
   * Adds one reading: thread id → its CPU nanoseconds so far, and its group. The first reading only
   * sets the starting point; later a known thread adds what it used since the last reading, a new
   * thread all it used.
   */
  synchronized void add(Map<String, Long> now, Map<String, String> groups) {
    boolean first = !scanned;
    scanned = true;
    now.forEach(
        (tid, ns) -> {
          Long before = last.get(tid);
          long delta = first ? 0 : before == null ? ns : Math.max(0, ns - before);
          totals.merge(groups.get(tid), delta, Long::sum);
        });
    last.clear();
    last.putAll(now);
  }

  /** Totals per group so far (for tests). */
  synchronized Map<String, Long> totals() {
    return Map.copyOf(totals);
  }

  /** A source for one group of this process's threads. */
  public CpuSource source(String name, String groupName, String description) {
    return new CpuSource() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public String description() {
        return description + " (pid " + pid + ", /proc/<pid>/task/*/schedstat, ns)";
      }

      @Override
      public OptionalLong cpuNanos() {
        return nanos(groupName);
      }
    };
  }
}
