package io.activityservice.perf;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.detector.ClockMode;
import io.activityservice.detector.DetectorDefinition;
import io.activityservice.detector.DetectorMetrics;
import io.activityservice.detector.DetectorStats;
import io.activityservice.detector.esper.EsperDetectorEngine;
import io.activityservice.events.json.Json;
import io.activityservice.events.model.RoutableEvent;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Per-event cost of Esper detectors: one ~1 KiB meter reading handed to an {@link
 * EsperDetectorEngine} with N detectors deployed ({@code @Param detectors} = 1, 10, 100), measured
 * to completion.
 *
 * <p>The synchronous step (a detector's {@code process}, i.e. Esper's {@code sendEventMap}) is
 * package-private, so this goes through the public API: each invocation {@link
 * EsperDetectorEngine#submit submits} {@value #BATCH} events, then waits (parking 20 µs between
 * polls) until the engine's single worker thread has sent every one of them into the detectors
 * consuming the type, read from {@link EsperDetectorEngine#stats} ({@code eventsIn} of the
 * last-deployed consuming detector: the worker feeds detectors in deployment order and counts an
 * event after Esper returned). The figure is therefore <b>time per event, end to end through the
 * worker</b>: queue hand-off, conversion of the event to the input type's Map (once per event), and
 * for each consuming detector advancing its clock, {@code sendEventMap} and the metrics timer. The
 * submitting thread runs concurrently on the other core; at these costs the worker is the
 * bottleneck.
 *
 * <p>Every detector is the same statement (the one behind complex-event-detector's README "Cost"
 * table): a grouped average over {@code #length(3)} on {@code data.meter} whose {@code having}
 * clause never holds, so no rows are produced and the figure is the input path. The reading type
 * has the example JSON Schema (typed {@code data.meter}, {@code data.value}). Layouts
 * ({@code @Param layout}): {@code all} = all N detectors consume the reading type (worst case);
 * {@code one} = one does, the other N - 1 consume another type with the same schema (the worker's
 * type index skips them). Processing-time clock, one worker thread, queue of 10,000; no event may
 * be dropped (checked at tear-down).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx2g"})
public class DetectorBenchmark {

  static final int BATCH = 1_000;
  private static final String OTHER = "com.example.meter.reading.other";
  private static final String EPL =
      "select data.meter as meter, avg(data.value) as avgValue from R#length(3) "
          + "group by data.meter having avg(data.value) > 1e12";
  private static final JsonNode READING_SCHEMA =
      Json.parse(
          "{\"type\": \"object\", \"required\": [\"meter\", "
              + "\"value\"], \"properties\": {\"meter\": {\"type\": \"string\"}, \"value\": {\"type\": \"number\"}}}",
          "schema");

  @Param({"1", "10", "100"})
  public int detectors;

  @Param({"all", "one"})
  public String layout;

  private EsperDetectorEngine engine;
  private DetectorMetrics metrics;
  private RoutableEvent event;

  /** The detector whose eventsIn tells that a batch is done, and how many it has seen. */
  private String last;

  private long done;

  @Setup(Level.Trial)
  public void setUp() {
    metrics = new DetectorMetrics(new SimpleMeterRegistry());
    engine =
        new EsperDetectorEngine(
            type -> Optional.of(READING_SCHEMA),
            row -> {},
            metrics,
            Clock.systemUTC(),
            new EsperDetectorEngine.Settings(1, 10_000, Duration.ofMillis(50)));
    OffsetDateTime now = OffsetDateTime.now();
    boolean all = "all".equals(layout);
    for (int i = 0; i < detectors; i++) {
      // In layout "one" the consuming detector is deployed last, so it is also the one polled for
      // completion.
      boolean consumes = all || i == detectors - 1;
      String name = "d" + i;
      engine.deploy(
          new DetectorDefinition(
                  name,
                  Map.of("R", consumes ? BenchmarkEvents.READING : OTHER),
                  EPL,
                  "com.example.none",
                  ClockMode.PROCESSING_TIME,
                  now)
              .validate());
      if (consumes) {
        last = name;
      }
    }
    event = RoutableEvent.of(BenchmarkEvents.reading("m-0", 7.5));
    done = 0;
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long submitAndDrain() {
    for (int i = 0; i < BATCH; i++) {
      engine.submit(event);
    }
    done += BATCH;
    long in;
    while ((in = engine.stats(last).eventsIn()) < done) {
      if (metrics.dropped() > 0) {
        throw new IllegalStateException(
            "the detector queue overflowed: " + metrics.dropped() + " dropped");
      }
      LockSupport.parkNanos(20_000);
    }
    return in;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    DetectorStats s = engine.stats(last);
    engine.close();
    if (s.dropped() != 0 || s.rowsOut() != 0) {
      throw new IllegalStateException("benchmark set-up is wrong: " + s);
    }
  }
}
