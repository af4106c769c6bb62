package io.activityservice.app.rules;

import io.activityservice.app.security.Callers;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.scope.TypeScope;
import io.activityservice.rules.action.ExecutionRecord;
import io.activityservice.rules.service.RuleInfo;
import io.activityservice.rules.service.RuleService;
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
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Rules: {@code /api/v1/rules}. DRL is compiled on create and update; errors are 400 with the line.
 * A rule set is stored with its author's event-type scope (the caller's, {@code *} for admins):
 * what it receives, publishes and sends must lie in it (403 on {@code drl} naming the line
 * otherwise), and its actions are checked against it again when they emit.
 */
@RestController
@RequestMapping("/api/v1/rules")
class RuleController {

  /**
   * {@code partitionBy}: with several replicas, the key events are partitioned by (e.g. {@code
   * data.meter}).
   */
  record RuleRequest(
      @Schema(pattern = "^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$") String name,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String drl,
      String partitionBy) {}

  /**
   * A rule set as the API shows it.
   *
   * @param types the event types it receives; {@code ["*"]} for every type, empty when not deployed
   * @param authorScope the event types its author may use (what it receives, publishes and sends is
   *     checked against it); {@code ["*"]} for unscoped authors and rule sets stored before scopes
   *     were
   */
  record RuleView(
      String name,
      String drl,
      long version,
      boolean deployed,
      List<String> types,
      OffsetDateTime createdAt,
      OffsetDateTime updatedAt,
      String partitionBy,
      List<String> authorScope) {
    static RuleView of(RuleInfo r) {
      List<String> types =
          r.types() == null
              ? List.of()
              : r.types().all() ? List.of("*") : r.types().types().stream().sorted().toList();
      return new RuleView(
          r.definition().name(),
          r.definition().drl(),
          r.definition().version(),
          r.deployed(),
          types,
          r.definition().createdAt(),
          r.definition().updatedAt(),
          r.definition().partitionBy(),
          r.definition().effectiveScope().patterns());
    }
  }

  private final RuleService rules;

  RuleController(RuleService rules) {
    this.rules = rules;
  }

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED) // documents the status; the ResponseEntity sets it
  ResponseEntity<RuleView> create(@RequestBody RuleRequest body) {
    RuleInfo r =
        rules.create(body.name(), body.drl(), body.partitionBy(), Callers.current().scope());
    return ResponseEntity.created(URI.create("/api/v1/rules/" + r.definition().name()))
        .body(RuleView.of(r));
  }

  @GetMapping
  List<RuleView> list() {
    return rules.list().stream().map(RuleView::of).toList();
  }

  @GetMapping("/{name}")
  RuleView get(@PathVariable String name) {
    return RuleView.of(rules.get(name));
  }

  /**
   * Replaces the DRL (the running version stays if the new one does not compile), or creates the
   * rule set.
   */
  @PutMapping("/{name}")
  ResponseEntity<RuleView> put(@PathVariable String name, @RequestBody RuleRequest body) {
    if (body.name() != null && !body.name().equals(name)) {
      throw new InvalidInputException(
          "name", "must equal the name in the path ('" + name + "') or be omitted");
    }
    TypeScope caller = Callers.current().scope();
    rules
        .find(name)
        .ifPresent(
            r -> caller.requireCovers(r.definition().effectiveScope(), "name", "rule set " + name));
    RuleService.Put put = rules.put(name, body.drl(), body.partitionBy(), caller);
    return ResponseEntity.status(put.created() ? HttpStatus.CREATED : HttpStatus.OK)
        .body(RuleView.of(put.rule()));
  }

  @DeleteMapping("/{name}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  void delete(@PathVariable String name) {
    Callers.current()
        .scope()
        .requireCovers(rules.get(name).definition().effectiveScope(), "name", "rule set " + name);
    rules.delete(name);
  }

  /** Recent action executions of the rule set, newest first. */
  @GetMapping("/{name}/executions")
  List<ExecutionRecord> executions(@PathVariable String name) {
    return rules.executions(name);
  }
}
