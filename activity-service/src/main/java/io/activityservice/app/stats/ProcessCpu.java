package io.activityservice.app.stats;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This process's CPU time (as the JVM reports it, {@code com.sun.management.OperatingSystemMXBean})
 * and the host's CPU load (see {@link #platform()}); sampled with the counters so that the capacity
 * model can apply the utilisation law U = X·D per window.
 */
public interface ProcessCpu {

  /** CPU time this process has used since it started, in nanoseconds; -1 when not measurable. */
  long processCpuNanos();

  /** The whole host's recent CPU load, 0 to 1; NaN when not measurable. */
  double hostLoad();

  /**
   * The JVM's own measurements; both methods answer "not measurable" on JVMs without them. On Linux
   * the host's load comes from {@code /proc/stat} between two calls, with niced processes (other
   * users' builds at {@code nice 19}) left out while this JVM runs at normal priority: they yield
   * the cores to it, so they take no capacity from it. Elsewhere, and for the first call, the JVM's
   * own figure, which counts them.
   */
  static ProcessCpu platform() {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
      boolean niced = niceness(Path.of("/proc/self/stat")) > 0;
      return new ProcessCpu() {
        private long[] last;

        @Override
        public long processCpuNanos() {
          return sun.getProcessCpuTime();
        }

        @Override
        public synchronized double hostLoad() {
          long[] now = null;
          try {
            now = ticks(Files.readAllLines(Path.of("/proc/stat")).get(0), niced);
          } catch (IOException | RuntimeException e) {
            // not Linux: the JVM's figure
          }
          long[] before = last;
          last = now;
          if (now != null && before != null && now[1] > before[1]) {
            return Math.max(0, Math.min(1, (double) (now[0] - before[0]) / (now[1] - before[1])));
          }
          double load = sun.getCpuLoad();
          return load < 0 ? Double.NaN : load;
        }
      };
    }
    return new ProcessCpu() {
      @Override
      public long processCpuNanos() {
        return -1;
      }

      @Override
      public double hostLoad() {
        return Double.NaN;
      }
    };
  }

  /**
   * Busy and total ticks of a {@code /proc/stat} {@code cpu} line: busy = user + system + irq +
   * softirq + steal (+ nice when {@code withNice}), total = every column up to steal.
   */
  static long[] ticks(String cpuLine, boolean withNice) {
    String[] f = cpuLine.trim().split("\\s+");
    long[] v = new long[8];
    for (int i = 0; i < 8 && i + 1 < f.length; i++) {
      v[i] = Long.parseLong(f[i + 1]);
    }
    // user nice system idle iowait irq softirq steal
    long busy = v[0] + v[2] + v[5] + v[6] + v[7] + (withNice ? v[1] : 0);
    long total = 0;
    for (long x : v) {
      total += x;
    }
    return new long[] {busy, total};
  }

  /** The nice value (field 19) of a {@code /proc/<pid>/stat} file; 0 when unreadable. */
  static int niceness(Path stat) {
    try {
      String s = Files.readString(stat);
      // Fields after the command name, which is in parentheses and may hold spaces.
      String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
      return Integer.parseInt(f[16]);
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }
}
