package io.activityservice.perf;

import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * A JMH profiler ({@code -prof io.activityservice.perf.ProcessCpuProfiler}) that reports the
 * benchmark process's CPU time per operation, {@code cpu.process.norm} in ns/op: user + system time
 * of every thread of the forked JVM (benchmark threads, GC, JIT, JMH's own) over each iteration,
 * divided by the iteration's operations. Unlike the average time, it does not count time the
 * benchmark thread waited for a core on a busy machine, and it does count the GC work an
 * operation's allocations cause.
 */
public final class ProcessCpuProfiler implements InternalProfiler {

  private long cpuBefore;

  @Override
  public String getDescription() {
    return "CPU time of the benchmark process per operation (all threads: GC and JIT included)";
  }

  @Override
  public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
    cpuBefore = processCpuNanos();
  }

  @Override
  @SuppressWarnings("rawtypes") // JMH's InternalProfiler declares the raw Result
  public Collection<? extends Result> afterIteration(
      BenchmarkParams benchmarkParams, IterationParams iterationParams, IterationResult result) {
    long cpu = processCpuNanos() - cpuBefore;
    long ops = result.getMetadata().getMeasuredOps();
    if (cpu < 0 || ops <= 0) {
      return List.of();
    }
    return List.of(
        new ScalarResult("cpu.process.norm", (double) cpu / ops, "ns/op", AggregationPolicy.AVG));
  }

  private static long processCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }
}
