package io.activityservice.perf.cpu;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
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

  /**
   * The whole host's busy CPU time from {@code /proc/stat} (the {@code cpu} line: user, system,
   * irq, softirq and steal ticks of all cores, 10 ms each; idle and iowait are not busy). When this
   * JVM runs at normal priority the {@code nice} column is left out too: niced processes (other
   * users' builds) yield the cores to the suite's processes, so they take no capacity from them;
   * when this JVM is itself niced it competes with them and the column counts. Empty where {@code
   * /proc/stat} cannot be read.
   */
  static CpuSource host(String name) {
    boolean niced = niceness(Path.of("/proc/self/stat")) > 0;
    return new CpuSource() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public String description() {
        return "the whole host's busy CPU time, all cores (/proc/stat: user + system + irq + softirq + steal"
            + (niced
                ? " + nice, as the suite itself runs niced"
                : "; niced processes yield to the suite")
            + ", 10 ms ticks)";
      }

      @Override
      public OptionalLong cpuNanos() {
        try {
          return OptionalLong.of(
              busyTicks(java.nio.file.Files.readAllLines(Path.of("/proc/stat")).get(0), niced)
                  * 10_000_000L);
        } catch (java.io.IOException | RuntimeException e) {
          return OptionalLong.empty();
        }
      }
    };
  }

  /**
   * Not CPU: the time the host's whole disks had I/O in flight ({@code /proc/diskstats} field 13,
   * {@code io_ticks}, milliseconds; partitions, loop, RAM and device-mapper devices left out), read
   * like a CPU time so that the capacity model can treat the disk as one more server: persistent
   * brokers (KahaDB's journal) wait on it. Shared with everything else on the host. Empty where
   * {@code /proc/diskstats} cannot be read.
   */
  static CpuSource disk(String name) {
    return new CpuSource() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public String description() {
        return "not CPU: the host's disks' busy time (/proc/diskstats io_ticks, ms; shared with"
            + " everything on the host)";
      }

      @Override
      public OptionalLong cpuNanos() {
        try {
          return OptionalLong.of(
              diskBusyMillis(java.nio.file.Files.readAllLines(Path.of("/proc/diskstats")))
                  * 1_000_000L);
        } catch (java.io.IOException | RuntimeException e) {
          return OptionalLong.empty();
        }
      }
    };
  }

  /** Sum of {@code io_ticks} over the whole disks of a {@code /proc/diskstats} text. */
  static long diskBusyMillis(java.util.List<String> diskstats) {
    long sum = 0;
    for (String line : diskstats) {
      String[] f = line.trim().split("\\s+");
      if (f.length < 13) {
        continue;
      }
      String dev = f[2];
      if (dev.matches("(loop|ram|zram|dm-|md|sr|fd).*")
          || dev.matches("(sd|vd|xvd|hd)[a-z]+\\d+")
          || dev.matches("(nvme\\d+n\\d+|mmcblk\\d+)p\\d+")) {
        continue;
      }
      sum += Long.parseLong(f[12]);
    }
    return sum;
  }

  /**
   * Busy ticks of a {@code /proc/stat} {@code cpu} line: user + system + irq + softirq + steal,
   * plus nice when {@code withNice}.
   */
  static long busyTicks(String cpuLine, boolean withNice) {
    String[] f = cpuLine.trim().split("\\s+");
    long user = Long.parseLong(f[1]);
    long nice = Long.parseLong(f[2]);
    long system = Long.parseLong(f[3]);
    long irq = f.length > 6 ? Long.parseLong(f[6]) : 0;
    long softirq = f.length > 7 ? Long.parseLong(f[7]) : 0;
    long steal = f.length > 8 ? Long.parseLong(f[8]) : 0;
    return user + system + irq + softirq + steal + (withNice ? nice : 0);
  }

  /** The nice value (field 19) of a {@code /proc/<pid>/stat} file; 0 when unreadable. */
  static int niceness(Path stat) {
    try {
      String s = java.nio.file.Files.readString(stat);
      // Fields after the command name, which is in parentheses and may hold spaces.
      String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
      return Integer.parseInt(f[16]);
    } catch (java.io.IOException | RuntimeException e) {
      return 0;
    }
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
