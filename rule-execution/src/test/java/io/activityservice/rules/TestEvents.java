package io.activityservice.rules;

import io.activityservice.events.json.Json;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.rules.action.ActionContext;
import io.activityservice.rules.action.ActionHandler;
import io.activityservice.rules.action.ActionResult;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.jackson.JsonCloudEventData;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/** Test fixtures: events and a recording action handler. */
public final class TestEvents {

  private TestEvents() {}

  public static Event event(String id, String type, long timeMillis, String dataJson) {
    return Event.of(
        RoutableEvent.of(
            CloudEventBuilder.v1()
                .withId(id)
                .withSource(URI.create("/test"))
                .withType(type)
                .withTime(
                    OffsetDateTime.ofInstant(Instant.ofEpochMilli(timeMillis), ZoneOffset.UTC))
                .withData("application/json", JsonCloudEventData.wrap(Json.parse(dataJson, "data")))
                .build()));
  }

  public static String example(String file) {
    try {
      return Files.readString(Path.of("examples", file));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Records what it is asked to do; fails when told to. */
  public static final class Recorder implements ActionHandler {
    public record Call(Map<String, Object> params, ActionContext context) {}

    private final String name;
    public final List<Call> calls = new CopyOnWriteArrayList<>();
    public volatile String failWith;

    public Recorder(String name) {
      this.name = name;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public CompletableFuture<ActionResult> execute(
        Map<String, Object> params, ActionContext context) {
      calls.add(new Call(params, context));
      return CompletableFuture.completedFuture(
          failWith == null ? ActionResult.succeeded(1) : ActionResult.failed(1, failWith));
    }
  }
}
