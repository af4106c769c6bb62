package io.activityservice.rules.action;

import io.activityservice.events.definition.DerivedEvents;
import io.activityservice.events.derive.DerivedEventEmitter;
import io.cloudevents.CloudEvent;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * {@code publish}: emits a new CloudEvent into the Event Service (validated against the registry,
 * then routed to subscriptions and rules like any event). Parameters: {@code type} (required),
 * {@code data}, {@code source} (default {@code /rules/<rule>}), {@code subject}, {@code id}.
 * Carries {@code hopcount} = triggering event's + 1; past {@code activity.rules.max-hops} the event
 * is dead-lettered instead.
 */
public final class PublishAction implements ActionHandler {

  private final ActionEvents derived;

  public PublishAction(DerivedEventEmitter emitter, int maxHops) {
    this.derived = new ActionEvents(emitter, maxHops);
  }

  @Override
  public String name() {
    return "publish";
  }

  @Override
  public CompletableFuture<ActionResult> execute(Map<String, Object> params, ActionContext ctx) {
    try {
      CloudEvent event = derived.build(params, ctx, name());
      return derived
          .emit(event, ctx, name())
          .handle(
              (outcome, error) -> {
                if (error == null) {
                  return ActionResult.succeeded(1);
                }
                Throwable cause = DerivedEvents.cause(error);
                return ActionResult.failed(
                    1,
                    DerivedEvents.deadLettered(cause)
                        ? cause.getMessage()
                        : "routing failed: " + ActionDispatcher.message(cause));
              });
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(ActionResult.failed(1, ActionDispatcher.message(e)));
    }
  }
}
