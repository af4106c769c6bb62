package io.activityservice.detector;

import io.activityservice.events.cluster.ConfigChanges;
import io.activityservice.events.definition.Definition;
import io.activityservice.events.definition.DefinitionLifecycle;
import io.activityservice.events.definition.DefinitionRuntime;
import io.activityservice.events.definition.DefinitionStore;
import io.activityservice.events.definition.Placement;
import io.activityservice.events.problem.ConflictException;
import io.activityservice.events.problem.ForbiddenException;
import io.activityservice.events.scope.TypeScope;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;

/**
 * Creates, lists and deletes detectors (the module's facade): validates, compiles and deploys
 * before storing, so a detector that does not compile is neither deployed nor stored. Stored
 * detectors are redeployed by {@link #loadAll()} at start-up; one that no longer compiles (e.g. its
 * input type's schema changed) is kept, reported with its error and not deployed. The lifecycle is
 * the one of every definition ({@link DefinitionLifecycle}); detectors are immutable (delete and
 * create again to change one).
 */
public class DetectorService {

  /** A stored detector and whether it runs. */
  public record Status(
      DetectorDefinition definition, String state, String error, DetectorStats stats) {}

  /** Kind of the detector changes in the configuration log, and of detectors as processors. */
  public static final String KIND = "detector";

  private static final DefinitionLifecycle.Kind LIFECYCLE_KIND =
      new DefinitionLifecycle.Kind(KIND, "detector", "delete it first or pick another name");

  private final DefinitionLifecycle<DetectorDefinition, String> lifecycle;
  private final DetectorEngine engine;
  private final Clock clock;

  /** One node, changes not recorded: a single replica (tests, tools). */
  public DetectorService(
      DefinitionStore<DetectorDefinition> store, DetectorEngine engine, Clock clock) {
    this(store, engine, clock, ConfigChanges.unrecorded(), Placement.local());
  }

  /**
   * @param store the detector table
   * @param changes records each change so that every replica applies it ({@link #reload})
   * @param placement where deployed detectors get their events from ({@link #placement})
   */
  public DetectorService(
      DefinitionStore<DetectorDefinition> store,
      DetectorEngine engine,
      Clock clock,
      ConfigChanges changes,
      Placement<DetectorDefinition, String> placement) {
    this.engine = engine;
    this.clock = clock;
    this.lifecycle =
        new DefinitionLifecycle<>(LIFECYCLE_KIND, store, new Runtime(engine), changes, placement);
  }

  /**
   * Where deployed detectors get their events from: with several replicas ({@code routing} not
   * null), each detector's internal channel fed with the events of its input types; on one node,
   * the router's tap.
   */
  public static Placement<DetectorDefinition, String> placement(
      io.activityservice.events.cluster.ProcessorRouting routing, DetectorEngine engine) {
    return Placement.of(
        routing, KIND, (d, form) -> java.util.Set.copyOf(d.inputs().values()), engine::submitTo);
  }

  /** Deploys every stored detector; failures are logged and reported by {@link #get(String)}. */
  public void loadAll() {
    lifecycle.loadAll();
  }

  /**
   * Applies a change another replica made: deploys a stored detector that is not deployed here
   * (from the compiled form the creating replica stored), or undeploys one that was deleted.
   * Detectors are immutable, so one already deployed stays as it is (and keeps its state).
   */
  public void reload(String name) {
    lifecycle.reload(name);
  }

  /**
   * Creates and deploys a detector.
   *
   * @throws io.activityservice.events.problem.InvalidInputException for invalid fields or EPL that
   *     does not compile
   * @throws ConflictException if the name is taken
   */
  public DetectorDefinition create(
      String name, Map<String, String> inputs, String epl, String emits, ClockMode clockMode) {
    return create(name, inputs, epl, emits, clockMode, null);
  }

  /**
   * Creates and deploys a detector partitioned by a key (see {@link
   * DetectorDefinition#partitionBy()}).
   *
   * @throws io.activityservice.events.problem.InvalidInputException for invalid fields or EPL that
   *     does not compile
   * @throws ConflictException if the name is taken
   */
  public DetectorDefinition create(
      String name,
      Map<String, String> inputs,
      String epl,
      String emits,
      ClockMode clockMode,
      String partitionBy) {
    return create(name, inputs, epl, emits, clockMode, partitionBy, TypeScope.ALL);
  }

  /**
   * Creates and deploys a detector for an author whose credentials are scoped to {@code
   * authorScope}: its inputs and {@code emits} must lie in that scope (checked now, before anything
   * is compiled), and every derived event is checked against it again when it is emitted.
   *
   * @param authorScope the author's event types ({@link TypeScope#ALL} for admins and unscoped
   *     callers)
   * @throws io.activityservice.events.problem.InvalidInputException for invalid fields or EPL that
   *     does not compile
   * @throws ForbiddenException naming {@code emits} or {@code inputs.<alias>} for a type outside
   *     the scope
   * @throws ConflictException if the name is taken
   */
  public DetectorDefinition create(
      String name,
      Map<String, String> inputs,
      String epl,
      String emits,
      ClockMode clockMode,
      String partitionBy,
      TypeScope authorScope) {
    DetectorDefinition d =
        new DetectorDefinition(
                name,
                inputs,
                epl,
                emits,
                clockMode,
                OffsetDateTime.now(clock),
                partitionBy,
                Definition.storedScope(authorScope))
            .validate();
    checkScope(d);
    return lifecycle.create(d);
  }

  public List<Status> list() {
    return lifecycle.findAll().stream().map(this::status).toList();
  }

  public Status get(String name) {
    return status(lifecycle.get(name));
  }

  /** Undeploys and deletes. */
  public void delete(String name) {
    lifecycle.delete(name);
  }

  private Status status(DetectorDefinition d) {
    String error = lifecycle.failure(d.name());
    DetectorStats stats = engine.stats(d.name());
    return new Status(
        d, error != null ? "failed" : stats != null ? "deployed" : "stopped", error, stats);
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
      throw new ForbiddenException(
          "emits",
          "type "
              + d.emits()
              + " is outside the event types your credentials may "
              + "use ("
              + scope
              + "): a detector may emit only those");
    }
    d.inputs()
        .forEach(
            (alias, type) -> {
              if (!scope.allows(type)) {
                throw new ForbiddenException(
                    "inputs." + alias,
                    "type "
                        + type
                        + " is outside the event types your "
                        + "credentials may use ("
                        + scope
                        + "): a detector may read only those");
              }
            });
  }

  /**
   * The engine as the lifecycle sees it. Esper compiles and deploys in one step, so preparing
   * deploys (and discarding undeploys); what is prepared is the compiled form to store for the
   * other replicas.
   */
  private record Runtime(DetectorEngine engine)
      implements DefinitionRuntime<DetectorDefinition, String> {

    @Override
    public String prepare(DetectorDefinition d, String compiledForm) {
      checkScope(d);
      engine.deploy(d, compiledForm);
      return engine.compiledForm(d.name());
    }

    @Override
    public String compiledForm(DetectorDefinition d, String prepared) {
      return prepared;
    }

    @Override
    public void start(DetectorDefinition d, String prepared) {
      // deployed by prepare
    }

    @Override
    public void discard(DetectorDefinition d, String prepared) {
      engine.undeploy(d.name());
    }

    @Override
    public void stop(String name) {
      engine.undeploy(name);
    }
  }
}
