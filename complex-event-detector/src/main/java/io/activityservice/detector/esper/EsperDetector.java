package io.activityservice.detector.esper;

import com.espertech.esper.common.client.EPCompiled;
import com.espertech.esper.common.client.EventBean;
import com.espertech.esper.common.client.configuration.Configuration;
import com.espertech.esper.runtime.client.EPDeployException;
import com.espertech.esper.runtime.client.EPRuntime;
import com.espertech.esper.runtime.client.EPRuntimeProvider;
import com.espertech.esper.runtime.client.EPStatement;
import com.espertech.esper.runtime.client.UpdateListener;
import io.activityservice.detector.ClockMode;
import io.activityservice.detector.DetectorDefinition;
import io.activityservice.detector.DetectorMetrics;
import io.activityservice.detector.DetectorOutput;
import io.activityservice.detector.DetectorRow;
import io.activityservice.events.log.LogSafe;
import java.lang.reflect.Array;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One deployed detector: its own Esper runtime (own clock, own state) with an external clock,
 * driven only by the engine worker thread it is assigned to, so events, clock ticks and listener
 * calls of a detector are strictly sequential. Processing-time detectors are set to the wall clock
 * before each event and on each worker tick; event-time detectors are advanced to each event's
 * {@code time} (never backwards) and their statement is deployed when the first event arrives, so
 * the clock starts at the data's time.
 */
final class EsperDetector implements UpdateListener {

  private static final Logger log = LoggerFactory.getLogger(EsperDetector.class);

  private final DetectorDefinition definition;
  private final Map<String, InputType> inputs;
  private final EPCompiled compiled;
  private final EPRuntime runtime;
  private final DetectorOutput output;
  private final DetectorMetrics.PerDetector metrics;
  private boolean deployed;
  private boolean closed;
  private String[] columns = new String[0];

  /** The event being sent, while it is being sent (worker thread only). */
  private InputEvent current;

  /** Hop count of the last event sent in: used for rows fired by the clock alone. */
  private int lastHop;

  EsperDetector(
      DetectorDefinition definition,
      Map<String, InputType> inputs,
      Configuration configuration,
      EPCompiled compiled,
      DetectorOutput output,
      DetectorMetrics.PerDetector metrics,
      long now) {
    this.definition = definition;
    this.inputs = inputs;
    this.compiled = compiled;
    this.output = output;
    this.metrics = metrics;
    this.runtime =
        newRuntime("detector-" + definition.name() + "-" + UUID.randomUUID(), configuration);
    if (definition.clock() == ClockMode.PROCESSING_TIME) {
      runtime.getEventService().advanceTime(now);
      try {
        deploy();
      } catch (RuntimeException e) {
        runtime.destroy();
        throw e;
      }
    }
  }

  /**
   * Esper instantiates the runtime's condition handler (the sandbox's limit warnings) by class name
   * through the thread's context class loader: make that this module's loader, whichever thread
   * deploys.
   */
  private static EPRuntime newRuntime(String uri, Configuration configuration) {
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    thread.setContextClassLoader(EsperDetector.class.getClassLoader());
    try {
      return EPRuntimeProvider.getRuntime(uri, configuration);
    } finally {
      thread.setContextClassLoader(previous);
    }
  }

  DetectorDefinition definition() {
    return definition;
  }

  Map<String, InputType> inputs() {
    return inputs;
  }

  long eventsIn() {
    return metrics.eventsIn();
  }

  long rowsOut() {
    return metrics.rowsOut();
  }

  /** Sends one event in under alias {@code alias}. Worker thread only. */
  synchronized void process(String alias, InputEvent event, long now) {
    if (closed) {
      return;
    }
    long start = System.nanoTime();
    try {
      if (definition.clock() == ClockMode.EVENT_TIME) {
        Long t = (Long) event.get("time");
        long time = t == null ? now : t;
        if (!deployed) {
          runtime.getEventService().advanceTime(time);
          deploy();
        } else if (time > runtime.getEventService().getCurrentTime()) {
          runtime.getEventService().advanceTimeSpan(time);
        }
      } else if (now > runtime.getEventService().getCurrentTime()) {
        runtime.getEventService().advanceTime(now);
      }
      current = event;
      runtime.getEventService().sendEventMap(event, alias);
      lastHop = event.hopCount();
    } catch (RuntimeException | LinkageError e) {
      // LinkageError: generated code linking a class the sandbox's class loader refuses; the worker
      // carries on
      log.warn(
          "detector '{}' failed on event {}: {}",
          definition.name(),
          LogSafe.message(event.id()),
          LogSafe.message(e.toString()));
    } finally {
      current = null;
      metrics.processed(System.nanoTime() - start);
    }
  }

  /**
   * Moves a processing-time detector's clock to {@code now}, firing due timers. Worker thread only.
   */
  synchronized void tick(long now) {
    if (closed || definition.clock() != ClockMode.PROCESSING_TIME) {
      return;
    }
    try {
      if (now > runtime.getEventService().getCurrentTime()) {
        runtime.getEventService().advanceTime(now);
      }
    } catch (RuntimeException | LinkageError e) {
      log.warn(
          "detector '{}' failed on a clock tick: {}",
          definition.name(),
          LogSafe.message(e.toString()));
    }
  }

  /** What it runs: the compiled EPL. */
  EPCompiled compiled() {
    return compiled;
  }

  /** Destroys the runtime and its state. */
  synchronized void close() {
    if (!closed) {
      closed = true;
      metrics.remove();
      runtime.destroy();
    }
  }

  private void deploy() {
    try {
      EPStatement[] statements = runtime.getDeploymentService().deploy(compiled).getStatements();
      EPStatement last = statements[statements.length - 1];
      columns = last.getEventType().getPropertyNames();
      last.addListener(this);
      deployed = true;
    } catch (EPDeployException e) {
      throw new IllegalStateException(
          "detector '" + definition.name() + "' could not be deployed: " + e.getMessage(), e);
    }
  }

  @Override
  public void update(
      EventBean[] newEvents, EventBean[] oldEvents, EPStatement statement, EPRuntime rt) {
    if (newEvents == null) {
      return;
    }
    Instant time = Instant.ofEpochMilli(rt.getEventService().getCurrentTime());
    for (EventBean row : newEvents) {
      try {
        output.emit(toRow(row, time));
        metrics.rowOut();
      } catch (RuntimeException e) {
        log.warn(
            "detector '{}' could not turn a row into an event: {}",
            definition.name(),
            LogSafe.message(e.toString()));
      }
    }
  }

  /**
   * Causes, in order of preference: a column named {@code causedby} (ids, or events such as {@code
   * window(*)}; removed from the data); else the input events selected as columns (pattern tags);
   * else the event whose arrival produced the row; else none (a row fired by the clock alone).
   */
  private DetectorRow toRow(EventBean row, Instant time) {
    Map<String, Object> data = new LinkedHashMap<>();
    Set<String> explicit = new LinkedHashSet<>();
    Set<String> selected = new LinkedHashSet<>();
    int[] hop = {-1};
    Map<String, String> traces = new LinkedHashMap<>();
    boolean hasExplicit = false;
    for (String column : columns) {
      Object value = row.get(column);
      if (column.equals("causedby")) {
        hasExplicit = true;
        collectIds(value, explicit, hop, traces);
      } else {
        data.put(column, plain(value, selected, hop, traces));
      }
    }
    List<String> causes;
    if (hasExplicit && !explicit.isEmpty()) {
      causes = new ArrayList<>(explicit);
    } else if (!selected.isEmpty()) {
      causes = new ArrayList<>(selected);
    } else if (current != null) {
      causes = List.of(current.id());
      if (current.traceparent() != null) {
        traces.put(current.id(), current.traceparent());
      }
    } else {
      causes = List.of();
    }
    int inputHop = hop[0] >= 0 ? hop[0] : current != null ? current.hopCount() : lastHop;
    List<String> causeTraces = new ArrayList<>(causes.size());
    for (String cause : causes) {
      String traceparent = traces.get(cause);
      if (traceparent != null) {
        causeTraces.add(traceparent);
      }
    }
    return new DetectorRow(definition, data, causes, inputHop + 1, time, causeTraces);
  }

  /**
   * Converts Esper values to JSON-ready values, noting ids and hop counts of input events found.
   */
  private static Object plain(
      Object value, Set<String> ids, int[] hop, Map<String, String> traces) {
    if (value instanceof EventBean bean) {
      return plain(bean.getUnderlying(), ids, hop, traces);
    }
    if (value instanceof InputEvent e) {
      ids.add(e.id());
      hop[0] = Math.max(hop[0], e.hopCount());
      String traceparent = e.traceparent();
      if (traceparent != null) {
        traces.put(e.id(), traceparent);
      }
      return e;
    }
    if (value instanceof Map<?, ?> m) {
      Map<String, Object> out = new LinkedHashMap<>();
      m.forEach((k, v) -> out.put(String.valueOf(k), plain(v, ids, hop, traces)));
      return out;
    }
    if (value != null && value.getClass().isArray()) {
      int n = Array.getLength(value);
      List<Object> out = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        out.add(plain(Array.get(value, i), ids, hop, traces));
      }
      return out;
    }
    if (value instanceof Collection<?> c) {
      List<Object> out = new ArrayList<>(c.size());
      c.forEach(v -> out.add(plain(v, ids, hop, traces)));
      return out;
    }
    return value;
  }

  /** Ids from a {@code causedby} column: a (comma-separated) string, strings, or events. */
  private static void collectIds(
      Object value, Set<String> ids, int[] hop, Map<String, String> traces) {
    if (value == null) {
      return;
    }
    if (value instanceof String s) {
      for (String id : s.split(",")) {
        if (!id.isBlank()) {
          ids.add(id.trim());
        }
      }
      return;
    }
    if (value instanceof EventBean || value instanceof InputEvent) {
      plain(value, ids, hop, traces);
      return;
    }
    if (value.getClass().isArray()) {
      for (int i = 0, n = Array.getLength(value); i < n; i++) {
        collectIds(Array.get(value, i), ids, hop, traces);
      }
      return;
    }
    if (value instanceof Collection<?> c) {
      c.forEach(v -> collectIds(v, ids, hop, traces));
      return;
    }
    ids.add(String.valueOf(value));
  }
}
