package io.activityservice.perf.cpu;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Something whose CPU time the suite reads before and after each run: the service process, an
 * external broker process, or the embedded Kafka broker's threads in the runner JVM.
 */
public interface CpuSource {

  /** Short name used in tables and {@code cpu.csv}, e.g. {@code service}. */
  String name();

  /** What is measured and how, for the report. */
  String description();

  /**
   * Total CPU time (user + system) consumed so far in nanoseconds, or empty if it cannot be read
   * now.
   */
  OptionalLong cpuNanos();

  /**
   * A process's CPU time from {@link ProcessHandle.Info#totalCpuDuration()} (on Linux {@code
   * /proc/<pid>/stat} utime + stime, whose resolution is one clock tick, 10 ms at {@code CLK_TCK} =
   * 100).
   */
  static CpuSource process(String name, long pid, String description) {
    return new CpuSource() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public String description() {
        return description + " (pid " + pid + ", process CPU time, 10 ms ticks)";
      }

      @Override
      public OptionalLong cpuNanos() {
        return ProcessHandle.of(pid)
            .flatMap(h -> h.info().totalCpuDuration())
            .map(d -> OptionalLong.of(d.toNanos()))
            .orElse(OptionalLong.empty());
      }
    };
  }

  /**
   * The CPU time of some threads of this JVM ({@link ThreadMXBean#getThreadCpuTime}, nanoseconds):
   * those in {@code startedWith} (ids of threads that appeared while a component started) and any
   * later thread whose name {@code belongs}. GC and JIT work of the JVM is not attributed to them;
   * threads that ended are not counted (the broker's threads live as long as the broker).
   */
  static CpuSource threads(
      String name, String description, Set<Long> startedWith, Predicate<String> belongs) {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    Set<Long> ids = ConcurrentHashMap.newKeySet();
    ids.addAll(startedWith);
    return new CpuSource() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public String description() {
        return description;
      }

      @Override
      public OptionalLong cpuNanos() {
        if (!mx.isThreadCpuTimeSupported()) {
          return OptionalLong.empty();
        }
        long sum = 0;
        for (java.lang.management.ThreadInfo t : mx.getThreadInfo(mx.getAllThreadIds())) {
          if (t == null) {
            continue;
          }
          if (ids.contains(t.getThreadId()) || belongs.test(t.getThreadName())) {
            ids.add(t.getThreadId());
            long ns = mx.getThreadCpuTime(t.getThreadId());
            if (ns > 0) {
              sum += ns;
            }
          }
        }
        return OptionalLong.of(sum);
      }
    };
  }

  /**
   * {@code total} minus {@code parts} (e.g. a process without its JIT compiler and JFR threads);
   * empty if any of them cannot be read.
   */
  static CpuSource minus(
      String name, String description, CpuSource total, java.util.List<CpuSource> parts) {
    return new CpuSource() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public String description() {
        return description;
      }

      @Override
      public OptionalLong cpuNanos() {
        OptionalLong t = total.cpuNanos();
        if (t.isEmpty()) {
          return t;
        }
        long v = t.getAsLong();
        for (CpuSource p : parts) {
          OptionalLong x = p.cpuNanos();
          if (x.isEmpty()) {
            return x;
          }
          v -= x.getAsLong();
        }
        return OptionalLong.of(v);
      }
    };
  }

  /** Ids of the live threads of this JVM (to tell which ones a component started). */
  static Set<Long> liveThreadIds() {
    Set<Long> ids = new java.util.HashSet<>();
    for (long id : ManagementFactory.getThreadMXBean().getAllThreadIds()) {
      ids.add(id);
    }
    return ids;
  }
}
