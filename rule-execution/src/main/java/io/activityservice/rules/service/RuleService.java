package io.activityservice.rules.service;

import io.activityservice.events.cluster.ConfigChanges;
import io.activityservice.events.cluster.PartitionKey;
import io.activityservice.events.cluster.ProcessorRouting;
import io.activityservice.events.definition.Definition;
import io.activityservice.events.definition.DefinitionLifecycle;
import io.activityservice.events.definition.DefinitionRuntime;
import io.activityservice.events.definition.DefinitionStore;
import io.activityservice.events.definition.Placement;
import io.activityservice.events.problem.ConflictException;
import io.activityservice.events.problem.ForbiddenException;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.NotFoundException;
import io.activityservice.events.scope.TypeScope;
import io.activityservice.rules.action.ExecutionRecord;
import io.activityservice.rules.compile.CompiledRule;
import io.activityservice.rules.compile.RuleCompiler;
import io.activityservice.rules.engine.RuleEngine;
import io.activityservice.rules.store.RuleDefinition;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Creates, replaces and deletes rule sets (the module's facade): compiles first (a rule set that
 * the DRL guard refuses or that does not compile is refused, nothing is stored, and the deployed
 * version keeps running), checks it against its author's event-type scope ({@link RuleScopeCheck}),
 * stores it with that scope, then deploys without a restart. {@link #loadAll()} redeploys the
 * stored rule sets at start-up, checked the same way against their stored scope. The lifecycle is
 * the one of every definition ({@link DefinitionLifecycle}).
 */
public class RuleService {

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

  /** The result of a PUT. */
  public record Put(RuleInfo rule, boolean created) {}

  /** Kind of the rule changes in the configuration log, and of rule sets as processors. */
  public static final String KIND = "rules";

  private final DefinitionLifecycle<RuleDefinition, CompiledRule> lifecycle;
  private final RuleEngine engine;
  private final Clock clock;

  /** One node, changes not recorded: a single replica (tests, tools). */
  public RuleService(
      DefinitionStore<RuleDefinition> store,
      RuleCompiler compiler,
      RuleEngine engine,
      Clock clock) {
    this(store, compiler, engine, clock, ConfigChanges.unrecorded(), Placement.local());
  }

  /**
   * @param store the rule table
   * @param changes records each change so that every replica applies it ({@link #reload})
   * @param placement where deployed rule sets get their events from ({@link #placement})
   */
  public RuleService(
      DefinitionStore<RuleDefinition> store,
      RuleCompiler compiler,
      RuleEngine engine,
      Clock clock,
      ConfigChanges changes,
      Placement<RuleDefinition, CompiledRule> placement) {
    this.engine = engine;
    this.clock = clock;
    this.lifecycle =
        new DefinitionLifecycle<>(
            new DefinitionLifecycle.Kind(
                KIND, "rule", "use PUT /api/v1/rules/{name} to replace it"),
            store,
            new Runtime(compiler, engine),
            changes,
            placement);
  }

  /**
   * Where deployed rule sets get their events from: with several replicas ({@code routing} not
   * null), each rule set's internal channel fed with the events of the types it receives; on one
   * node, the router's tap.
   */
  public static Placement<RuleDefinition, CompiledRule> placement(
      ProcessorRouting routing, RuleEngine engine) {
    return Placement.of(
        routing,
        KIND,
        (def, compiled) -> compiled.types().all() ? Set.of() : Set.copyOf(compiled.types().types()),
        engine::submitTo);
  }

  /** Deploys every stored rule set; one that no longer compiles is logged and left undeployed. */
  public void loadAll() {
    lifecycle.loadAll();
  }

  /**
   * Applies a change another replica made: deploys the stored version of a rule set if this replica
   * runs another one (or none), or undeploys a deleted one.
   */
  public void reload(String name) {
    lifecycle.reload(name);
  }

  /**
   * Creates a rule set.
   *
   * @throws InvalidInputException for a bad name or DRL that does not compile (field {@code drl},
   *     with lines)
   * @throws ConflictException if the name is taken
   */
  public RuleInfo create(String name, String drl) {
    return create(name, drl, null, TypeScope.ALL);
  }

  /**
   * Creates a rule set partitioned by a key (see {@link RuleDefinition#partitionBy()}).
   *
   * @throws InvalidInputException for a bad name, partitionBy, or DRL that does not compile
   * @throws ConflictException if the name is taken
   */
  public RuleInfo create(String name, String drl, String partitionBy) {
    return create(name, drl, partitionBy, TypeScope.ALL);
  }

  /**
   * Creates a rule set for an author whose credentials are scoped to {@code authorScope}: it may
   * receive, publish and send only event types of that scope, checked now and again when its
   * actions emit.
   *
   * @param authorScope the author's event types ({@link TypeScope#ALL} for admins and unscoped
   *     callers)
   * @throws InvalidInputException for a bad name, partitionBy, or DRL that does not compile
   * @throws ForbiddenException on field {@code drl} when the rule set reaches beyond the scope
   *     (nothing is stored)
   * @throws ConflictException if the name is taken
   */
  public RuleInfo create(String name, String drl, String partitionBy, TypeScope authorScope) {
    checkName(name);
    PartitionKey.parse(partitionBy);
    OffsetDateTime now = now();
    return info(
        lifecycle.create(
            new RuleDefinition(
                name, drl, 1, now, now, partitionBy, Definition.storedScope(authorScope))));
  }

  /**
   * Replaces a rule set's DRL, or creates it. The previous version runs until the new one compiled.
   */
  public Put put(String name, String drl) {
    return put(name, drl, null, TypeScope.ALL);
  }

  /** Replaces a rule set's DRL and partition key, or creates it. */
  public Put put(String name, String drl, String partitionBy) {
    return put(name, drl, partitionBy, TypeScope.ALL);
  }

  /**
   * Replaces a rule set's DRL and partition key, or creates it, for an author scoped to {@code
   * authorScope} (see {@link #create(String, String, String, TypeScope)}); the new version is
   * stored with that scope.
   */
  public synchronized Put put(String name, String drl, String partitionBy, TypeScope authorScope) {
    checkName(name);
    PartitionKey.parse(partitionBy);
    Optional<RuleDefinition> existing = lifecycle.find(name);
    if (existing.isEmpty()) {
      return new Put(create(name, drl, partitionBy, authorScope), true);
    }
    RuleDefinition old = existing.get();
    RuleDefinition next =
        new RuleDefinition(
            name,
            drl,
            old.version() + 1,
            old.createdAt(),
            now(),
            partitionBy,
            Definition.storedScope(authorScope));
    return new Put(info(lifecycle.replace(next, old.version())), false);
  }

  public List<RuleInfo> list() {
    return lifecycle.findAll().stream().map(this::info).toList();
  }

  /** The rule set with this name, if there is one. */
  public Optional<RuleInfo> find(String name) {
    return lifecycle.find(name).map(this::info);
  }

  /**
   * @throws NotFoundException if there is no such rule set
   */
  public RuleInfo get(String name) {
    return info(lifecycle.get(name));
  }

  /**
   * @throws NotFoundException if there is no such rule set
   */
  public void delete(String name) {
    lifecycle.delete(name);
  }

  /** Recent executions, newest first. @throws NotFoundException if there is no such rule set */
  public List<ExecutionRecord> executions(String name) {
    get(name);
    return engine.executions(name);
  }

  private RuleInfo info(RuleDefinition def) {
    Optional<CompiledRule> deployed = engine.deployed(def.name());
    return new RuleInfo(def, deployed.map(CompiledRule::types).orElse(null), deployed.isPresent());
  }

  private OffsetDateTime now() {
    return OffsetDateTime.now(clock).truncatedTo(ChronoUnit.MICROS);
  }

  private static void checkName(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new InvalidInputException(
          "name",
          "must be 1-128 characters of letters, digits, '.', '_' or '-', "
              + "starting with a letter or digit, e.g. high-readings");
    }
  }

  /**
   * Compiles (the DRL guard first) and checks the author's scope; deploying replaces the running
   * version.
   */
  private record Runtime(RuleCompiler compiler, RuleEngine engine)
      implements DefinitionRuntime<RuleDefinition, CompiledRule> {

    @Override
    public CompiledRule prepare(RuleDefinition def, String compiledForm) {
      CompiledRule compiled = compiler.compile(def.name(), def.drl());
      RuleScopeCheck.check(compiled, def.authorScope());
      return compiled;
    }

    @Override
    public void start(RuleDefinition def, CompiledRule compiled) {
      engine.deploy(compiled.withAuthorScope(def.effectiveScope()));
    }

    @Override
    public void stop(String name) {
      engine.undeploy(name);
    }
  }
}
