package io.activityservice.app.cep;

import io.activityservice.app.security.Callers;
import io.activityservice.detector.ClockMode;
import io.activityservice.detector.DetectorDefinition;
import io.activityservice.detector.DetectorService;
import io.activityservice.detector.DetectorStats;
import io.swagger.v3.oas.annotations.media.Schema;
import java.net.URI;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
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

/**
 * Complex event detectors: {@code /api/v1/detectors}. A detector is stored with its author's
 * event-type scope (the caller's, {@code *} for admins): its inputs and {@code emits} must lie in
 * it (403 naming the field otherwise), and every derived event is checked against it again when it
 * is emitted.
 */
@RestController
@RequestMapping("/api/v1/detectors")
class DetectorController {

  /**
   * What a client posts. {@code clock}: {@code processing-time} (default) or {@code event-time};
   * {@code partitionBy}: with several replicas, the key input events are partitioned by (e.g.
   * {@code data.meter}), else one replica owns it.
   */
  record DetectorRequest(
      @Schema(
              requiredMode = Schema.RequiredMode.REQUIRED,
              pattern = "^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
          String name,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) Map<String, String> inputs,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String epl,
      String emits,
      @Schema(allowableValues = {"processing-time", "event-time"}) String clock,
      String partitionBy) {}

  /**
   * A detector with its state ({@code deployed}, {@code failed} + error) and counters; {@code
   * authorScope}: the event types its author may use ({@code ["*"]} for unscoped authors and
   * detectors stored before scopes were).
   */
  record DetectorView(
      String name,
      Map<String, String> inputs,
      String epl,
      String emits,
      String clock,
      String partitionBy,
      OffsetDateTime createdAt,
      String state,
      String error,
      DetectorStats stats,
      List<String> authorScope) {
    static DetectorView of(DetectorService.Status s) {
      DetectorDefinition d = s.definition();
      return new DetectorView(
          d.name(),
          d.inputs(),
          d.epl(),
          d.emits(),
          d.clock().text(),
          d.partitionBy(),
          d.createdAt(),
          s.state(),
          s.error(),
          s.stats(),
          d.effectiveScope().patterns());
    }
  }

  private final DetectorService detectors;

  DetectorController(DetectorService detectors) {
    this.detectors = detectors;
  }

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED) // documents the status; the ResponseEntity sets it
  ResponseEntity<DetectorView> create(@RequestBody DetectorRequest body) {
    DetectorDefinition d =
        detectors.create(
            body.name(),
            body.inputs(),
            body.epl(),
            body.emits(),
            ClockMode.parse(body.clock()),
            body.partitionBy(),
            Callers.current().scope());
    return ResponseEntity.created(URI.create("/api/v1/detectors/" + d.name()))
        .body(DetectorView.of(detectors.get(d.name())));
  }

  @GetMapping
  List<DetectorView> list() {
    return detectors.list().stream().map(DetectorView::of).toList();
  }

  @GetMapping("/{name}")
  DetectorView get(@PathVariable String name) {
    return DetectorView.of(detectors.get(name));
  }

  @DeleteMapping("/{name}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  void delete(@PathVariable String name) {
    Callers.current()
        .scope()
        .requireCovers(
            detectors.get(name).definition().effectiveScope(), "name", "detector " + name);
    detectors.delete(name);
  }
}
