package io.activityservice.perf;

import io.activityservice.events.subscription.CesqlFilter;
import io.cloudevents.CloudEvent;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** Cost of evaluating typical subscription CESQL filters on one ~1 KiB event. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CesqlFilterBenchmark {

  @Param({
    "subject = 'north'",
    "type LIKE 'com.example.meter.%' AND source = '/gateways/north-7/meters'",
    "subject IN ('north', 'south', 'east') OR type = 'com.example.alarm'",
    "EXISTS partitionkey AND INT(priority) > 3",
    "UPPER(subject) = 'SOUTH'"
  })
  public String expression;

  private CesqlFilter filter;
  private CloudEvent event;

  @Setup(Level.Trial)
  public void setUp() {
    filter = CesqlFilter.compile(expression);
    event = BenchmarkEvents.reading("m-0", 7.5);
    boolean expected = !expression.startsWith("UPPER");
    if (filter.test(event) != expected) {
      throw new IllegalStateException("'" + expression + "' should evaluate to " + expected);
    }
  }

  @Benchmark
  public boolean test() {
    return filter.test(event);
  }

  @Benchmark
  public CesqlFilter compile() {
    return CesqlFilter.compile(expression);
  }
}
