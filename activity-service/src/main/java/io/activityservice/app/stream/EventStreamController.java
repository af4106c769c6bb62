package io.activityservice.app.stream;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.app.security.Callers;
import io.activityservice.events.json.Json;
import io.activityservice.events.subscription.CompiledPattern;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import java.io.IOException;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/** {@code GET /api/v1/events/stream}: a live tail of routed events as server-sent events. */
@RestController
class EventStreamController {

  private final EventStreamHub hub;
  private final StreamAccess access;

  EventStreamController(EventStreamHub hub, StreamAccess access) {
    this.hub = hub;
    this.access = access;
  }

  @Operation(
      summary = "Live tail of routed events (server-sent events)",
      description =
          """
      Streams every event routed from now on that matches `pattern` (an Event Ruler pattern, as a subscription's) \
      and `filter` (CESQL), limited to the event types the caller may see (a pattern whose `type` matchers reach beyond them is a 403; \
      `pattern` and `filter` are held to the bounds of a subscription's, `activity.patterns.*`, 400 naming the bound). \
      SSE events: `open` \
      (`{"stream", "bufferSize", "idleTimeout", "replica"}`, once), `cloudevent` (the structured-mode CloudEvent), \
      `dropped` (`{"dropped": n}`: events lost so far because the client read too slowly; its buffer holds \
      `activity.console.stream.buffer-size` events), `closed` (`{"reason": "idle", ...}` after \
      `activity.console.stream.idle-timeout` without events), and `:keepalive` comments. At most \
      `activity.console.stream.max-streams` streams are open per replica (503 beyond). In cluster mode a stream \
      shows the events routed by the replica it is connected to.""")
  @GetMapping(path = "/api/v1/events/stream", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
  SseEmitter stream(
      @Parameter(
              description =
                  "Event Ruler pattern as JSON, e.g. {\"type\":[\"com.example.meter.reading\"]}; "
                      + "none: every event")
          @RequestParam(required = false)
          String pattern,
      @Parameter(description = "CESQL filter, e.g. source LIKE '/meters/%'")
          @RequestParam(required = false)
          String filter) {
    JsonNode tree = pattern == null || pattern.isBlank() ? null : Json.parse(pattern, "pattern");
    // The compiled pattern (bounds first, 400): type matchers beyond the caller's scope are a 403;
    // every event is
    // still filtered by its type on the way out.
    Callers.current().scope().requireReadable(CompiledPattern.compile(tree, hub.limits()));
    SseEmitter emitter = new SseEmitter(0L); // no timeout: the hub ends idle streams itself
    hub.open(tree, filter, access.typesVisibleToCaller(), new EmitterSink(emitter));
    return emitter;
  }

  /** Writes a stream to an SSE response. */
  private record EmitterSink(SseEmitter emitter) implements EventStreamHub.Sink {
    @Override
    public void send(String name, String data) throws IOException {
      emitter.send(SseEmitter.event().name(name).data(data, MediaType.TEXT_PLAIN));
    }

    @Override
    public void comment(String text) throws IOException {
      emitter.send(SseEmitter.event().comment(text));
    }

    @Override
    public void complete() {
      emitter.complete();
    }
  }
}
