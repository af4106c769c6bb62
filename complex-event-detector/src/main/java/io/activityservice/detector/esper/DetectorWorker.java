package io.activityservice.detector.esper;

import io.activityservice.channel.support.DaemonThreads;
import io.activityservice.events.model.RoutableEvent;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One engine thread with its bounded queue. It owns a share of the detectors: for each queued event
 * it converts the event once per input type and sends it into each of its detectors consuming that
 * type; every {@code tickMillis} it advances its processing-time detectors' clocks — only while it
 * has detectors: without any it just waits for work.
 */
final class DetectorWorker implements Runnable {

  private static final Logger log = LoggerFactory.getLogger(DetectorWorker.class);

  /**
   * A detector's input: the detector, the alias it reads the type as, and the type's conversion.
   */
  record Binding(EsperDetector detector, String alias, InputType inputType) {}

  /**
   * An event for every detector of its type on this worker, or ({@code only} set) for one detector.
   */
  private record Work(RoutableEvent event, EsperDetector only) {}

  /** Queued by {@link #add} to wake a worker that waits without ticking (it had no detector). */
  private static final Work WAKE = new Work(null, null);

  /**
   * How long a worker without detectors waits for work: nothing to tick, so no wake-ups every tick
   * (issue 20).
   */
  private static final long IDLE_WAIT_MILLIS = 60_000;

  private final BlockingQueue<Work> queue;
  private final Clock clock;
  private final long tickMillis;
  private final Thread thread;
  private volatile Map<String, List<Binding>> routes = Map.of();
  private volatile List<EsperDetector> detectors = List.of();
  private volatile boolean running = true;

  DetectorWorker(int index, int capacity, Clock clock, long tickMillis) {
    this.queue = new ArrayBlockingQueue<>(capacity);
    this.clock = clock;
    this.tickMillis = Math.max(1, tickMillis);
    this.thread = DaemonThreads.thread("detector-engine-" + index, this);
  }

  void start() {
    thread.start();
  }

  boolean consumes(String type) {
    return routes.containsKey(type);
  }

  /** Enqueues without blocking; false if the queue is full. */
  boolean offer(RoutableEvent event) {
    return queue.offer(new Work(event, null));
  }

  /** Enqueues for one detector only, without blocking; false if the queue is full. */
  boolean offer(RoutableEvent event, EsperDetector detector) {
    return queue.offer(new Work(event, detector));
  }

  int queued() {
    return queue.size();
  }

  /** Adds a detector (called under the engine's lock). */
  void add(EsperDetector detector) {
    Map<String, List<Binding>> next = copy(routes);
    detector
        .inputs()
        .forEach(
            (alias, inputType) -> {
              String type = detector.definition().inputs().get(alias);
              next.computeIfAbsent(type, t -> new ArrayList<>())
                  .add(new Binding(detector, alias, inputType));
            });
    routes = freeze(next);
    List<EsperDetector> d = new ArrayList<>(detectors);
    d.add(detector);
    detectors = List.copyOf(d);
    queue.offer(WAKE); // start ticking; if the queue is full, the worker is not waiting anyway
  }

  /** Removes a detector (called under the engine's lock); the caller closes it. */
  void remove(EsperDetector detector) {
    Map<String, List<Binding>> next = copy(routes);
    next.values().forEach(l -> l.removeIf(b -> b.detector() == detector));
    next.values().removeIf(List::isEmpty);
    routes = freeze(next);
    List<EsperDetector> d = new ArrayList<>(detectors);
    d.remove(detector);
    detectors = List.copyOf(d);
  }

  @Override
  public void run() {
    long lastTick = clock.millis();
    while (running) {
      Work event;
      try {
        event =
            queue.poll(detectors.isEmpty() ? IDLE_WAIT_MILLIS : tickMillis, TimeUnit.MILLISECONDS);
        if (event == WAKE) {
          event = null;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      long now = clock.millis();
      try {
        if (event != null) {
          dispatch(event.event(), event.only(), now);
        }
        if (now - lastTick >= tickMillis) {
          lastTick = now;
          for (EsperDetector d : detectors) {
            d.tick(now);
          }
        }
      } catch (RuntimeException e) {
        log.error("detector worker failed on an event; continuing", e);
      }
    }
  }

  private void dispatch(RoutableEvent event, EsperDetector only, long now) {
    List<Binding> bindings = routes.get(event.event().getType());
    if (bindings == null) {
      return;
    }
    InputType converted = null;
    InputEvent map = null;
    for (Binding b : bindings) {
      if (only != null && b.detector() != only) {
        continue;
      }
      if (b.inputType() != converted) {
        converted = b.inputType();
        map = converted.convert(event);
      }
      b.detector().process(b.alias(), map, now);
    }
  }

  /** Stops the thread; waits up to {@code waitMillis}. */
  void stop(long waitMillis) {
    running = false;
    thread.interrupt();
    try {
      thread.join(waitMillis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static Map<String, List<Binding>> copy(Map<String, List<Binding>> m) {
    Map<String, List<Binding>> c = new HashMap<>();
    m.forEach((k, v) -> c.put(k, new ArrayList<>(v)));
    return c;
  }

  private static Map<String, List<Binding>> freeze(Map<String, List<Binding>> m) {
    Map<String, List<Binding>> f = new HashMap<>();
    m.forEach((k, v) -> f.put(k, List.copyOf(v)));
    return Map.copyOf(f);
  }
}
