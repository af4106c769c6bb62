package io.activityservice.detector;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Micrometer meters of detectors. Per detector (tag {@code detector}): {@code
 * activity.detectors.events.in}, {@code activity.detectors.rows.out}, {@code
 * activity.detectors.processing} (timer per event sent into the engine). Engine-wide: {@code
 * activity.detectors.dropped} (queue full), {@code activity.detectors.dead.lettered} (hop count
 * exceeded or derived event invalid), {@code activity.detectors.derived.failed} (routing refused).
 */
public class DetectorMetrics {

  /** The meters of one detector; removed from the registry when the detector is undeployed. */
  public final class PerDetector {
    private final Counter in;
    private final Counter out;
    private final Timer processing;

    private PerDetector(String name) {
      in =
          Counter.builder("activity.detectors.events.in")
              .tag("detector", name)
              .description("Events sent into the detector")
              .register(registry);
      out =
          Counter.builder("activity.detectors.rows.out")
              .tag("detector", name)
              .description("Output rows of the detector (derived events)")
              .register(registry);
      processing =
          Timer.builder("activity.detectors.processing")
              .tag("detector", name)
              .description("Time the engine spent on one input event of the detector")
              .register(registry);
    }

    public void processed(long nanos) {
      in.increment();
      processing.record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    public void rowOut() {
      out.increment();
    }

    public long eventsIn() {
      return (long) in.count();
    }

    public long rowsOut() {
      return (long) out.count();
    }

    public void remove() {
      registry.remove(in);
      registry.remove(out);
      registry.remove(processing);
    }
  }

  private final MeterRegistry registry;
  private final AtomicLong dropped = new AtomicLong();
  private final Counter deadLettered;
  private final Counter derivedFailed;

  public DetectorMetrics(MeterRegistry registry) {
    this.registry = registry;
    Gauge.builder("activity.detectors.dropped", dropped, AtomicLong::get)
        .description("Events dropped before reaching detectors because the engine queue was full")
        .register(registry);
    deadLettered =
        Counter.builder("activity.detectors.dead.lettered")
            .description("Derived events dead-lettered (hop count exceeded or invalid)")
            .register(registry);
    derivedFailed =
        Counter.builder("activity.detectors.derived.failed")
            .description("Derived events that could not be handed to routing")
            .register(registry);
  }

  public PerDetector forDetector(String name) {
    return new PerDetector(name);
  }

  /** Registers a gauge of the engine's queued events. */
  public void queued(Supplier<Number> size) {
    Gauge.builder("activity.detectors.queued", size)
        .description("Events waiting for the detector engine")
        .register(registry);
  }

  public long dropped() {
    return dropped.get();
  }

  public long droppedOne() {
    return dropped.incrementAndGet();
  }

  public void deadLettered() {
    deadLettered.increment();
  }

  public void derivedFailed() {
    derivedFailed.increment();
  }
}
