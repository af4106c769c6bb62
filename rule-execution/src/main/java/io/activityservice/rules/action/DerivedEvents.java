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
 * Builds the events {@code publish} and {@code send} emit, with the loop guard ({@code hopcount} =
 * the triggering event's + 1; beyond {@code maxHops} the event is dead-lettered instead of emitted) and the
 * author's scope (an event of a type outside it is dead-lettered instead, with the reason).
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
    String type = plain("type", Params.required(params, "type", handler,
        "Map.of(\"type\", \"com.example.order\", \"data\", Map.of(...))"));
    String source = Params.optional(params, "source");
    String id = plain("id", Params.optional(params, "id"));
    CloudEventBuilder b = CloudEventBuilder.v1()
        .withId(id == null ? UUID.randomUUID().toString() : id)
        .withSource(URI.create(source == null ? "/rules/" + ctx.rule() : source))
        .withType(type)
        .withExtension(Event.HOP_COUNT, hops);
    String subject = plain("subject", Params.optional(params, "subject"));
    if (subject != null) {
      b.withSubject(subject);
    }
    if (params.containsKey("data")) {
      b.withData("application/json", JsonCloudEventData.wrap(Params.json(params.get("data"))));
    }
    return b.build();
  }

  /** An attribute of the derived event: no control characters (they would end up in logs and headers). */
  private static String plain(String name, String value) {
    if (value != null && value.chars().anyMatch(c -> Character.isISOControl(c)
        || Character.getType(c) == Character.FORMAT)) {
      throw new IllegalArgumentException("parameter '" + name + "' may not contain control characters");
    }
    return value;
  }

  /** Refuses an event: dead-letters it with the reason and fails the action. */
  CompletableFuture<ActionResult> refuse(CloudEvent event, ActionContext ctx, String handler, String reason) {
    return failed(emitter.refuse(event, producer(ctx, handler), reason));
  }

  private static CompletableFuture<ActionResult> failed(CompletableFuture<Void> stopped) {
    return stopped.handle((ok, error) -> ActionResult.failed(1, ActionDispatcher.message(error)));
  }

  /** Null when the event may be emitted; else a future that dead-letters it and fails the action. */
  CompletableFuture<ActionResult> guard(CloudEvent event, ActionContext ctx, String handler) {
    CompletableFuture<Void> stopped = emitter.guard(event, producer(ctx, handler));
    return stopped == null ? null : failed(stopped);
  }

  /** The emitter's view of a rule action. */
  DerivedEventEmitter.Producer producer(ActionContext ctx, String handler) {
    return new DerivedEventEmitter.Producer("rule:" + ctx.rule() + "/" + handler, maxHops, "activity.rules.max-hops",
        ctx.authorScope());
  }

  DerivedEventEmitter emitter() {
    return emitter;
  }
}
