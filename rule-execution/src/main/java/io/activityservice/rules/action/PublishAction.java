package io.activityservice.rules.action;

import io.activityservice.events.ingest.EventIngest;
import io.activityservice.events.delivery.DeadLetters;
import io.activityservice.events.routing.RoutableEvent;
import io.cloudevents.CloudEvent;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * {@code publish}: emits a new CloudEvent into the Event Service (validated against the registry,
 * then routed to subscriptions and rules like any event). Parameters: {@code type} (required),
 * {@code data}, {@code source} (default {@code /rules/<rule>}), {@code subject}, {@code id}.
 * Carries {@code hopcount} = triggering event's + 1; past {@code activity.rules.max-hops} the event is
 * dead-lettered instead.
 */
public final class PublishAction implements ActionHandler {

  private final EventIngest ingest;
  private final DerivedEvents derived;

  public PublishAction(EventIngest ingest, DeadLetters deadLetters, int maxHops) {
    this.ingest = ingest;
    this.derived = new DerivedEvents(deadLetters, maxHops);
  }

  @Override
  public String name() {
    return "publish";
  }

  @Override
  public CompletableFuture<ActionResult> execute(Map<String, Object> params, ActionContext ctx) {
    try {
      CloudEvent event = derived.build(params, ctx, name());
      CompletableFuture<ActionResult> stopped = derived.guard(event, ctx, name());
      if (stopped != null) {
        return stopped;
      }
      RoutableEvent routable = ingest.prepare(event);
      return ingest.route(routable).handle((outcome, error) -> error == null ? ActionResult.succeeded(1)
          : ActionResult.failed(1, "routing failed: " + ActionDispatcher.message(error)));
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(ActionResult.failed(1, ActionDispatcher.message(e)));
    }
  }
}
