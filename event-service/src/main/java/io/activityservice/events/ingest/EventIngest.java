package io.activityservice.events.ingest;

import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.InvalidInputException.FieldError;
import io.activityservice.events.registry.EventRegistry;
import io.activityservice.events.routing.EventRouter;
import io.activityservice.events.routing.RoutableEvent;
import io.activityservice.events.routing.RoutingOutcome;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The one way events enter the Event Service, whichever channel they came from: fill in
 * {@code time}, validate against the registry, then route. Validation is synchronous so that a bad
 * event is refused before anything about it is routed.
 */
public class EventIngest {

  private final EventRegistry registry;
  private final EventRouter router;
  private final Clock clock;

  public EventIngest(EventRegistry registry, EventRouter router, Clock clock) {
    this.registry = registry;
    this.router = router;
    this.clock = clock;
  }

  /**
   * Normalizes and validates one event.
   *
   * @throws InvalidInputException naming the offending field
   */
  public RoutableEvent prepare(CloudEvent event) {
    CloudEvent withTime = event.getTime() != null ? event
        : CloudEventBuilder.from(event).withTime(OffsetDateTime.now(clock)).build();
    RoutableEvent routable = RoutableEvent.of(withTime);
    registry.validate(withTime.getType(), routable.data(), routable.dataIsJson());
    return routable;
  }

  /**
   * Validates a whole batch before any of it is routed; errors name the entry, e.g. {@code [2].data.value}.
   */
  public List<RoutableEvent> prepareAll(List<CloudEvent> events) {
    List<RoutableEvent> prepared = new ArrayList<>(events.size());
    List<FieldError> errors = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      try {
        prepared.add(prepare(events.get(i)));
      } catch (InvalidInputException e) {
        for (FieldError fe : e.errors()) {
          errors.add(new FieldError("[" + i + "]." + fe.field(), fe.reason()));
        }
      }
    }
    if (!errors.isEmpty()) {
      throw new InvalidInputException(errors);
    }
    return prepared;
  }

  /** Routes a prepared event; see {@link EventRouter#route(RoutableEvent)}. */
  public CompletableFuture<RoutingOutcome> route(RoutableEvent event) {
    return router.route(event);
  }

  /** Prepares and routes; validation errors fail the returned future. */
  public CompletableFuture<RoutingOutcome> publish(CloudEvent event) {
    try {
      return route(prepare(event));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
