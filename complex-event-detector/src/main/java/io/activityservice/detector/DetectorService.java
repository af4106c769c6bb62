package io.activityservice.detector;

import io.activityservice.events.log.LogSafe;
import io.activityservice.events.cluster.ConfigChanges;
import io.activityservice.events.problem.ConflictException;
import io.activityservice.events.problem.ForbiddenException;
import io.activityservice.events.problem.NotFoundException;
import io.activityservice.events.scope.TypeScope;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates, lists and deletes detectors: validates, compiles and deploys before storing, so a detector
 * that does not compile is neither deployed nor stored. Stored detectors are redeployed by
 * {@link #loadAll()} at start-up; one that no longer compiles (e.g. its input type's schema changed) is
 * kept, reported with its error and not deployed.
 */
public class DetectorService {

  private static final Logger log = LoggerFactory.getLogger(DetectorService.class);

  /** A stored detector and whether it runs. */
  public record Status(DetectorDefinition definition, String state, String error, DetectorStats stats) {
  }

  private final DetectorRepository repository;
  private final DetectorEngine engine;
  private final Clock clock;
  private final Map<String, String> failures = new ConcurrentHashMap<>();
  private final ConfigChanges changes;
  private final Placement placement;

  /** Kind of the detector changes in the configuration log, and of detectors as processors. */
  public static final String KIND = "detector";

  /**
   * Where a deployed detector gets its events from: with several replicas, its internal channel
   * ({@link io.activityservice.events.cluster.ProcessorRouting}); on one node, nothing to do (the router's tap).
   */
  public interface Placement {
    void deployed(DetectorDefinition detector);

    void undeployed(String name);

    /** One node: the router's tap feeds every deployed detector. */
    Placement LOCAL = new Placement() {
      @Override
      public void deployed(DetectorDefinition detector) {
      }

      @Override
      public void undeployed(String name) {
      }
    };
  }

  public DetectorService(DetectorRepository repository, DetectorEngine engine, Clock clock) {
    this(repository, engine, clock, ConfigChanges.unrecorded(), Placement.LOCAL);
  }

  /**
   * @param changes   records each change so that every replica applies it ({@link #reload})
   * @param placement where deployed detectors get their events from
   */
  public DetectorService(DetectorRepository repository, DetectorEngine engine, Clock clock, ConfigChanges changes,
                         Placement placement) {
    this.repository = repository;
    this.engine = engine;
    this.clock = clock;
    this.changes = changes;
    this.placement = placement;
  }

  /** Deploys every stored detector; failures are logged and reported by {@link #get(String)}. */
  public void loadAll() {
    for (DetectorDefinition d : repository.findAll()) {
      deployStored(d);
    }
  }

  /**
   * Applies a change another replica made: deploys a stored detector that is not deployed here, or undeploys one
   * that was deleted. Detectors are immutable, so one already deployed stays as it is (and keeps its state).
   */
  public synchronized void reload(String name) {
    java.util.Optional<DetectorRepository.Stored> stored = repository.findWithCompiledForm(name);
    if (stored.isEmpty()) {
      failures.remove(name);
      placement.undeployed(name);
      engine.undeploy(name);
    } else if (engine.stats(name) == null) {
      failures.remove(name);
      // The creating replica compiled it: start it from that form rather than compile again.
      deployStored(stored.get().definition(), stored.get().compiledForm());
    }
  }

  private void deployStored(DetectorDefinition d) {
    deployStored(d, null);
  }

  private void deployStored(DetectorDefinition d, String compiledForm) {
    try {
      checkScope(d);
      engine.deploy(d, compiledForm);
      placement.deployed(d);
    } catch (RuntimeException e) {
      failures.put(d.name(), e.getMessage());
      log.error("stored detector '{}' could not be deployed and stays stopped: {}", d.name(),
          LogSafe.message(e.getMessage()));
    }
  }

  /**
   * Creates and deploys a detector.
   *
   * @throws io.activityservice.events.problem.InvalidInputException for invalid fields or EPL that does not compile
   * @throws ConflictException                                      if the name is taken
   */
  public synchronized DetectorDefinition create(String name, Map<String, String> inputs, String epl, String emits,
                                                ClockMode clockMode) {
    return create(name, inputs, epl, emits, clockMode, null);
  }

  /**
   * Creates and deploys a detector partitioned by a key (see {@link DetectorDefinition#partitionBy()}).
   *
   * @throws io.activityservice.events.problem.InvalidInputException for invalid fields or EPL that does not compile
   * @throws ConflictException                                      if the name is taken
   */
  public synchronized DetectorDefinition create(String name, Map<String, String> inputs, String epl, String emits,
                                                ClockMode clockMode, String partitionBy) {
    return create(name, inputs, epl, emits, clockMode, partitionBy, TypeScope.ALL);
  }

  /**
   * Creates and deploys a detector for an author whose credentials are scoped to {@code authorScope}: its inputs and
   * {@code emits} must lie in that scope (checked now, before anything is compiled), and every derived event is
   * checked against it again when it is emitted.
   *
   * @param authorScope the author's event types ({@link TypeScope#ALL} for admins and unscoped callers)
   * @throws io.activityservice.events.problem.InvalidInputException for invalid fields or EPL that does not compile
   * @throws ForbiddenException naming {@code emits} or {@code inputs.<alias>} for a type outside the scope
   * @throws ConflictException                                      if the name is taken
   */
  public synchronized DetectorDefinition create(String name, Map<String, String> inputs, String epl, String emits,
                                                ClockMode clockMode, String partitionBy, TypeScope authorScope) {
    DetectorDefinition d = new DetectorDefinition(name, inputs, epl, emits, clockMode, OffsetDateTime.now(clock),
        partitionBy, authorScope == null || authorScope.isAll() ? null : authorScope).validate();
    checkScope(d);
    if (repository.find(name).isPresent()) {
      throw conflict(name);
    }
    engine.deploy(d);
    boolean stored = false;
    try {
      String compiledForm = engine.compiledForm(name);
      changes.record(KIND, name, () -> {
        if (!repository.insert(d, compiledForm)) {
          throw conflict(name);
        }
      });
      stored = true;
    } finally {
      if (!stored) {
        engine.undeploy(name);
      }
    }
    placement.deployed(d);
    return d;
  }

  public List<Status> list() {
    return repository.findAll().stream().map(this::status).toList();
  }

  public Status get(String name) {
    return repository.find(name).map(this::status).orElseThrow(() -> new NotFoundException("detector", name));
  }

  /** Undeploys and deletes. */
  public synchronized void delete(String name) {
    changes.record(KIND, name, () -> {
      if (!repository.delete(name)) {
        throw new NotFoundException("detector", name);
      }
    });
    failures.remove(name);
    placement.undeployed(name);
    engine.undeploy(name);
  }

  private Status status(DetectorDefinition d) {
    String error = failures.get(d.name());
    DetectorStats stats = engine.stats(d.name());
    return new Status(d, error != null ? "failed" : stats != null ? "deployed" : "stopped", error, stats);
  }

  /**
   * A scoped author's detector consumes and emits only types of its scope.
   *
   * @throws ForbiddenException naming {@code emits} or {@code inputs.<alias>}
   */
  private static void checkScope(DetectorDefinition d) {
    TypeScope scope = d.effectiveScope();
    if (scope.isAll()) {
      return;
    }
    if (!scope.allows(d.emits())) {
      throw new ForbiddenException("emits", "type " + d.emits() + " is outside the event types your credentials may "
          + "use (" + scope + "): a detector may emit only those");
    }
    d.inputs().forEach((alias, type) -> {
      if (!scope.allows(type)) {
        throw new ForbiddenException("inputs." + alias, "type " + type + " is outside the event types your "
            + "credentials may use (" + scope + "): a detector may read only those");
      }
    });
  }

  private static ConflictException conflict(String name) {
    return new ConflictException("name", "detector '" + name + "' already exists; delete it first or pick another name");
  }
}
