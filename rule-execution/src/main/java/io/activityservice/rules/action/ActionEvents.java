package io.activityservice.rules.action;

import io.activityservice.events.definition.DerivedEvents;
import io.activityservice.events.derive.DerivedEventEmitter;
import io.activityservice.events.tracing.EventTracing;
import io.activityservice.rules.Event;
import io.activityservice.rules.EventAccess;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.jackson.JsonCloudEventData;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * Builds the events {@code publish} and {@code send} emit from an action's parameters, and hands
 * them to the shared {@link DerivedEvents} (origin {@code rule:<rule set>/<handler>}) with the loop
 * guard ({@code hopcount} = the triggering event's + 1; beyond {@code activity.rules.max-hops} the
 * event is dead-lettered instead of emitted) and the author's scope (an event of a type outside it
 * is dead-lettered instead, with the reason).
 */
final class ActionEvents {

  private final DerivedEvents derived;

  ActionEvents(DerivedEventEmitter emitter, int maxHops) {
    this.derived = new DerivedEvents(emitter, "rule:", maxHops, "activity.rules.max-hops");
  }

  /**
   * The event to emit: {@code event} (an Event, forwarded) or one built from {@code type}
   * (required), {@code source} (default {@code /rules/<rule>}), {@code subject}, {@code id} and
   * {@code data}.
   */
  CloudEvent build(Map<String, Object> params, ActionContext ctx, String handler) {
    int inputHops = ctx.event() == null ? 0 : ctx.event().hopCount();
    Object given = params.get("event");
    if (given instanceof Event e && !params.containsKey("type")) {
      CloudEvent forwarded = EventAccess.cloudEvent(e);
      CloudEventBuilder copy = DerivedEvents.stamp(CloudEventBuilder.from(forwarded), inputHops);
      if (forwarded.getData() instanceof JsonCloudEventData json) {
        // a copy: the derived event must not share a tree with the routed event subscribers receive
        copy.withData(
            forwarded.getDataContentType(),
            forwarded.getDataSchema(),
            JsonCloudEventData.wrap(json.getNode().deepCopy()));
      }
      return copy.build();
    }
    String type =
        plain(
            "type",
            Params.required(
                params,
                "type",
                handler,
                "Map.of(\"type\", \"com.example.order\", \"data\", Map.of(...))"));
    String source = Params.optional(params, "source");
    String id = plain("id", Params.optional(params, "id"));
    CloudEventBuilder b =
        DerivedEvents.stamp(
            CloudEventBuilder.v1()
                .withId(id == null ? UUID.randomUUID().toString() : id)
                .withSource(URI.create(source == null ? "/rules/" + ctx.rule() : source))
                .withType(type),
            inputHops);
    String subject = plain("subject", Params.optional(params, "subject"));
    if (subject != null) {
      b.withSubject(subject);
    }
    if (params.containsKey("data")) {
      b.withData("application/json", JsonCloudEventData.wrap(Params.json(params.get("data"))));
    }
    return b.build();
  }

  /**
   * An attribute of the derived event: no control characters (they would end up in logs and
   * headers).
   */
  private static String plain(String name, String value) {
    if (value != null
        && value
            .chars()
            .anyMatch(c -> Character.isISOControl(c) || Character.getType(c) == Character.FORMAT)) {
      throw new IllegalArgumentException(
          "parameter '" + name + "' may not contain control characters");
    }
    return value;
  }

  /** Refuses an event: dead-letters it with the reason and fails the action. */
  CompletableFuture<ActionResult> refuse(
      CloudEvent event, ActionContext ctx, String handler, String reason) {
    return failed(derived.refuse(event, origin(ctx, handler), ctx.authorScope(), reason));
  }

  private static CompletableFuture<ActionResult> failed(CompletableFuture<Void> stopped) {
    return stopped.handle((ok, error) -> ActionResult.failed(1, ActionDispatcher.message(error)));
  }

  /**
   * Null when the event may be emitted; else a future that dead-letters it and fails the action.
   */
  CompletableFuture<ActionResult> guard(CloudEvent event, ActionContext ctx, String handler) {
    CompletableFuture<Void> stopped = derived.guard(event, origin(ctx, handler), ctx.authorScope());
    return stopped == null ? null : failed(stopped);
  }

  /**
   * Guards, ingests and routes an event; fails with {@link DerivedEventEmitter.NotEmitted} if
   * dead-lettered.
   */
  CompletableFuture<?> emit(CloudEvent event, ActionContext ctx, String handler) {
    return derived.emit(event, origin(ctx, handler), ctx.authorScope(), causes(ctx));
  }

  /**
   * The trace context of the event that fired the rule, which the derived event's span links to.
   */
  private static List<String> causes(ActionContext ctx) {
    if (ctx.event() == null) {
      return List.of();
    }
    Object traceparent = EventAccess.cloudEvent(ctx.event()).getExtension(EventTracing.TRACEPARENT);
    return traceparent == null ? List.of() : List.of(traceparent.toString());
  }

  /**
   * Who emits: the rule set and the handler, e.g. {@code shedding/publish} ({@code
   * rule:shedding/publish}).
   */
  private static String origin(ActionContext ctx, String handler) {
    return ctx.rule() + "/" + handler;
  }
}
