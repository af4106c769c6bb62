package io.activityservice.detector;

import io.activityservice.events.log.LogSafe;
import io.activityservice.events.derive.DerivedEventEmitter;
import io.activityservice.events.model.HopCount;
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
 * Turns detector rows into CloudEvents and emits them through the {@link DerivedEventEmitter} (hop-count guard,
 * the author's scope, ingest, routing) on its own thread, never inside the engine's listener. A derived event whose hop count exceeds
 * {@code maxHopCount} is dead-lettered instead, so detectors that feed each other in a cycle stop after a bounded
 * number of hops. Extensions: {@code hopcount} (int) and {@code causedby}
 * (comma-separated ids of contributing events, when known).
 */
public class DerivedEvents implements DetectorOutput, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(DerivedEvents.class);
  /** Bound on the {@code causedby} extension; longer lists are cut at an id boundary and end with ",...". */
  static final int MAX_CAUSEDBY = 4000;

  private final DerivedEventEmitter emitter;
  private final DetectorMetrics metrics;
  private final int maxHopCount;
  private final ThreadPoolExecutor executor;

  public DerivedEvents(DerivedEventEmitter emitter, DetectorMetrics metrics, int maxHopCount, int queueCapacity) {
    this.emitter = emitter;
    this.metrics = metrics;
    this.maxHopCount = maxHopCount;
    this.executor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(queueCapacity),
        r -> {
          Thread t = new Thread(r, "detector-emit");
          t.setDaemon(true);
          return t;
        });
  }

  @Override
  public void emit(DetectorRow row) {
    try {
      executor.execute(() -> publish(row));
    } catch (RejectedExecutionException e) {
      metrics.derivedFailed();
      log.warn("dropping a derived event of detector '{}': the emit queue is full or closed", row.detector().name());
    }
  }

  /** Builds the derived CloudEvent of a row. */
  public static CloudEvent toCloudEvent(DetectorRow row) {
    CloudEventBuilder b = CloudEventBuilder.v1()
        .withId(UUID.randomUUID().toString())
        .withSource(URI.create(row.detector().source()))
        .withType(row.detector().emits())
        .withTime(OffsetDateTime.ofInstant(row.time(), ZoneOffset.UTC))
        .withDataContentType("application/json")
        .withData(JsonCloudEventData.wrap(RowJson.tree(row.columns())))
        .withExtension(HopCount.EXTENSION, row.hopCount());
    if (!row.causes().isEmpty()) {
      b.withExtension("causedby", join(row.causes()));
    }
    return b.build();
  }

  private void publish(DetectorRow row) {
    String name = row.detector().name();
    try {
      CloudEvent event = toCloudEvent(row);
      emitter.emit(event, new DerivedEventEmitter.Producer("detector:" + name, maxHopCount,
          "activity.detectors.max-hop-count", row.detector().effectiveScope())).whenComplete((outcome, error) -> {
            Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                ? error.getCause() : error;
            if (cause instanceof DerivedEventEmitter.NotEmitted) {
              metrics.deadLettered();
            } else if (cause != null) {
              metrics.derivedFailed();
              log.warn("derived event {} of detector '{}' was not routed: {}", event.getId(), name,
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
