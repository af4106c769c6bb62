package io.activityservice.detector;

import io.activityservice.events.problem.ConflictException;
import io.activityservice.events.problem.NotFoundException;
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

  public DetectorService(DetectorRepository repository, DetectorEngine engine, Clock clock) {
    this.repository = repository;
    this.engine = engine;
    this.clock = clock;
  }

  /** Deploys every stored detector; failures are logged and reported by {@link #get(String)}. */
  public void loadAll() {
    for (DetectorDefinition d : repository.findAll()) {
      try {
        engine.deploy(d);
      } catch (RuntimeException e) {
        failures.put(d.name(), e.getMessage());
        log.error("stored detector '{}' could not be redeployed and stays stopped: {}", d.name(), e.getMessage());
      }
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
    DetectorDefinition d = new DetectorDefinition(name, inputs, epl, emits, clockMode, OffsetDateTime.now(clock))
        .validate();
    if (repository.find(name).isPresent()) {
      throw conflict(name);
    }
    engine.deploy(d);
    boolean stored = false;
    try {
      stored = repository.insert(d);
    } finally {
      if (!stored) {
        engine.undeploy(name);
      }
    }
    if (!stored) {
      throw conflict(name);
    }
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
    if (!repository.delete(name)) {
      throw new NotFoundException("detector", name);
    }
    failures.remove(name);
    engine.undeploy(name);
  }

  private Status status(DetectorDefinition d) {
    String error = failures.get(d.name());
    DetectorStats stats = engine.stats(d.name());
    return new Status(d, error != null ? "failed" : stats != null ? "deployed" : "stopped", error, stats);
  }

  private static ConflictException conflict(String name) {
    return new ConflictException("name", "detector '" + name + "' already exists; delete it first or pick another name");
  }
}
