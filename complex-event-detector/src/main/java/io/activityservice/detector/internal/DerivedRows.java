package io.activityservice.detector.internal;

import io.activityservice.channel.support.DaemonThreads;
import io.activityservice.detector.DetectorMetrics;
import io.activityservice.detector.DetectorOutput;
import io.activityservice.detector.DetectorRow;
import io.activityservice.events.definition.DerivedEvents;
import io.activityservice.events.derive.DerivedEventEmitter;
import io.activityservice.events.log.LogSafe;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.jackson.JsonCloudEventData;
import java.net.URI;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns detector rows into CloudEvents and emits them through the shared {@link DerivedEvents}
 * (hop-count guard, the author's scope, ingest, routing) on its own thread, never inside the
 * engine's listener. A derived event whose hop count exceeds {@code maxHopCount} is dead-lettered
 * instead, so detectors that feed each other in a cycle stop after a bounded number of hops.
 * Extensions: {@code hopcount} (int) and {@code causedby} (comma-separated ids of contributing
 * events, when known).
 */
public class DerivedRows implements DetectorOutput, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(DerivedRows.class);

  /**
   * Bound on the {@code causedby} extension; longer lists are cut at an id boundary and end with
   * ",...".
   */
  static final int MAX_CAUSEDBY = 4000;

  private final DerivedEvents derived;
  private final DetectorMetrics metrics;
  private final ThreadPoolExecutor executor;

  /**
   * The detectors' derived rows: origin {@code detector:<name>}, loops bounded by {@code
   * maxHopCount} ({@code activity.detectors.max-hop-count}).
   */
  public static DerivedRows of(
      DerivedEventEmitter emitter, DetectorMetrics metrics, int maxHopCount, int queueCapacity) {
    return new DerivedRows(
        new DerivedEvents(emitter, "detector:", maxHopCount, "activity.detectors.max-hop-count"),
        metrics,
        queueCapacity);
  }

  /**
   * @param derived the detectors' derived events ({@code detector:<name>}, bounded by {@code
   *     activity.detectors.max-hop-count})
   * @param queueCapacity rows waiting to be emitted; beyond it rows are dropped and counted
   */
  public DerivedRows(DerivedEvents derived, DetectorMetrics metrics, int queueCapacity) {
    this.derived = derived;
    this.metrics = metrics;
    this.executor =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(queueCapacity),
            DaemonThreads.named("detector-emit"));
  }

  @Override
  public void emit(DetectorRow row) {
    try {
      executor.execute(() -> publish(row));
    } catch (RejectedExecutionException e) {
      metrics.derivedFailed();
      log.warn(
          "dropping a derived event of detector '{}': the emit queue is full or closed",
          row.detector().name());
    }
  }

  /** Builds the derived CloudEvent of a row. */
  public static CloudEvent toCloudEvent(DetectorRow row) {
    CloudEventBuilder b =
        CloudEventBuilder.v1()
            .withId(UUID.randomUUID().toString())
            .withSource(URI.create(row.detector().source()))
            .withType(row.detector().emits())
            .withTime(OffsetDateTime.ofInstant(row.time(), ZoneOffset.UTC))
            .withDataContentType("application/json")
            .withData(JsonCloudEventData.wrap(RowJson.tree(row.columns())));
    DerivedEvents.stamp(b, row.hopCount() - 1);
    if (!row.causes().isEmpty()) {
      b.withExtension("causedby", join(row.causes()));
    }
    return b.build();
  }

  private void publish(DetectorRow row) {
    String name = row.detector().name();
    try {
      CloudEvent event = toCloudEvent(row);
      derived
          .emit(event, name, row.detector().effectiveScope(), row.causeTraces())
          .whenComplete(
              (outcome, error) -> {
                if (error == null) {
                  return;
                }
                Throwable cause = DerivedEvents.cause(error);
                if (DerivedEvents.deadLettered(cause)) {
                  metrics.deadLettered();
                } else {
                  metrics.derivedFailed();
                  log.warn(
                      "derived event {} of detector '{}' was not routed: {}",
                      event.getId(),
                      name,
                      LogSafe.message(cause.toString()));
                }
              });
    } catch (RuntimeException e) {
      metrics.derivedFailed();
      log.error("derived event of detector '{}' failed", name, e);
    }
  }

  static String join(java.util.List<String> ids) {
    StringBuilder s = new StringBuilder();
    for (String id : ids) {
      if (s.length() + id.length() + 1 > MAX_CAUSEDBY) {
        return s.append(",...").toString();
      }
      s.append(s.length() == 0 ? "" : ",").append(id);
    }
    return s.toString();
  }

  /** Stops the emit thread after the queued rows are published (waits up to 5 s). */
  @Override
  public void close() {
    executor.shutdown();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
