package io.activityservice.detector;

import io.activityservice.events.routing.HopCount;
import io.activityservice.events.ingest.EventIngest;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.delivery.DeadLetters;
import io.activityservice.events.routing.RoutableEvent;
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
 * Turns detector rows into CloudEvents and feeds them back into ingest ({@link EventIngest#prepare} then
 * {@link EventIngest#route}) on its own thread, never inside the engine's listener. A derived event whose
 * hop count exceeds {@code maxHopCount} is dead-lettered instead, so detectors that feed each other in a
 * cycle stop after a bounded number of hops. Extensions: {@code hopcount} (int) and {@code causedby}
 * (comma-separated ids of contributing events, when known).
 */
public class DerivedEvents implements DetectorOutput, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(DerivedEvents.class);
  /** Bound on the {@code causedby} extension; longer lists are cut at an id boundary and end with ",...". */
  static final int MAX_CAUSEDBY = 4000;

  private final EventIngest ingest;
  private final DeadLetters deadLetters;
  private final DetectorMetrics metrics;
  private final int maxHopCount;
  private final ThreadPoolExecutor executor;

  public DerivedEvents(EventIngest ingest, DeadLetters deadLetters, DetectorMetrics metrics, int maxHopCount,
                       int queueCapacity) {
    this.ingest = ingest;
    this.deadLetters = deadLetters;
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
      if (row.hopCount() > maxHopCount) {
        deadLetter(event, name, "hop count " + row.hopCount() + " exceeds activity.detectors.max-hop-count="
            + maxHopCount + ": detector '" + name + "' consumes, directly or through other detectors, events it "
            + "derived itself (a loop); change its inputs or EPL, or raise max-hop-count if the chain is intended");
        return;
      }
      RoutableEvent routable;
      try {
        routable = ingest.prepare(event);
      } catch (InvalidInputException e) {
        deadLetter(event, name, "derived event of detector '" + name + "' is invalid for type '"
            + row.detector().emits() + "': " + e.getMessage());
        return;
      }
      ingest.route(routable).whenComplete((outcome, error) -> {
        if (error != null) {
          metrics.derivedFailed();
          log.warn("derived event {} of detector '{}' was not routed: {}", event.getId(), name, error.toString());
        }
      });
    } catch (RuntimeException e) {
      metrics.derivedFailed();
      log.error("derived event of detector '{}' failed", name, e);
    }
  }

  private void deadLetter(CloudEvent event, String detector, String reason) {
    metrics.deadLettered();
    log.warn("dead-lettering derived event {} of detector '{}': {}", event.getId(), detector, reason);
    deadLetters.send(new DeadLetters.DeadLetter(event, null, "detector:" + detector, 0, reason), null).whenComplete((ok, error) -> {
      if (error != null) {
        log.error("dead letter of derived event {} failed: {}", event.getId(), error.toString());
      }
    });
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
