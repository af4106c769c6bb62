package io.activityservice.perf.rules;

import io.activityservice.events.json.Json;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.rules.Event;
import io.activityservice.rules.action.ActionContext;
import io.activityservice.rules.action.ActionHandler;
import io.activityservice.rules.action.ActionResult;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.jackson.JsonCloudEventData;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** What the rule measurements share: their events, an action that does nothing, options. */
final class RuleMeasurements {

  private RuleMeasurements() {}

  /**
   * An event with JSON data at the given event time, built as the router hands it to the engine.
   */
  static Event event(String id, String type, long timeMillis, String dataJson) {
    return Event.of(
        RoutableEvent.of(
            CloudEventBuilder.v1()
                .withId(id)
                .withSource(URI.create("/measure"))
                .withType(type)
                .withTime(
                    OffsetDateTime.ofInstant(Instant.ofEpochMilli(timeMillis), ZoneOffset.UTC))
                .withData("application/json", JsonCloudEventData.wrap(Json.parse(dataJson, "data")))
                .build()));
  }

  /** An action that succeeds at once, so the figures contain no action's own work. */
  record NoopAction(String name) implements ActionHandler {
    @Override
    public CompletableFuture<ActionResult> execute(
        Map<String, Object> params, ActionContext context) {
      return CompletableFuture.completedFuture(ActionResult.succeeded(1));
    }
  }

  /**
   * Parks until {@code done} holds; fails after {@code atMost} (a stuck engine must not hang the
   * run).
   */
  static void waitUntil(BooleanSupplier done, Duration atMost) {
    long deadline = System.nanoTime() + atMost.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("not done after " + atMost);
      }
      LockSupport.parkNanos(100_000);
    }
  }
}
