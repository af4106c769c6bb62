package io.activityservice.detector.esper;

import com.espertech.esper.common.client.EPCompiled;
import com.espertech.esper.common.client.configuration.Configuration;
import com.espertech.esper.compiler.client.EPCompileException;
import com.espertech.esper.compiler.client.EPCompileExceptionItem;
import com.espertech.esper.compiler.client.EPCompilerProvider;
import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.detector.ClockMode;
import io.activityservice.detector.DetectorDefinition;
import io.activityservice.detector.DetectorEngine;
import io.activityservice.detector.DetectorMetrics;
import io.activityservice.detector.DetectorOutput;
import io.activityservice.detector.DetectorStats;
import io.activityservice.detector.esper.internal.CompiledForm;
import io.activityservice.detector.esper.internal.EplSandbox;
import io.activityservice.events.log.LogSafe;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.problem.ConflictException;
import io.activityservice.events.problem.InvalidInputException;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link DetectorEngine} on Esper 9. Each detector gets its own Esper runtime (isolated state and
 * clock, external timer) bound to one of {@code threads} worker threads (by name hash), so one
 * detector's events are processed in order on one thread. Each worker has a bounded queue of {@code
 * queueCapacity} events; when it is full, {@link #submit} drops the event, counts it ({@code
 * activity.detectors.dropped}) and logs at most every 10 s: ingestion is never blocked by
 * detectors. Every detector is checked, compiled and run in the {@link EplSandbox}: EPL cannot
 * reach Java beyond an allow-list, and its windows are bounded.
 */
public class EsperDetectorEngine implements DetectorEngine {

  private static final Logger log = LoggerFactory.getLogger(EsperDetectorEngine.class);
  private static final long DROP_LOG_INTERVAL_NANOS = 10_000_000_000L;

  /**
   * Engine settings.
   *
   * @param threads worker threads
   * @param queueCapacity bound of each worker's queue
   * @param tick how often processing-time clocks advance (timer resolution)
   * @param maxWindowEvents largest count a data window ({@code #length(n)}, {@code
   *     #length_batch(n)}...), a {@code prior(n, ...)}, a pattern repeat {@code [n]} or an {@code
   *     output every n events} may have; larger ones are refused (400 on {@code epl})
   * @param maxWindowTime longest time a data window ({@code #time(t)}, {@code #time_batch(t)}...)
   *     or an output rate may span; longer ones are refused
   * @param maxPatternSubexpressions pattern sub-expressions alive at once in one detector (e.g. one
   *     per {@code every a=A} waiting for its {@code -> b=B}); further ones are not started and a
   *     warning is logged
   * @param maxMatchRecognizeStates match-recognize partial matches alive at once in one detector;
   *     further ones are not started and a warning is logged
   */
  public record Settings(
      int threads,
      int queueCapacity,
      Duration tick,
      long maxWindowEvents,
      Duration maxWindowTime,
      long maxPatternSubexpressions,
      long maxMatchRecognizeStates) {

    /** Default {@link #maxWindowEvents}. */
    public static final long DEFAULT_MAX_WINDOW_EVENTS = 100_000;

    /** Default {@link #maxWindowTime}. */
    public static final Duration DEFAULT_MAX_WINDOW_TIME = Duration.ofHours(24);

    /** Default {@link #maxPatternSubexpressions}. */
    public static final long DEFAULT_MAX_PATTERN_SUBEXPRESSIONS = 10_000;

    /** Default {@link #maxMatchRecognizeStates}. */
    public static final long DEFAULT_MAX_MATCH_RECOGNIZE_STATES = 10_000;

    public Settings {
      if (maxWindowEvents < 1
          || maxPatternSubexpressions < 1
          || maxMatchRecognizeStates < 1
          || maxWindowTime == null
          || maxWindowTime.isNegative()
          || maxWindowTime.isZero()) {
        throw new IllegalArgumentException(
            "detector limits must be positive: maxWindowEvents="
                + maxWindowEvents
                + ", maxWindowTime="
                + maxWindowTime
                + ", maxPatternSubexpressions="
                + maxPatternSubexpressions
                + ", maxMatchRecognizeStates="
                + maxMatchRecognizeStates);
      }
    }

    /** Settings with the default detector limits. */
    public Settings(int threads, int queueCapacity, Duration tick) {
      this(
          threads,
          queueCapacity,
          tick,
          DEFAULT_MAX_WINDOW_EVENTS,
          DEFAULT_MAX_WINDOW_TIME,
          DEFAULT_MAX_PATTERN_SUBEXPRESSIONS,
          DEFAULT_MAX_MATCH_RECOGNIZE_STATES);
    }
  }

  private final Function<String, Optional<JsonNode>> schemas;
  private final DetectorOutput output;
  private final DetectorMetrics metrics;
  private final Clock clock;
  private final DetectorWorker[] workers;
  private final EplSandbox sandbox;
  private final Map<String, EsperDetector> detectors = new ConcurrentHashMap<>();

  /** What each deployed detector was compiled from ({@link CompiledForm#fingerprint}). */
  private final Map<String, String> fingerprints = new ConcurrentHashMap<>();

  private final Set<String> consumed = ConcurrentHashMap.newKeySet();
  private final Map<JsonNode, InputType> inputTypes = new HashMap<>();
  private volatile long lastDropLog;

  /**
   * @param schemas JSON Schema of an event type's data, if the registry has one
   * @param output where rows go (called on worker threads)
   */
  public EsperDetectorEngine(
      Function<String, Optional<JsonNode>> schemas,
      DetectorOutput output,
      DetectorMetrics metrics,
      Clock clock,
      Settings settings) {
    this.schemas = schemas;
    this.output = output;
    this.metrics = metrics;
    this.clock = clock;
    this.sandbox =
        new EplSandbox(
            settings.maxWindowEvents(),
            settings.maxWindowTime(),
            settings.maxPatternSubexpressions(),
            settings.maxMatchRecognizeStates());
    this.workers = new DetectorWorker[Math.max(1, settings.threads())];
    for (int i = 0; i < workers.length; i++) {
      workers[i] =
          new DetectorWorker(i, settings.queueCapacity(), clock, settings.tick().toMillis());
      workers[i].start();
    }
    metrics.queued(
        () -> {
          int n = 0;
          for (DetectorWorker w : workers) {
            n += w.queued();
          }
          return n;
        });
  }

  @Override
  public synchronized void deploy(DetectorDefinition detector) {
    deploy(detector, null);
  }

  @Override
  public synchronized void deploy(DetectorDefinition detector, String compiledForm) {
    if (detectors.containsKey(detector.name())) {
      throw new ConflictException("name", "detector '" + detector.name() + "' is already deployed");
    }
    Map<String, InputType> inputs = new LinkedHashMap<>();
    Map<String, Map<String, Object>> definitions = new LinkedHashMap<>();
    Configuration configuration = new Configuration();
    Set<String> eventProperties = new HashSet<>();
    detector
        .inputs()
        .forEach(
            (alias, type) -> {
              InputType it = inputType(schemas.apply(type).orElse(null));
              inputs.put(alias, it);
              definitions.put(alias, it.definition());
              eventProperties.addAll(it.definition().keySet());
              configuration.getCommon().addEventType(alias, it.definition());
            });
    sandbox.check(detector.epl(), inputs.keySet(), eventProperties);
    sandbox.configure(configuration);
    configuration.getRuntime().getThreading().setInternalTimerEnabled(false);
    configuration.getRuntime().getThreading().setListenerDispatchPreserveOrder(false);
    String fingerprint =
        CompiledForm.fingerprint(detector.epl(), detector.clock().text(), definitions);
    // Only a processing-time detector deploys its classes at once, so a form that does not deploy
    // here is known
    // now and compiled instead; an event-time one deploys at its first event, too late to fall
    // back.
    boolean useForm = compiledForm != null && detector.clock() == ClockMode.PROCESSING_TIME;
    EsperDetector d =
        useForm ? fromForm(detector, inputs, configuration, compiledForm, fingerprint) : null;
    boolean fromStoredForm = d != null;
    if (d == null) {
      EPCompiled compiled = compile(detector, configuration);
      d =
          new EsperDetector(
              detector,
              inputs,
              configuration,
              compiled,
              output,
              metrics.forDetector(detector.name()),
              clock.millis());
    }
    detectors.put(detector.name(), d);
    fingerprints.put(detector.name(), fingerprint);
    worker(detector.name()).add(d);
    consumed.addAll(detector.inputs().values());
    log.info(
        "deployed detector '{}' ({} clock{}) on {}",
        detector.name(),
        detector.clock().text(),
        fromStoredForm ? ", from its stored compiled form" : "",
        detector.inputs().values());
  }

  /**
   * The detector started from another replica's compiled form, or null (logged why) to compile it
   * here.
   */
  private EsperDetector fromForm(
      DetectorDefinition detector,
      Map<String, InputType> inputs,
      Configuration configuration,
      String form,
      String fingerprint) {
    try {
      EPCompiled compiled = CompiledForm.decode(form, fingerprint, sandbox);
      return new EsperDetector(
          detector,
          inputs,
          configuration,
          compiled,
          output,
          metrics.forDetector(detector.name()),
          clock.millis());
    } catch (RuntimeException e) {
      log.info(
          "detector '{}': its stored compiled form is not used here, compiling it ({})",
          detector.name(),
          LogSafe.message(e.getMessage()));
      return null;
    }
  }

  @Override
  public String compiledForm(String name) {
    EsperDetector d = detectors.get(name);
    String fingerprint = fingerprints.get(name);
    return d == null || fingerprint == null ? null : CompiledForm.encode(d.compiled(), fingerprint);
  }

  /**
   * Compiles the (checked) EPL against the detector's input types in the sandbox.
   *
   * @throws InvalidInputException field {@code epl}, with Esper's message and position
   */
  private EPCompiled compile(DetectorDefinition detector, Configuration configuration) {
    try {
      return EPCompilerProvider.getCompiler()
          .compile(detector.epl(), sandbox.compilerArguments(configuration));
    } catch (EPCompileException e) {
      StringBuilder reason =
          new StringBuilder("Esper could not compile the EPL: ").append(e.getMessage());
      if (!e.getItems().isEmpty()) {
        EPCompileExceptionItem first = e.getItems().get(0);
        if (!e.getMessage().contains(" at line ")) {
          reason.append(" (statement at line ").append(first.getLineNumber()).append(')');
        }
      }
      throw new InvalidInputException("epl", reason.toString());
    } catch (RuntimeException e) {
      throw new InvalidInputException("epl", "Esper could not compile the EPL: " + e);
    }
  }

  @Override
  public synchronized boolean undeploy(String name) {
    EsperDetector d = detectors.remove(name);
    fingerprints.remove(name);
    if (d == null) {
      return false;
    }
    worker(name).remove(d);
    d.close();
    consumed.clear();
    detectors.values().forEach(x -> consumed.addAll(x.definition().inputs().values()));
    log.info("undeployed detector '{}'", name);
    return true;
  }

  @Override
  public boolean accepts(String type) {
    return consumed.contains(type);
  }

  @Override
  public void submit(RoutableEvent event) {
    String type = event.event().getType();
    for (DetectorWorker w : workers) {
      if (w.consumes(type) && !w.offer(event)) {
        long n = metrics.droppedOne();
        long now = System.nanoTime();
        if (now - lastDropLog > DROP_LOG_INTERVAL_NANOS) {
          lastDropLog = now;
          log.warn(
              "detector queue full: dropped event {} of type {} ({} dropped so far); raise "
                  + "activity.detectors.queue-capacity or activity.detectors.threads, or simplify detectors",
              LogSafe.message(event.event().getId()),
              LogSafe.message(type),
              n);
        }
      }
    }
  }

  @Override
  public java.util.List<String> consumersOf(String type) {
    return detectors.values().stream()
        .filter(d -> d.definition().inputs().containsValue(type))
        .map(d -> d.definition().name())
        .toList();
  }

  @Override
  public boolean submitTo(String detector, RoutableEvent event) {
    EsperDetector d = detectors.get(detector);
    return d != null && worker(detector).offer(event, d);
  }

  @Override
  public DetectorStats stats(String name) {
    EsperDetector d = detectors.get(name);
    return d == null ? null : new DetectorStats(d.eventsIn(), d.rowsOut(), metrics.dropped());
  }

  @Override
  public synchronized void close() {
    for (DetectorWorker w : workers) {
      w.stop(5_000);
    }
    detectors.values().forEach(EsperDetector::close);
    detectors.clear();
    consumed.clear();
  }

  private DetectorWorker worker(String name) {
    return workers[Math.floorMod(name.hashCode(), workers.length)];
  }

  /**
   * One InputType per distinct schema, so an event is converted once for all detectors of a worker.
   */
  private InputType inputType(JsonNode schema) {
    if (schema == null || schema.isNull()) {
      return InputType.UNTYPED;
    }
    return inputTypes.computeIfAbsent(schema, InputType::new);
  }
}
