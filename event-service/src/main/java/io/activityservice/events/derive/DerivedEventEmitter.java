package io.activityservice.events.derive;

import io.activityservice.events.delivery.DeadLetters;
import io.activityservice.events.ingest.EventIngest;
import io.activityservice.events.log.LogSafe;
import io.activityservice.events.model.HopCount;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.routing.RoutingOutcome;
import io.activityservice.events.scope.TypeScope;
import io.activityservice.events.tracing.EventTracing;
import io.cloudevents.CloudEvent;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way derived events — detector rows, rule actions — leave their producer: the hop-count
 * guard (an event derived from events derived from… stops after {@code maxHops} steps, so producers
 * that feed each other cannot loop forever), the author's scope (a producer deployed by an author
 * scoped to some event types may emit only those types), then ingest (validation against the
 * registry) and routing, or a dead letter with the reason. With several replicas a producer runs on
 * the replica that owns its input (see {@link io.activityservice.events.cluster.ProcessorRouting}),
 * so each derived event leaves once.
 */
public final class DerivedEventEmitter {

  private static final Logger log = LoggerFactory.getLogger(DerivedEventEmitter.class);

  /**
   * Who derives events.
   *
   * @param origin e.g. {@code detector:overload} or {@code rule:shedding/publish}: the dead
   *     letter's origin
   * @param maxHops the loop guard's bound
   * @param hopsSetting the property that sets the bound, named in the reason
   * @param scope the event types the producer's author may emit ({@link TypeScope#ALL}: unscoped)
   */
  public record Producer(String origin, int maxHops, String hopsSetting, TypeScope scope) {

    public Producer {
      scope = scope == null ? TypeScope.ALL : scope;
    }

    /** A producer of an unscoped author. */
    public Producer(String origin, int maxHops, String hopsSetting) {
      this(origin, maxHops, hopsSetting, TypeScope.ALL);
    }
  }

  /** Why an event was not emitted. */
  public static final class NotEmitted extends RuntimeException {
    public NotEmitted(String reason) {
      super(reason, null, false, false);
    }
  }

  private final EventIngest ingest;
  private final DeadLetters deadLetters;

  public DerivedEventEmitter(EventIngest ingest, DeadLetters deadLetters) {
    this.ingest = ingest;
    this.deadLetters = deadLetters;
  }

  /**
   * The loop guard and the author's scope, for producers that deliver the derived event themselves
   * (a rule's {@code send}).
   *
   * @return {@code null} when the event may be emitted; else a future that completes when it was
   *     dead-lettered (failing with {@link NotEmitted} carrying the reason)
   */
  public CompletableFuture<Void> guard(CloudEvent event, Producer producer) {
    if (!producer.scope().allows(event.getType())) {
      return refuse(
          event,
          producer,
          "type "
              + event.getType()
              + " is outside the event types the author of "
              + producer.origin()
              + " may emit ("
              + producer.scope()
              + ")");
    }
    int hops = HopCount.of(event);
    if (hops <= producer.maxHops()) {
      return null;
    }
    return deadLetter(
        event,
        producer,
        "hop count "
            + hops
            + " exceeds "
            + producer.hopsSetting()
            + "="
            + producer.maxHops()
            + ": "
            + producer.origin()
            + " consumes, directly or through other detectors and rules,"
            + " events derived from its own (a loop); change its inputs, or raise the bound if the chain is intended");
  }

  /**
   * Guards, validates and routes a derived event. Never throws.
   *
   * @return the routing outcome; fails with {@link NotEmitted} when the event was dead-lettered
   *     instead, or with the routing error
   */
  public CompletableFuture<RoutingOutcome> emit(CloudEvent event, Producer producer) {
    return emit(event, producer, List.of());
  }

  /**
   * Guards, validates and routes a derived event in a span linked to the spans of every event it
   * was derived from (and a child of the last one's), which the derived event's deliveries
   * continue. Never throws.
   *
   * @param causes the {@code traceparent} of each event it was derived from, where known
   * @return the routing outcome; fails with {@link NotEmitted} when the event was dead-lettered
   *     instead, or with the routing error
   */
  public CompletableFuture<RoutingOutcome> emit(
      CloudEvent event, Producer producer, List<String> causes) {
    try {
      CompletableFuture<Void> stopped = guard(event, producer);
      if (stopped != null) {
        return stopped.thenApply(v -> null);
      }
      EventTracing.Hop hop = ingest.tracing().derived(event, producer.origin(), causes);
      RoutableEvent routable;
      try {
        routable = ingest.prepare(event, hop);
      } catch (InvalidInputException e) {
        hop.end(e);
        return deadLetter(
                event,
                producer,
                "derived event of "
                    + producer.origin()
                    + " is invalid for type '"
                    + event.getType()
                    + "': "
                    + e.getMessage())
            .thenApply(v -> null);
      }
      return ingest.route(routable);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Refuses a derived event: dead-letters it with the reason instead of emitting it.
   *
   * @return a future that fails with {@link NotEmitted} carrying the reason once the event was
   *     dead-lettered
   */
  public CompletableFuture<Void> refuse(CloudEvent event, Producer producer, String reason) {
    return deadLetter(event, producer, reason);
  }

  private CompletableFuture<Void> deadLetter(CloudEvent event, Producer producer, String reason) {
    log.warn(
        "dead-lettering derived event {} of {}: {}",
        LogSafe.text(event.getId()),
        LogSafe.text(producer.origin()),
        LogSafe.text(reason, 1024));
    return deadLetters
        .send(new DeadLetters.DeadLetter(event, null, producer.origin(), 0, reason), null)
        .handle(
            (ok, error) -> {
              throw new NotEmitted(
                  error == null ? reason : reason + " (and dead-lettering failed: " + error + ")");
            });
  }
}
