package io.activityservice.events.definition;

/**
 * How one kind of definition runs on this replica: its engine, seen by the {@link
 * DefinitionLifecycle}.
 *
 * @param <D> the definition
 * @param <C> what {@link #prepare} makes of it (a compiled rule set, a detector's compiled form…)
 */
public interface DefinitionRuntime<D extends Definition, C> {

  /**
   * Checks a definition against its author's scope and compiles it, so that a definition that would
   * not run is neither stored nor started. An engine that cannot compile apart from starting starts
   * it here, and {@link #discard} stops it again.
   *
   * @param compiledForm what {@link #compiledForm} gave on the replica that created it, or {@code
   *     null}
   * @throws io.activityservice.events.problem.InvalidInputException if it does not compile
   * @throws io.activityservice.events.problem.ForbiddenException if it reaches beyond its author's
   *     scope
   */
  C prepare(D definition, String compiledForm);

  /**
   * The form to store with it so that other replicas start it without compiling; {@code null} for
   * none.
   */
  default String compiledForm(D definition, C prepared) {
    return null;
  }

  /**
   * Starts a prepared definition here, replacing the running version of that name if there is one.
   */
  void start(D definition, C prepared);

  /** Undoes {@link #prepare} for a definition that was not stored after all. */
  default void discard(D definition, C prepared) {}

  /** Stops a definition and drops its state; nothing happens if it does not run here. */
  void stop(String name);
}
