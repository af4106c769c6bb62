package io.activityservice.app.archive;

import io.activityservice.events.archive.Archive;
import io.activityservice.events.archive.ArchiveService;
import io.activityservice.events.archive.ArchivedEvent;
import io.activityservice.events.archive.ArchivedEventStore;
import io.activityservice.events.json.Json;
import io.activityservice.events.problem.InvalidInputException;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** Archives: {@code /api/v1/archives}, and looking back at what they hold. */
@RestController
@RequestMapping("/api/v1/archives")
class ArchiveController {

  /**
   * What a client posts.
   *
   * @param name unique name
   * @param pattern event pattern (the subscription pattern language); omitted: every event
   * @param retention ISO-8601 duration, e.g. P7D
   */
  record ArchiveRequest(
      @Schema(
              requiredMode = Schema.RequiredMode.REQUIRED,
              pattern = "^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
          String name,
      Object pattern,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED, example = "P7D") String retention) {}

  /**
   * An archive.
   *
   * @param eventCount events it holds
   * @param sizeBytes their size as structured JSON
   */
  record ArchiveView(
      String name,
      Object pattern,
      String retention,
      OffsetDateTime createdAt,
      long eventCount,
      long sizeBytes) {
    static ArchiveView of(Archive a) {
      return new ArchiveView(
          a.name(),
          a.pattern() == null ? null : Json.MAPPER.convertValue(a.pattern(), Object.class),
          a.retention().toString(),
          time(a.createdAt()),
          a.eventCount(),
          a.sizeBytes());
    }
  }

  /**
   * One archived event: when it was archived, and the event itself (structured-mode CloudEvent).
   */
  record ArchivedEventView(OffsetDateTime archivedAt, Object event) {
    static ArchivedEventView of(ArchivedEvent e) {
      return new ArchivedEventView(
          time(e.archivedAt()),
          Json.MAPPER.convertValue(Json.parse(e.json(), "event"), Object.class));
    }
  }

  /** A page; pass {@code nextCursor} as {@code cursor} for the next one (null at the end). */
  record EventPageView(List<ArchivedEventView> items, String nextCursor) {}

  private final ArchiveService archives;

  ArchiveController(ArchiveService archives) {
    this.archives = archives;
  }

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED) // documents the status; the ResponseEntity sets it
  ResponseEntity<ArchiveView> create(@RequestBody ArchiveRequest body) {
    Archive a =
        archives.create(body.name(), Json.tree(body.pattern()), retention(body.retention()));
    return ResponseEntity.created(URI.create("/api/v1/archives/" + a.name()))
        .body(ArchiveView.of(a));
  }

  @GetMapping
  List<ArchiveView> list() {
    return archives.list().stream().map(ArchiveView::of).toList();
  }

  @GetMapping("/{name}")
  ArchiveView get(@PathVariable String name) {
    return ArchiveView.of(archives.get(name));
  }

  @DeleteMapping("/{name}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  void delete(@PathVariable String name) {
    archives.delete(name);
  }

  /** Archived events in event-time order, filtered by type, source and event time [from, to). */
  @GetMapping("/{name}/events")
  EventPageView events(
      @PathVariable String name,
      @RequestParam(required = false) String type,
      @RequestParam(required = false) String source,
      @RequestParam(required = false) String from,
      @RequestParam(required = false) String to,
      @Parameter(
              schema =
                  @Schema(type = "integer", minimum = "1", maximum = "1000", defaultValue = "100"))
          @RequestParam(defaultValue = "100")
          int limit,
      @RequestParam(required = false) String cursor) {
    ArchiveService.EventPage page =
        archives.events(
            name,
            new ArchivedEventStore.Filter(
                blank(type), blank(source), instant("from", from), instant("to", to)),
            cursor,
            limit);
    return new EventPageView(
        page.items().stream().map(ArchivedEventView::of).toList(), page.nextCursor());
  }

  static Duration retention(String text) {
    if (text == null || text.isBlank()) {
      throw new InvalidInputException("retention", "is required: an ISO-8601 duration, e.g. P7D");
    }
    try {
      return Duration.parse(text.trim());
    } catch (DateTimeParseException e) {
      throw new InvalidInputException(
          "retention", "is not an ISO-8601 duration such as P7D or PT12H");
    }
  }

  /** An RFC 3339 time as epoch ms, or null. */
  static Long instant(String field, String text) {
    if (text == null || text.isBlank()) {
      return null;
    }
    try {
      return OffsetDateTime.parse(text.trim()).toInstant().toEpochMilli();
    } catch (DateTimeParseException e) {
      throw new InvalidInputException(field, "must be an RFC 3339 time, e.g. 2026-11-20T00:00:00Z");
    }
  }

  static OffsetDateTime time(Long millis) {
    return millis == null
        ? null
        : OffsetDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC);
  }

  private static String blank(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }
}
