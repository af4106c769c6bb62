package io.activityservice.rules;

import io.activityservice.events.cluster.ConfigChanges;
import io.activityservice.events.cluster.PartitionKey;
import io.activityservice.events.problem.ConflictException;
import io.activityservice.events.problem.ForbiddenException;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.NotFoundException;
import io.activityservice.events.scope.TypeScope;
import io.activityservice.rules.action.ExecutionRecord;
import io.activityservice.rules.compile.CompiledRule;
import io.activityservice.rules.compile.RuleCompiler;
import io.activityservice.rules.engine.RuleEngine;
import io.activityservice.events.log.LogSafe;
import io.activityservice.rules.store.RuleDefinition;
import io.activityservice.rules.store.RuleRepository;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DuplicateKeyException;

/**
 * Creates, replaces and deletes rule sets: compiles first (a rule set that the DRL guard refuses or
 * that does not compile is refused, nothing is stored, and the deployed version keeps running),
 * checks it against its author's event-type scope ({@link RuleScopeCheck}), stores it with that scope,
 * then deploys without a restart. {@link #loadAll()} redeploys the stored rule sets at start-up, checked
 * the same way against their stored scope.
 */
public class RuleService {

  private static final Logger log = LoggerFactory.getLogger(RuleService.class);
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

  /** The result of a PUT. */
  public record Put(RuleInfo rule, boolean created) {
  }

  private final RuleRepository repository;
  private final RuleCompiler compiler;
  private final RuleEngine engine;
  private final Clock clock;
  private final ConfigChanges changes;
  private final Placement placement;
  private final java.util.Map<String, Long> deployedVersions = new java.util.concurrent.ConcurrentHashMap<>();

  /** Kind of the rule changes in the configuration log, and of rule sets as processors. */
  public static final String KIND = "rules";

  /**
   * Where a deployed rule set gets its events from: with several replicas, its internal channel
   * ({@link io.activityservice.events.cluster.ProcessorRouting}); on one node, nothing to do (the router's tap).
   */
  public interface Placement {
    void deployed(RuleDefinition definition, CompiledRule compiled);

    void undeployed(String name);

    /** One node: the router's tap feeds every deployed rule set. */
    Placement LOCAL = new Placement() {
      @Override
      public void deployed(RuleDefinition definition, CompiledRule compiled) {
      }

      @Override
      public void undeployed(String name) {
      }
    };
  }

  public RuleService(RuleRepository repository, RuleCompiler compiler, RuleEngine engine, Clock clock) {
    this(repository, compiler, engine, clock, ConfigChanges.unrecorded(), Placement.LOCAL);
  }

  /**
   * @param changes   records each change so that every replica applies it ({@link #reload})
   * @param placement where deployed rule sets get their events from
   */
  public RuleService(RuleRepository repository, RuleCompiler compiler, RuleEngine engine, Clock clock,
                     ConfigChanges changes, Placement placement) {
    this.repository = repository;
    this.compiler = compiler;
    this.engine = engine;
    this.clock = clock;
    this.changes = changes;
    this.placement = placement;
  }

  /** Deploys every stored rule set; one that no longer compiles is logged and left undeployed. */
  public synchronized void loadAll() {
    for (RuleDefinition r : repository.findAll()) {
      deployStored(r);
    }
  }

  /**
   * Applies a change another replica made: deploys the stored version of a rule set if this replica runs another
   * one (or none), or undeploys a deleted one.
   */
  public synchronized void reload(String name) {
    Optional<RuleDefinition> stored = repository.find(name);
    if (stored.isEmpty()) {
      deployedVersions.remove(name);
      placement.undeployed(name);
      engine.undeploy(name);
    } else if (!Long.valueOf(stored.get().version()).equals(deployedVersions.get(name))) {
      deployStored(stored.get());
    }
  }

  private void deployStored(RuleDefinition r) {
    try {
      CompiledRule compiled = compiler.compile(r.name(), r.drl());
      RuleScopeCheck.check(compiled, r.authorScope());
      deploy(r, compiled);
    } catch (InvalidInputException | ForbiddenException e) {
      log.error("stored rule set '{}' no longer compiles or reaches beyond its author's scope and is not deployed; "
          + "fix it with PUT /api/v1/rules/{}: {}", r.name(), r.name(), LogSafe.message(e.getMessage()));
    }
  }

  private void deploy(RuleDefinition def, CompiledRule compiled) {
    engine.deploy(compiled.withAuthorScope(def.effectiveScope()));
    deployedVersions.put(def.name(), def.version());
    placement.deployed(def, compiled);
  }

  /**
   * Creates a rule set.
   *
   * @throws InvalidInputException for a bad name or DRL that does not compile (field {@code drl}, with lines)
   * @throws ConflictException     if the name is taken
   */
  public synchronized RuleInfo create(String name, String drl) {
    return create(name, drl, null, TypeScope.ALL);
  }

  /**
   * Creates a rule set partitioned by a key (see {@link RuleDefinition#partitionBy()}).
   *
   * @throws InvalidInputException for a bad name, partitionBy, or DRL that does not compile
   * @throws ConflictException     if the name is taken
   */
  public synchronized RuleInfo create(String name, String drl, String partitionBy) {
    return create(name, drl, partitionBy, TypeScope.ALL);
  }

  /**
   * Creates a rule set for an author whose credentials are scoped to {@code authorScope}: it may receive, publish
   * and send only event types of that scope, checked now and again when its actions emit.
   *
   * @param authorScope the author's event types ({@link TypeScope#ALL} for admins and unscoped callers)
   * @throws InvalidInputException for a bad name, partitionBy, or DRL that does not compile
   * @throws ForbiddenException    on field {@code drl} when the rule set reaches beyond the scope (nothing is stored)
   * @throws ConflictException     if the name is taken
   */
  public synchronized RuleInfo create(String name, String drl, String partitionBy, TypeScope authorScope) {
    checkName(name);
    PartitionKey.parse(partitionBy);
    if (repository.find(name).isPresent()) {
      throw new ConflictException("name", "rule '" + name + "' already exists; use PUT /api/v1/rules/" + name
          + " to replace it");
    }
    CompiledRule compiled = compiler.compile(name, drl);
    RuleScopeCheck.check(compiled, authorScope);
    OffsetDateTime now = now();
    RuleDefinition def = new RuleDefinition(name, drl, 1, now, now, partitionBy, stored(authorScope));
    try {
      changes.record(KIND, name, () -> repository.insert(def));
    } catch (DuplicateKeyException e) {
      throw new ConflictException("name", "rule '" + name + "' already exists");
    }
    deploy(def, compiled);
    return info(def);
  }

  /** Replaces a rule set's DRL, or creates it. The previous version runs until the new one compiled. */
  public synchronized Put put(String name, String drl) {
    return put(name, drl, null, TypeScope.ALL);
  }

  /** Replaces a rule set's DRL and partition key, or creates it. */
  public synchronized Put put(String name, String drl, String partitionBy) {
    return put(name, drl, partitionBy, TypeScope.ALL);
  }

  /**
   * Replaces a rule set's DRL and partition key, or creates it, for an author scoped to {@code authorScope} (see
   * {@link #create(String, String, String, TypeScope)}); the new version is stored with that scope.
   */
  public synchronized Put put(String name, String drl, String partitionBy, TypeScope authorScope) {
    checkName(name);
    PartitionKey.parse(partitionBy);
    Optional<RuleDefinition> existing = repository.find(name);
    if (existing.isEmpty()) {
      return new Put(create(name, drl, partitionBy, authorScope), true);
    }
    RuleDefinition old = existing.get();
    CompiledRule compiled = compiler.compile(name, drl);
    RuleScopeCheck.check(compiled, authorScope);
    RuleDefinition def = new RuleDefinition(name, drl, old.version() + 1, old.createdAt(), now(), partitionBy,
        stored(authorScope));
    changes.record(KIND, name, () -> {
      if (!repository.update(def, old.version())) {
        throw new ConflictException("name", "rule '" + name + "' changed concurrently; retry");
      }
    });
    deploy(def, compiled);
    return new Put(info(def), false);
  }

  public List<RuleInfo> list() {
    return repository.findAll().stream().map(this::info).toList();
  }

  /** The rule set with this name, if there is one. */
  public java.util.Optional<RuleInfo> find(String name) {
    return repository.find(name).map(this::info);
  }

  /** @throws NotFoundException if there is no such rule set */
  public RuleInfo get(String name) {
    return repository.find(name).map(this::info).orElseThrow(() -> new NotFoundException("rule", name));
  }

  /** @throws NotFoundException if there is no such rule set */
  public synchronized void delete(String name) {
    changes.record(KIND, name, () -> {
      if (!repository.delete(name)) {
        throw new NotFoundException("rule", name);
      }
    });
    deployedVersions.remove(name);
    placement.undeployed(name);
    engine.undeploy(name);
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

  /** What is stored for a scope: null for unscoped authors (as for rule sets stored before scopes were). */
  private static TypeScope stored(TypeScope authorScope) {
    return authorScope == null || authorScope.isAll() ? null : authorScope;
  }

  private OffsetDateTime now() {
    return OffsetDateTime.now(clock).truncatedTo(ChronoUnit.MICROS);
  }

  private static void checkName(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new InvalidInputException("name", "must be 1-128 characters of letters, digits, '.', '_' or '-', "
          + "starting with a letter or digit, e.g. high-readings");
    }
  }
}
