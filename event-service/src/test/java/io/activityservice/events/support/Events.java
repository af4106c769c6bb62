package io.activityservice.events.support;

import io.activityservice.events.json.Json;
import io.activityservice.events.model.RoutableEvent;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;

/** Builds CloudEvents with JSON data for tests. */
public final class Events {

  private Events() {}

  public static CloudEventBuilder builder(String type, Map<String, ?> data) {
    CloudEventBuilder b =
        CloudEventBuilder.v1()
            .withId(UUID.randomUUID().toString())
            .withSource(URI.create("/test/meters"))
            .withType(type);
    if (data != null) {
      b.withData("application/json", json(data));
    }
    return b;
  }

  public static CloudEvent event(String type, Map<String, ?> data) {
    return builder(type, data).build();
  }

  public static RoutableEvent routable(String type, Map<String, ?> data) {
    return RoutableEvent.of(event(type, data));
  }

  public static byte[] json(Object value) {
    return Json.write(Json.tree(value)).getBytes(StandardCharsets.UTF_8);
  }
}
