package io.activityservice.app.stats;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * This process's CPU time and the host's CPU load, as the JVM reports them ({@code
 * com.sun.management.OperatingSystemMXBean}); sampled with the counters so that the capacity model
 * can apply the utilisation law U = X·D per window.
 */
public interface ProcessCpu {

  /** CPU time this process has used since it started, in nanoseconds; -1 when not measurable. */
  long processCpuNanos();

  /** The whole host's recent CPU load, 0 to 1; NaN when not measurable. */
  double hostLoad();

  /** The JVM's own measurements; both methods answer "not measurable" on JVMs without them. */
  static ProcessCpu platform() {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
      return new ProcessCpu() {
        @Override
        public long processCpuNanos() {
          return sun.getProcessCpuTime();
        }

        @Override
        public double hostLoad() {
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
}
