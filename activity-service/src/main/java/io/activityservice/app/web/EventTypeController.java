package io.activityservice.app.web;

import io.activityservice.app.security.Caller;
import io.activityservice.app.security.Callers;
import io.activityservice.events.json.Json;
import io.activityservice.events.problem.ForbiddenException;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.registry.EventRegistry;
import io.activityservice.events.registry.EventType;
import io.swagger.v3.oas.annotations.media.Schema;
import java.net.URI;
import java.time.OffsetDateTime;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** The event registry: {@code /api/v1/event-types}. */
@RestController
@RequestMapping("/api/v1/event-types")
class EventTypeController {

  /** Request body: {@code schema} is any JSON Schema (2020-12 by default). */
  record EventTypeRequest(
      @Schema(pattern = "^[^\\s\\p{Cntrl}]{1,255}$") String type,
      String description,
      String owner,
      Object schema) {}

  record EventTypeView(
      String type,
      String description,
      String owner,
      Object schema,
      long version,
      OffsetDateTime createdAt,
      OffsetDateTime updatedAt) {
    static EventTypeView of(EventType t) {
      return new EventTypeView(
          t.type(),
          t.description(),
          t.owner(),
          JsonViews.plain(t.schema()),
          t.version(),
          t.createdAt(),
          t.updatedAt());
    }
  }

  private final EventRegistry registry;

  EventTypeController(EventRegistry registry) {
    this.registry = registry;
  }

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED) // documents the status; the ResponseEntity sets it
  ResponseEntity<EventTypeView> create(@RequestBody EventTypeRequest body) {
    requireDefinable(body.type(), "type");
    EventType t =
        registry.create(body.type(), body.description(), body.owner(), Json.tree(body.schema()));
    return ResponseEntity.created(URI.create("/api/v1/event-types/" + t.type()))
        .body(EventTypeView.of(t));
  }

  @GetMapping
  List<EventTypeView> list(@RequestParam(name = "q", required = false) String q) {
    return registry.list(q).stream().map(EventTypeView::of).toList();
  }

  @GetMapping("/{type}")
  EventTypeView get(@PathVariable String type) {
    return EventTypeView.of(registry.get(type));
  }

  /** Updates the type, or registers it if it does not exist yet. */
  @PutMapping("/{type}")
  ResponseEntity<EventTypeView> put(@PathVariable String type, @RequestBody EventTypeRequest body) {
    requireDefinable(type, "type");
    if (body.type() != null && !body.type().equals(type)) {
      throw new InvalidInputException(
          "type", "must equal the type in the path ('" + type + "') or be omitted");
    }
    if (registry.find(type).isEmpty()) {
      EventType created =
          registry.create(type, body.description(), body.owner(), Json.tree(body.schema()));
      return ResponseEntity.status(HttpStatus.CREATED).body(EventTypeView.of(created));
    }
    return ResponseEntity.ok(
        EventTypeView.of(
            registry.update(type, body.description(), body.owner(), Json.tree(body.schema()))));
  }

  @DeleteMapping("/{type}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  void delete(@PathVariable String type) {
    requireDefinable(type, "type");
    registry.delete(type);
  }

  /**
   * Authors create, change and delete only event types of their scope ({@code eventTypes} of the
   * key or token; admins every type). Checked before anything is read or validated, so the answer
   * does not tell whether a type outside the scope exists. The {@code owner} field is a label (a
   * team to contact), not an identity: the scope decides, and the audit log records who changed
   * what.
   */
  private static void requireDefinable(String type, String field) {
    Caller caller = Callers.current();
    if (type != null && !caller.scope().allows(type)) {
      throw new ForbiddenException(
          field,
          "your "
              + caller.credential()
              + " may define only event types "
              + caller.scope()
              + ", not "
              + type);
    }
  }
}
