package io.activityservice.rules.engine;

import io.activityservice.channel.support.DaemonThreads;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.routing.EventRouter;
import io.activityservice.rules.Event;
import io.activityservice.rules.EventAccess;
import io.activityservice.rules.RuleSettings;
import io.activityservice.rules.action.ActionDispatcher;
import io.activityservice.rules.action.ExecutionRecord;
import io.activityservice.rules.compile.CompiledRule;
import io.activityservice.rules.compile.EventTypes;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Runs the deployed rule sets, one {@link RuleSession} each, on a small shared executor. As an
 * {@link EventRouter.Tap} it sees every routed event; the only work on the routing thread is one
 * hash lookup of the event's type in an immutable index (type -> sessions, plus the sessions that
 * take every type) and a non-blocking {@code offer} per interested session. A rule set whose queue
 * is full loses that event (counted in {@code activity.rules.dropped}); ingestion never waits.
 */
public final class RuleEngine implements EventRouter.Tap, AutoCloseable {

  /** Immutable routing snapshot, swapped on every deployment change. */
  private record Index(Map<String, RuleSession[]> byType, RuleSession[] everyType) {
    static final Index EMPTY = new Index(Map.of(), new RuleSession[0]);
  }

  private final ActionDispatcher dispatcher;
  private final MeterRegistry meters;
  private final RuleSettings settings;
  private final ExecutorService engine;
  private final Map<String, RuleState> states = new ConcurrentHashMap<>();
  private volatile Index index = Index.EMPTY;

  public RuleEngine(ActionDispatcher dispatcher, MeterRegistry meters, RuleSettings settings) {
    this.dispatcher = dispatcher;
    this.meters = meters;
    this.settings = settings;
    this.engine =
        Executors.newFixedThreadPool(
            settings.engineThreads(), DaemonThreads.factory("rule-engine"));
  }

  /** Deploys a compiled rule set, replacing (and disposing) the previous session of that name. */
  public synchronized void deploy(CompiledRule rule) {
    RuleState state =
        states.computeIfAbsent(
            rule.name(), name -> new RuleState(name, settings.executionHistorySize(), meters));
    RuleSession previous = state.session;
    state.session = new RuleSession(rule, state, engine, dispatcher, settings);
    reindex();
    if (previous != null) {
      previous.close();
    }
  }

  /** Undeploys a rule set and forgets its history and metrics; false if it was not deployed. */
  public synchronized boolean undeploy(String name) {
    RuleState state = states.remove(name);
    if (state == null) {
      return false;
    }
    reindex();
    if (state.session != null) {
      state.session.close();
    }
    state.metrics.remove();
    return true;
  }

  /** The deployed rule set of that name. */
  public Optional<CompiledRule> deployed(String name) {
    RuleState state = states.get(name);
    return state == null || state.session == null
        ? Optional.empty()
        : Optional.of(state.session.rule());
  }

  /** Recent executions of a rule set, newest first (empty if it is not deployed). */
  public List<ExecutionRecord> executions(String name) {
    RuleState state = states.get(name);
    return state == null ? List.of() : state.history.recent();
  }

  /** Metrics of a deployed rule set. */
  public Optional<RuleMetrics> metrics(String name) {
    return Optional.ofNullable(states.get(name)).map(s -> s.metrics);
  }

  /**
   * The latest evaluation of a rule set that hit a bound ({@code evaluation-budget} or {@code
   * max-activations-per-event}), if any since it was first deployed.
   */
  public Optional<BudgetBreach> lastBudgetBreach(String name) {
    return Optional.ofNullable(states.get(name)).map(s -> s.lastBreach);
  }

  /** Facts currently held by a rule set's session (for tests and diagnostics). */
  public long facts(String name) {
    RuleState state = states.get(name);
    return state == null || state.session == null ? 0 : state.session.facts();
  }

  /** Events waiting for a rule set. */
  public int queued(String name) {
    RuleState state = states.get(name);
    return state == null || state.session == null ? 0 : state.session.queued();
  }

  /** Hot path: called by the router for every event. Never blocks, never throws. */
  @Override
  public void onEvent(RoutableEvent routable) {
    Index i = index;
    RuleSession[] typed = i.byType.get(routable.event().getType());
    if (typed == null && i.everyType.length == 0) {
      return;
    }
    Event event = Event.of(routable);
    if (typed != null) {
      for (RuleSession s : typed) {
        s.offer(event);
      }
    }
    for (RuleSession s : i.everyType) {
      s.offer(event);
    }
  }

  /**
   * Offers an event to one rule set only (with several replicas, events reach a rule set through
   * its internal channel). Never blocks.
   *
   * @return false if the rule set is not deployed here or its queue is full (the caller redelivers
   *     later)
   */
  public boolean submitTo(String ruleSet, RoutableEvent routable) {
    RuleState state = states.get(ruleSet);
    RuleSession session = state == null ? null : state.session;
    return session != null && session.offer(Event.of(routable));
  }

  /** Names of the deployed rule sets that receive events of this type. */
  public List<String> ruleSetsFor(String type) {
    Index i = index;
    List<String> names = new ArrayList<>();
    RuleSession[] typed = i.byType.get(type);
    if (typed != null) {
      for (RuleSession s : typed) {
        names.add(s.rule().name());
      }
    }
    for (RuleSession s : i.everyType) {
      names.add(s.rule().name());
    }
    return names;
  }

  /** Offers an event directly (tests and benchmarks); same path as {@link #onEvent}. */
  public void accept(Event event) {
    onEvent(EventAccess.routable(event));
  }

  private void reindex() {
    Map<String, List<RuleSession>> byType = new HashMap<>();
    List<RuleSession> every = new ArrayList<>();
    for (RuleState state : states.values()) {
      RuleSession s = state.session;
      if (s == null) {
        continue;
      }
      EventTypes types = s.rule().types();
      if (types.all()) {
        every.add(s);
      } else {
        types.types().forEach(t -> byType.computeIfAbsent(t, k -> new ArrayList<>()).add(s));
      }
    }
    Map<String, RuleSession[]> frozen = new HashMap<>();
    byType.forEach((t, list) -> frozen.put(t, list.toArray(RuleSession[]::new)));
    index = new Index(Map.copyOf(frozen), every.toArray(RuleSession[]::new));
  }

  @Override
  public synchronized void close() {
    index = Index.EMPTY;
    engine.shutdown();
    try {
      engine.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (RuleState state : states.values()) {
      if (state.session != null) {
        state.session.disposeNow();
      }
    }
  }
}
