package io.activityservice.app.archive;

import io.activityservice.events.archive.Replay;
import io.activityservice.events.archive.ReplayService;
import io.activityservice.events.problem.InvalidInputException;
import io.swagger.v3.oas.annotations.media.ArraySchema;
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
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** Replays of archived events: {@code /api/v1/replays}. */
@RestController
@RequestMapping("/api/v1/replays")
class ReplayController {

  /** Destinations; an omitted list means every one of that kind, an empty list none. */
  record Destinations(
      @ArraySchema(schema = @Schema(pattern = "\\S")) List<String> subscriptions,
      @ArraySchema(schema = @Schema(pattern = "\\S")) List<String> detectors,
      @ArraySchema(schema = @Schema(pattern = "\\S")) List<String> rules) {}

  /**
   * What a client posts.
   *
   * @param from RFC 3339 start of the event-time range (inclusive)
   * @param to RFC 3339 end of the event-time range (exclusive)
   */
  record ReplayRequest(
      @Schema(
              requiredMode = Schema.RequiredMode.REQUIRED,
              pattern = "^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
          String name,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String archive,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED, format = "date-time") String from,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED, format = "date-time") String to,
      Destinations destinations) {}

  /**
   * A replay.
   *
   * @param state RUNNING, COMPLETED, CANCELLED or FAILED
   * @param total events in the range when it started
   * @param replayed events replayed so far
   * @param progress replayed / total, between 0 and 1
   */
  record ReplayView(
      String name,
      String archive,
      OffsetDateTime from,
      OffsetDateTime to,
      Destinations destinations,
      String state,
      long total,
      long replayed,
      double progress,
      String error,
      OffsetDateTime createdAt,
      OffsetDateTime startedAt,
      OffsetDateTime finishedAt) {
    static ReplayView of(Replay r) {
      Replay.Destinations d = r.destinations();
      return new ReplayView(
          r.name(),
          r.archive(),
          ArchiveController.time(r.from()),
          ArchiveController.time(r.to()),
          new Destinations(d.subscriptions(), d.detectors(), d.rules()),
          r.state().name(),
          r.total(),
          r.replayed(),
          r.progress(),
          r.error(),
          ArchiveController.time(r.createdAt()),
          ArchiveController.time(r.startedAt()),
          ArchiveController.time(r.finishedAt()));
    }
  }

  private final ReplayService replays;

  ReplayController(ReplayService replays) {
    this.replays = replays;
  }

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED) // documents the status; the ResponseEntity sets it
  ResponseEntity<ReplayView> create(@RequestBody ReplayRequest body) {
    Destinations d = body.destinations();
    if (d != null) {
      noNulls("destinations.subscriptions", d.subscriptions());
      noNulls("destinations.detectors", d.detectors());
      noNulls("destinations.rules", d.rules());
    }
    Replay r =
        replays.create(
            body.name(),
            body.archive(),
            ArchiveController.instant("from", body.from()),
            ArchiveController.instant("to", body.to()),
            d == null
                ? null
                : new Replay.Destinations(d.subscriptions(), d.detectors(), d.rules()));
    return ResponseEntity.created(URI.create("/api/v1/replays/" + r.name())).body(ReplayView.of(r));
  }

  private static void noNulls(String field, List<String> names) {
    for (int i = 0; names != null && i < names.size(); i++) {
      if (names.get(i) == null || names.get(i).isBlank()) {
        throw new InvalidInputException(field + "[" + i + "]", "must be a name, not null or blank");
      }
    }
  }

  @GetMapping
  List<ReplayView> list() {
    return replays.list().stream().map(ReplayView::of).toList();
  }

  @GetMapping("/{name}")
  ReplayView get(@PathVariable String name) {
    return ReplayView.of(replays.get(name));
  }

  /** Cancels a running replay (a replay that ended stays as it is); answers with its state. */
  @DeleteMapping("/{name}")
  ReplayView cancel(@PathVariable String name) {
    return ReplayView.of(replays.cancel(name));
  }
}
