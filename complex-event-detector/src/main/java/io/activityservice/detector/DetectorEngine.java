package io.activityservice.detector;

import io.activityservice.events.model.RoutableEvent;

/**
 * The CEP engine behind detectors, kept behind this interface so it stays replaceable ({@link
 * io.activityservice.detector.esper.EsperDetectorEngine} is the Esper implementation). Output rows
 * go to the {@link DetectorOutput} given to the implementation.
 */
public interface DetectorEngine extends AutoCloseable {

  /**
   * Compiles and starts a detector.
   *
   * @throws io.activityservice.events.problem.InvalidInputException (field {@code epl}) if it does
   *     not compile; nothing is deployed then
   * @throws io.activityservice.events.problem.ConflictException if a detector of that name is
   *     deployed
   */
  void deploy(DetectorDefinition detector);

  /**
   * Starts a detector from the compiled form another replica stored with it ({@link
   * #compiledForm}), without compiling again; a form this engine cannot use (another engine
   * version, other input types or settings, refused by a check) is ignored and the detector
   * compiled from its definition.
   *
   * @param compiledForm what {@link #compiledForm} gave on the replica that created it, or null
   * @throws io.activityservice.events.problem.InvalidInputException as {@link
   *     #deploy(DetectorDefinition)}
   */
  default void deploy(DetectorDefinition detector, String compiledForm) {
    deploy(detector);
  }

  /**
   * A deployed detector's compiled form, to be stored with it so that the other replicas start it
   * without compiling ({@link #deploy(DetectorDefinition, String)}); null if there is none or the
   * engine has no such form.
   */
  default String compiledForm(String name) {
    return null;
  }

  /** Stops a detector and drops its state; returns false if none of that name was deployed. */
  boolean undeploy(String name);

  /**
   * Whether some deployed detector consumes events of this type. Cheap: one concurrent set lookup.
   */
  boolean accepts(String type);

  /**
   * Hands an event to the detectors consuming its type. Never blocks and never throws: when the
   * engine's bounded queue is full the event is counted as dropped (see {@link
   * DetectorStats#dropped()}).
   */
  void submit(RoutableEvent event);

  /**
   * Hands an event to one detector only (with several replicas, events reach a detector through its
   * internal channel). Never blocks and never throws.
   *
   * @return false if the detector is not deployed here or its queue is full (the caller redelivers
   *     later)
   */
  boolean submitTo(String detector, RoutableEvent event);

  /** Names of the deployed detectors that consume events of this type. */
  java.util.List<String> consumersOf(String type);

  /** Counters of one detector, or null if it is not deployed. */
  DetectorStats stats(String name);

  /** Stops every detector and the engine's threads. */
  @Override
  void close();
}
