package io.activityservice.rules;

import io.activityservice.events.problem.ConflictException;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.NotFoundException;
import io.activityservice.rules.action.ExecutionRecord;
import io.activityservice.rules.compile.CompiledRule;
import io.activityservice.rules.compile.RuleCompiler;
import io.activityservice.rules.engine.RuleEngine;
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
 * stores, then deploys without a restart.
 * {@link #loadAll()} redeploys the stored rule sets at start-up.
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

  public RuleService(RuleRepository repository, RuleCompiler compiler, RuleEngine engine, Clock clock) {
    this.repository = repository;
    this.compiler = compiler;
    this.engine = engine;
    this.clock = clock;
  }

  /** Deploys every stored rule set; one that no longer compiles is logged and left undeployed. */
  public synchronized void loadAll() {
    for (RuleDefinition r : repository.findAll()) {
      try {
        engine.deploy(compiler.compile(r.name(), r.drl()));
      } catch (InvalidInputException e) {
        log.error("stored rule set '{}' no longer compiles and is not deployed; fix it with PUT /api/v1/rules/{}: {}",
            r.name(), r.name(), e.getMessage());
      }
    }
  }

  /**
   * Creates a rule set.
   *
   * @throws InvalidInputException for a bad name or DRL that does not compile (field {@code drl}, with lines)
   * @throws ConflictException     if the name is taken
   */
  public synchronized RuleInfo create(String name, String drl) {
    checkName(name);
    if (repository.find(name).isPresent()) {
      throw new ConflictException("name", "rule '" + name + "' already exists; use PUT /api/v1/rules/" + name
          + " to replace it");
    }
    CompiledRule compiled = compiler.compile(name, drl);
    OffsetDateTime now = now();
    RuleDefinition def = new RuleDefinition(name, drl, 1, now, now);
    try {
      repository.insert(def);
    } catch (DuplicateKeyException e) {
      throw new ConflictException("name", "rule '" + name + "' already exists");
    }
    engine.deploy(compiled);
    return info(def);
  }

  /** Replaces a rule set's DRL, or creates it. The previous version runs until the new one compiled. */
  public synchronized Put put(String name, String drl) {
    checkName(name);
    Optional<RuleDefinition> existing = repository.find(name);
    if (existing.isEmpty()) {
      return new Put(create(name, drl), true);
    }
    RuleDefinition old = existing.get();
    CompiledRule compiled = compiler.compile(name, drl);
    RuleDefinition def = new RuleDefinition(name, drl, old.version() + 1, old.createdAt(), now());
    if (!repository.update(def, old.version())) {
      throw new ConflictException("name", "rule '" + name + "' changed concurrently; retry");
    }
    engine.deploy(compiled);
    return new Put(info(def), false);
  }

  public List<RuleInfo> list() {
    return repository.findAll().stream().map(this::info).toList();
  }

  /** @throws NotFoundException if there is no such rule set */
  public RuleInfo get(String name) {
    return repository.find(name).map(this::info).orElseThrow(() -> new NotFoundException("rule", name));
  }

  /** @throws NotFoundException if there is no such rule set */
  public synchronized void delete(String name) {
    if (!repository.delete(name)) {
      throw new NotFoundException("rule", name);
    }
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
