package io.activityservice.events.definition;

import io.activityservice.events.cluster.ConfigChanges;
import io.activityservice.events.log.LogSafe;
import io.activityservice.events.problem.ConflictException;
import io.activityservice.events.problem.NotFoundException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one lifecycle of the definitions users deploy into the service, detectors and rule sets
 * alike.
 *
 * <ul>
 *   <li><b>Create, replace</b>: prepared (scope-checked and compiled) before anything is stored, so
 *       a definition that would not run is refused and nothing is stored; stored through {@link
 *       ConfigChanges} so that every replica applies the change ({@link #reload}); then started
 *       here and placed ({@link Placement}). A replacement that fails leaves the running version
 *       running.
 *   <li><b>Delete</b>: removed from the store (recorded likewise), unplaced and stopped.
 *   <li><b>Start-up</b> ({@link #loadAll()}) and <b>changes of other replicas</b> ({@link
 *       #reload}): stored definitions are started from their stored form; one that no longer
 *       compiles (e.g. its input type's schema changed) stays stored, is logged and reported by
 *       {@link #failure(String)}, and is not started.
 * </ul>
 *
 * <p>Changes are serialised per lifecycle (one kind of definition); reads are not.
 *
 * @param <D> the definition
 * @param <C> what the runtime prepares of it
 */
public final class DefinitionLifecycle<D extends Definition, C> {

  private static final Logger log = LoggerFactory.getLogger(DefinitionLifecycle.class);

  /**
   * A kind of definition.
   *
   * @param name its kind in the configuration log and as a processor, e.g. {@code detector}
   * @param noun what users call one, in messages, e.g. {@code rule}
   * @param whenNameTaken what to do when a name is taken, ending the conflict's message, e.g.
   *     {@code delete it first or pick another name}; {@code {name}} in it stands for the name
   */
  public record Kind(String name, String noun, String whenNameTaken) {}

  private final Kind kind;
  private final DefinitionStore<D> store;
  private final DefinitionRuntime<D, C> runtime;
  private final ConfigChanges changes;
  private final Placement<D, C> placement;

  /** The version running here, by name. */
  private final Map<String, Long> running = new ConcurrentHashMap<>();

  /** Why a stored definition does not run here, by name. */
  private final Map<String, String> failures = new ConcurrentHashMap<>();

  /**
   * @param changes records each change so that every replica applies it ({@link #reload})
   * @param placement where running definitions get their events from
   */
  public DefinitionLifecycle(
      Kind kind,
      DefinitionStore<D> store,
      DefinitionRuntime<D, C> runtime,
      ConfigChanges changes,
      Placement<D, C> placement) {
    this.kind = kind;
    this.store = store;
    this.runtime = runtime;
    this.changes = changes;
    this.placement = placement;
  }

  /**
   * Starts every stored definition; failures are logged and reported by {@link #failure(String)}.
   */
  public synchronized void loadAll() {
    for (D d : store.findAll()) {
      startStored(d, null);
    }
  }

  /**
   * Applies a change another replica made: starts the stored version of a definition if this
   * replica runs another one (or none), stops one that was deleted. One already running at the
   * stored version keeps running (and keeps its state).
   */
  public synchronized void reload(String name) {
    Optional<DefinitionStore.Stored<D>> stored = store.findStored(name);
    if (stored.isEmpty()) {
      stop(name);
    } else if (!Long.valueOf(stored.get().definition().version()).equals(running.get(name))) {
      startStored(stored.get().definition(), stored.get().compiledForm());
    }
  }

  private void startStored(D d, String compiledForm) {
    try {
      C prepared = runtime.prepare(d, compiledForm);
      start(d, prepared);
    } catch (RuntimeException e) {
      failures.put(
          d.name(), e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
      log.error(
          "stored {} '{}' could not be started and stays stopped: {}",
          kind.noun(),
          d.name(),
          LogSafe.message(e.getMessage()));
    }
  }

  private void start(D d, C prepared) {
    runtime.start(d, prepared);
    failures.remove(d.name());
    running.put(d.name(), d.version());
    placement.started(d, prepared);
  }

  /**
   * Creates a definition: prepares, stores (recorded for the other replicas) and starts it. The
   * caller has checked the fields the user supplied.
   *
   * @throws ConflictException if the name is taken
   * @throws io.activityservice.events.problem.InvalidInputException if it does not compile
   * @throws io.activityservice.events.problem.ForbiddenException if it reaches beyond its author's
   *     scope
   */
  public synchronized D create(D definition) {
    String name = definition.name();
    if (store.find(name).isPresent()) {
      throw nameTaken(name);
    }
    C prepared = runtime.prepare(definition, null);
    boolean stored = false;
    try {
      String compiledForm = runtime.compiledForm(definition, prepared);
      changes.record(
          kind.name(),
          name,
          () -> {
            if (!store.insert(definition, compiledForm)) {
              throw nameTaken(name);
            }
          });
      stored = true;
    } finally {
      if (!stored) {
        runtime.discard(definition, prepared);
      }
    }
    start(definition, prepared);
    return definition;
  }

  /**
   * Replaces version {@code expectedVersion} of a definition by {@code next}: the running version
   * runs until the new one is prepared and stored.
   *
   * @throws ConflictException if the stored version is no longer {@code expectedVersion}
   * @throws io.activityservice.events.problem.InvalidInputException if it does not compile (nothing
   *     changes)
   * @throws io.activityservice.events.problem.ForbiddenException if it reaches beyond its author's
   *     scope
   */
  public synchronized D replace(D next, long expectedVersion) {
    String name = next.name();
    C prepared = runtime.prepare(next, null);
    boolean stored = false;
    try {
      String compiledForm = runtime.compiledForm(next, prepared);
      changes.record(
          kind.name(),
          name,
          () -> {
            if (!store.update(next, expectedVersion)) {
              throw new ConflictException(
                  "name", kind.noun() + " '" + name + "' changed concurrently; retry");
            }
          });
      stored = true;
    } finally {
      if (!stored) {
        runtime.discard(next, prepared);
      }
    }
    start(next, prepared);
    return next;
  }

  /**
   * Deletes, unplaces and stops a definition.
   *
   * @throws NotFoundException if there is none of that name
   */
  public synchronized void delete(String name) {
    changes.record(
        kind.name(),
        name,
        () -> {
          if (!store.delete(name)) {
            throw new NotFoundException(kind.noun(), name);
          }
        });
    stop(name);
  }

  private void stop(String name) {
    failures.remove(name);
    running.remove(name);
    placement.stopped(name);
    runtime.stop(name);
  }

  /** The stored definition of that name. */
  public Optional<D> find(String name) {
    return store.find(name);
  }

  /**
   * @throws NotFoundException if there is none of that name
   */
  public D get(String name) {
    return store.find(name).orElseThrow(() -> new NotFoundException(kind.noun(), name));
  }

  /** Every stored definition. */
  public List<D> findAll() {
    return store.findAll();
  }

  /** Why a stored definition does not run here, or {@code null}. */
  public String failure(String name) {
    return failures.get(name);
  }

  /** The conflict of a name that is taken. */
  public ConflictException nameTaken(String name) {
    return new ConflictException(
        "name",
        kind.noun()
            + " '"
            + name
            + "' already exists; "
            + kind.whenNameTaken().replace("{name}", name));
  }
}
