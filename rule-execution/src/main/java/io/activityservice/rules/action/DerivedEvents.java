package io.activityservice.rules.action;

import io.activityservice.events.derive.DerivedEventEmitter;
import io.activityservice.rules.Event;
import io.activityservice.rules.EventAccess;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.jackson.JsonCloudEventData;
import java.net.URI;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * Builds the events {@code publish} and {@code send} emit, with the loop guard: {@code hopcount} =
 * the triggering event's + 1; beyond {@code maxHops} the event is dead-lettered instead of emitted.
 */
final class DerivedEvents {

  private final DerivedEventEmitter emitter;
  private final int maxHops;

  DerivedEvents(DerivedEventEmitter emitter, int maxHops) {
    this.emitter = emitter;
    this.maxHops = maxHops;
  }

  /**
   * The event to emit: {@code event} (an Event, forwarded) or one built from {@code type} (required),
   * {@code source} (default {@code /rules/<rule>}), {@code subject}, {@code id} and {@code data}.
   */
  CloudEvent build(Map<String, Object> params, ActionContext ctx, String handler) {
    int hops = (ctx.event() == null ? 0 : ctx.event().hopCount()) + 1;
    Object given = params.get("event");
    if (given instanceof Event e && !params.containsKey("type")) {
      CloudEvent forwarded = EventAccess.cloudEvent(e);
      CloudEventBuilder copy = CloudEventBuilder.from(forwarded).withExtension(Event.HOP_COUNT, hops);
      if (forwarded.getData() instanceof JsonCloudEventData json) {
        // a copy: the derived event must not share a tree with the routed event subscribers receive
        copy.withData(forwarded.getDataContentType(), forwarded.getDataSchema(),
            JsonCloudEventData.wrap(json.getNode().deepCopy()));
      }
      return copy.build();
    }
    String type = Params.required(params, "type", handler, "Map.of(\"type\", \"com.example.order\", \"data\", Map.of(...))");
    String source = Params.optional(params, "source");
    String id = Params.optional(params, "id");
    CloudEventBuilder b = CloudEventBuilder.v1()
        .withId(id == null ? UUID.randomUUID().toString() : id)
        .withSource(URI.create(source == null ? "/rules/" + ctx.rule() : source))
        .withType(type)
        .withExtension(Event.HOP_COUNT, hops);
    String subject = Params.optional(params, "subject");
    if (subject != null) {
      b.withSubject(subject);
    }
    if (params.containsKey("data")) {
      b.withData("application/json", JsonCloudEventData.wrap(Params.json(params.get("data"))));
    }
    return b.build();
  }

  /** Null when the event may be emitted; else a future that dead-letters it and fails the action. */
  CompletableFuture<ActionResult> guard(CloudEvent event, ActionContext ctx, String handler) {
    CompletableFuture<Void> stopped = emitter.guard(event, producer(ctx, handler));
    return stopped == null ? null : stopped.handle((ok, error) -> ActionResult.failed(1, ActionDispatcher.message(
        error instanceof java.util.concurrent.CompletionException && error.getCause() != null ? error.getCause()
            : error)));
  }

  /** The emitter's view of a rule action. */
  DerivedEventEmitter.Producer producer(ActionContext ctx, String handler) {
    return new DerivedEventEmitter.Producer("rule:" + ctx.rule() + "/" + handler, maxHops, "activity.rules.max-hops");
  }

  DerivedEventEmitter emitter() {
    return emitter;
  }
}
