package io.activityservice.rules.engine;

import io.activityservice.events.log.LogSafe;
import io.activityservice.rules.Actions;
import io.activityservice.rules.Event;
import io.activityservice.rules.RuleSettings;
import io.activityservice.rules.action.ActionContext;
import io.activityservice.rules.action.ActionDispatcher;
import io.activityservice.rules.action.ActionRequest;
import io.activityservice.rules.compile.CompiledRule;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.drools.core.common.InternalFactHandle;
import org.kie.api.KieServices;
import org.kie.api.event.rule.AfterMatchFiredEvent;
import org.kie.api.event.rule.BeforeMatchFiredEvent;
import org.kie.api.event.rule.DefaultAgendaEventListener;
import org.kie.api.runtime.KieSession;
import org.kie.api.runtime.KieSessionConfiguration;
import org.kie.api.runtime.conf.ClockTypeOption;
import org.kie.api.runtime.rule.FactHandle;
import org.kie.api.time.SessionPseudoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One deployed rule set: its own stream-mode {@link KieSession}, fed through a bounded queue and
 * evaluated on the shared engine executor by at most one thread at a time (an actor). The session
 * clock is a pseudo clock driven by event time: before an event is inserted the clock advances to
 * the event's {@code time} (never backwards), so windows and temporal operators are deterministic.
 * Events leave the session by Drools expiration ({@code @expires}, or longer when a window needs
 * it) and, as a hard bound, by retraction of the oldest beyond {@code maxEvents}.
 *
 * <p>Each event's evaluation is bounded by an {@link EvaluationBudget}: {@code fireAllRules} with
 * an agenda filter that lets at most {@code maxActivationsPerEvent} matches fire and none after
 * {@code evaluationBudget}; the remaining matches of that event are dropped, and the breach is
 * counted and kept as the rule set's {@link BudgetBreach}. The engine thread moves on to the next
 * event.
 */
final class RuleSession {

  private static final Logger log = LoggerFactory.getLogger(RuleSession.class);
  private static final int BATCH = 256;

  private final CompiledRule rule;
  private final RuleState state;
  private final KieSession session;
  private final SessionPseudoClock clock;
  private final ArrayBlockingQueue<Event> queue;
  private final Executor engine;
  private final ActionDispatcher dispatcher;
  private final int maxEvents;
  private final EvaluationBudget budget;
  private final ArrayDeque<FactHandle> handles = new ArrayDeque<>();
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private volatile boolean closed;
  private volatile long facts;
  private boolean disposed;
  // Only touched by the thread currently draining (scheduled guarantees one at a time).
  private Event current;
  private String firedRule;
  private Instant lastBreachLogged;

  RuleSession(
      CompiledRule rule,
      RuleState state,
      Executor engine,
      ActionDispatcher dispatcher,
      RuleSettings settings) {
    this.rule = rule;
    this.state = state;
    this.engine = engine;
    this.dispatcher = dispatcher;
    this.maxEvents = settings.maxEventsPerRule();
    this.budget =
        new EvaluationBudget(settings.evaluationBudget(), settings.maxActivationsPerEvent());
    this.queue = new ArrayBlockingQueue<>(settings.queueCapacity());
    KieSessionConfiguration conf = KieServices.get().newKieSessionConfiguration();
    conf.setOption(ClockTypeOption.PSEUDO);
    this.session = rule.kieBase().newKieSession(conf, null);
    this.clock = session.getSessionClock();
    session.setGlobal("actions", (Actions) this::runAction);
    session.addEventListener(
        new DefaultAgendaEventListener() {
          @Override
          public void beforeMatchFired(BeforeMatchFiredEvent event) {
            firedRule = event.getMatch().getRule().getName();
          }

          @Override
          public void afterMatchFired(AfterMatchFiredEvent event) {
            state.metrics.matched();
          }
        });
  }

  CompiledRule rule() {
    return rule;
  }

  /**
   * Hands an event over; never blocks. False if the queue is full (the event is dropped and
   * counted).
   */
  boolean offer(Event event) {
    if (closed) {
      return false;
    }
    if (!queue.offer(event)) {
      state.metrics.dropped();
      return false;
    }
    schedule();
    return true;
  }

  int queued() {
    return queue.size();
  }

  long facts() {
    return facts;
  }

  /**
   * Stops taking events; the session is disposed on the engine thread, waiting events are dropped.
   */
  void close() {
    closed = true;
    schedule();
  }

  /** Disposes at once (used at shutdown, after the engine executor stopped). */
  synchronized void disposeNow() {
    closed = true;
    if (!disposed) {
      disposed = true;
      queue.clear();
      session.dispose();
    }
  }

  private void schedule() {
    if (scheduled.compareAndSet(false, true)) {
      try {
        engine.execute(this::drain);
      } catch (RejectedExecutionException e) {
        scheduled.set(false);
      }
    }
  }

  private void drain() {
    try {
      if (closed) {
        disposeNow();
        return;
      }
      Event next;
      for (int n = 0; n < BATCH && !closed && (next = queue.poll()) != null; n++) {
        evaluate(next);
      }
    } catch (RuntimeException | LinkageError e) {
      log.error("rule set {} failed while draining its queue", rule.name(), e);
    } finally {
      scheduled.set(false);
    }
    if (closed ? !disposed : !queue.isEmpty()) {
      schedule();
    }
  }

  private synchronized void evaluate(Event event) {
    if (disposed) {
      return;
    }
    long start = System.nanoTime();
    budget.start(start);
    current = event;
    try {
      long gap = event.getTime() - clock.getCurrentTime();
      if (gap > 0) {
        clock.advanceTime(gap, TimeUnit.MILLISECONDS);
      }
      handles.addLast(session.insert(event));
      trim();
      session.fireAllRules(budget);
    } catch (RuntimeException e) {
      log.warn(
          "rule set {} failed on event {}: {}",
          rule.name(),
          LogSafe.message(event.getId()),
          LogSafe.message(e.toString()));
    } finally {
      current = null;
      firedRule = null;
      facts = session.getFactCount();
      long end = System.nanoTime();
      EvaluationBudget.Bound bound = budget.finish(end);
      if (bound != null) {
        breach(event, bound, end - start);
      }
      state.metrics.evaluated(end - start);
    }
  }

  private void breach(Event event, EvaluationBudget.Bound bound, long nanos) {
    long count = state.breaches.incrementAndGet();
    BudgetBreach breach =
        new BudgetBreach(
            Instant.now(),
            event.getId(),
            bound.tag(),
            budget.fired(),
            budget.dropped(),
            Duration.ofNanos(nanos),
            count);
    state.lastBreach = breach;
    state.metrics.budgetExceeded(bound.tag());
    // One line per minute and session at most: a rule set that breaches on every event must not
    // flood the log.
    if (lastBreachLogged == null
        || Duration.between(lastBreachLogged, breach.time()).toMinutes() >= 1) {
      lastBreachLogged = breach.time();
      log.warn(
          "rule set {} hit its {} bound on event {}: {} rule firings, {} matches dropped, {} ms "
              + "({} breaches so far; see activity.rules.evaluation-budget and max-activations-per-event)",
          rule.name(),
          bound.tag(),
          LogSafe.message(event.getId()),
          breach.fired(),
          breach.dropped(),
          nanos / 1_000_000,
          count);
    }
  }

  /**
   * Forgets the handles of events that left the session; retracts the oldest events beyond the
   * bound. Once Drools has expired an event, its handle here is the only reference left to it: a
   * handle kept here keeps its event, routed event and expiry timer job in the heap.
   */
  private void trim() {
    while (!handles.isEmpty() && gone(handles.peekFirst())) {
      handles.pollFirst();
    }
    while (handles.size() > maxEvents) {
      FactHandle oldest = handles.pollFirst();
      if (!gone(oldest)) {
        session.delete(oldest);
      }
    }
  }

  /**
   * Whether an event left the session: retracted, or expired. Validity alone does not tell: Drools
   * marks an expired event's handle expired and takes it out of the session's store, but leaves the
   * handle valid.
   */
  private static boolean gone(FactHandle handle) {
    InternalFactHandle h = (InternalFactHandle) handle;
    return !h.isValid() || h.isExpired();
  }

  private void runAction(String handler, Map<String, Object> params) {
    Map<String, Object> copy =
        params == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(params));
    Event trigger = copy.get("event") instanceof Event e ? e : current;
    dispatcher.submit(
        new ActionRequest(
            handler,
            copy,
            new ActionContext(rule.name(), firedRule, trigger, rule.authorScope()),
            Instant.now(),
            System.nanoTime(),
            state::record));
  }
}
