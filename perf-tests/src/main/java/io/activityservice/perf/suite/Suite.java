package io.activityservice.perf.suite;

import io.activityservice.perf.cpu.CpuMeter;
import io.activityservice.perf.cpu.CpuUse;
import io.activityservice.perf.cpu.SteadyState;
import io.activityservice.perf.peer.PeerRoute;
import io.activityservice.perf.profile.AsyncProfiler;
import io.activityservice.perf.profile.Stages;
import io.activityservice.perf.profile.SyscallCount;
import io.activityservice.perf.profile.Syscalls;
import io.activityservice.perf.service.ServiceApi;
import io.activityservice.perf.transport.FailingWebhook;
import io.activityservice.perf.transport.PerfEvents;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Runs the measurements: bursts of the paper's T1–T6 plus Kafka and REST rows (repetitions
 * interleaved across scenarios so that load drifting on a shared machine hits direct and
 * via-service runs alike), larger bursts for throughput, open-loop latency ladders per group of
 * direct and via-service scenarios (3 interleaved runs per rate, a rate sustained when 2 of 3 meet
 * the bound), a healthy subscription alone versus beside a failing webhook (I1), and relay-only
 * versus 10 detectors + 10 rules. Around every burst the CPU time of the service (and of external
 * brokers) is read with the service idle, for CPU per relayed event.
 */
public final class Suite {

  /**
   * Scenarios measured together in latency mode: direct first, then the via-service ones on its
   * ladder.
   */
  static final List<List<String>> PACED_GROUPS =
      List.of(
          List.of("T1", "T2", "R1", "CT2"),
          List.of("T3", "T4", "CT4"),
          List.of("K1", "K2", "CK2"),
          List.of("T5", "CT5"));

  /** Number of detectors and of rules deployed for the CEP comparison. */
  static final int CEP_COUNT = 10;

  /** The isolation scenario's failing webhook: 503 after this long (the scenario). */
  static final Duration FAILING_DELAY = Duration.ofSeconds(5);

  /** The failing subscription's retry policy (the scenario: 5 attempts, backoff 1–30 s). */
  static final Map<String, Object> FAILING_RETRY =
      Map.of("maxAttempts", 5, "initialBackoff", "PT1S", "maxBackoff", "PT30S");

  /** Longest wait for the service to go idle before a CPU reading. */
  static final Duration IDLE_MAX = Duration.ofSeconds(3);

  private final Options o;
  private final Legs legs;
  private final ServiceApi api;
  private final String runId;
  private final CpuMeter cpu;
  private final PerfEvents events = new PerfEvents(1024);
  private final PerfEvents.Clock clock = new PerfEvents.Clock();
  private final List<RunResult> results = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private final HopBreakdown hops = new HopBreakdown();
  private boolean hopsAvailable = true;
  private final Map<String, Double> sustainable = new LinkedHashMap<>();
  private final List<RateStep> steps = new ArrayList<>();
  private final List<CpuUse> cpuUses = new ArrayList<>();
  private final List<Map<String, Double>> idleRates = new ArrayList<>();
  private final Map<String, Long> parked = new LinkedHashMap<>();
  private final Hooks hooks;
  private final Map<String, String> subjects = new LinkedHashMap<>();
  private final Map<String, Map<String, String>> flameGraphs = new LinkedHashMap<>();
  private final Map<String, Map<String, Double>> stages = new LinkedHashMap<>();
  private final Map<String, SyscallCount> syscalls = new LinkedHashMap<>();
  private String peerStatus;
  private String cepStatus = "not run";
  private String isolationStatus = "not run";
  private Progress progress;
  private CpuMeter.Snapshot lastIdle;

  /** A suite over the given clients and API, without CPU readings. */
  public Suite(Options o, Legs legs, ServiceApi api, String runId) {
    this(o, legs, api, runId, new CpuMeter(List.of(), List.of()), Hooks.NONE);
  }

  /**
   * A suite over the given clients and API that reads {@code cpu} around every burst.
   *
   * @param hooks starts the peer and tells the processes' ids for profiles
   */
  public Suite(Options o, Legs legs, ServiceApi api, String runId, CpuMeter cpu, Hooks hooks) {
    this.o = o;
    this.legs = legs;
    this.api = api;
    this.runId = runId;
    this.cpu = cpu;
    this.hooks = hooks;
    this.peerStatus =
        o.camelPeer() ? "not started" : "not run: --peer none (the default of quick runs)";
  }

  /**
   * What the suite needs from the test bed besides clients: the peer and the processes to profile.
   */
  public interface Hooks {
    /** No peer, no processes. */
    Hooks NONE =
        new Hooks() {
          @Override
          public void startPeer(List<PeerRoute> routes) {
            throw new IllegalStateException("no peer in this test bed");
          }

          @Override
          public long pid(String process) {
            return -1;
          }

          @Override
          public Map<Integer, String> ports() {
            return Map.of();
          }
        };

    /** Starts the Camel peer with these routes (once every peer scenario is set up). */
    void startPeer(List<PeerRoute> routes) throws Exception;

    /** The pid of {@code service} or {@code camel}, or -1 if the suite did not start it. */
    long pid(String process);

    /**
     * TCP port → role ({@code activemq}, {@code sqs}, {@code kafka}, {@code http}), for counting
     * system calls.
     */
    Map<Integer, String> ports();
  }

  /**
   * Scenarios that can run with the transports available (and the peer, and {@code --scenarios}).
   */
  public List<Scenario> scenarios() {
    return Scenario.all().stream()
        .filter(s -> legs.available(s.from()) && legs.available(s.to()))
        .filter(s -> s.peer() == null || o.camelPeer())
        .filter(s -> o.runs(s.id()))
        .toList();
  }

  /**
   * The process whose JIT share decides whether a burst of {@code s} is steady: the service for
   * via-service paths, the peer for its own, the ActiveMQ broker process for direct JMS when the
   * suite started one; else none.
   */
  String subject(Scenario s) {
    if (s.viaService()) {
      return "service";
    }
    if (s.peer() != null) {
      return s.peer();
    }
    if (s.from().equals("jms")
        && cpu.sources().stream().anyMatch(x -> x.name().equals("activemq-own"))) {
      return "activemq";
    }
    return null;
  }

  /** Runs everything; returns the results (also available from {@link #results()}). */
  public List<RunResult> run() throws Exception {
    List<Scenario> scenarios = scenarios();
    progress = Progress.onStderr(plannedEvents(scenarios));
    Map<String, ScenarioSession> sessions = new LinkedHashMap<>();
    try {
      for (Scenario s : scenarios) {
        progress.step("set-up " + s.id());
        sessions.put(s.id(), ScenarioSession.open(s, "", runId, legs, api, events, clock));
        subjects.put(s.id(), subject(s));
      }
      startPeer(sessions);
      for (ScenarioSession session : sessions.values()) {
        progress.step(
            "warm-up " + session.scenario().id() + " (" + o.steady().warmup() + " events)");
        long missing = session.warmUp(o.steady().warmup(), progress);
        if (missing > 0) {
          notes.add(session.scenario().id() + ": " + missing + " warm-up events did not arrive");
        }
      }
      for (ScenarioSession session : sessions.values()) {
        subjects.put(session.scenario().id(), subject(session.scenario()));
      }
      measureIdle();
      bursts(sessions, o.smallN(), o.reps());
      boolean steadyDone = o.smallN().contains(o.steady().n());
      for (int i = 0; i < o.largeN().size(); i++) {
        if (!steadyDone && o.largeN().get(i) > o.steady().n()) {
          bursts(sessions, List.of(o.steady().n()), o.steady().bursts());
          steadyDone = true;
        }
        bursts(sessions, List.of(o.largeN().get(i)), o.largeReps().get(i));
        steadyDone |= o.largeN().get(i) == o.steady().n();
      }
      if (!steadyDone) {
        bursts(sessions, List.of(o.steady().n()), o.steady().bursts());
      }
      if (!o.quick()) {
        // Again after the bursts (the quick mode saves the time): the idle rate used is the mean of
        // both.
        measureIdle();
      }
      if (o.profile()) {
        profiles(sessions);
      }
      try {
        paced(sessions);
      } catch (Exception e) {
        notes.add("latency mode stopped early: " + e);
      }
    } finally {
      sessions.values().forEach(ScenarioSession::close);
    }
    try {
      if (o.runs("I1")) {
        isolation();
      } else {
        isolationStatus = "not run (--scenarios)";
      }
    } catch (Exception e) {
      isolationStatus = "not measured: " + e;
    }
    try {
      if (o.runs("C1")) {
        cep();
      } else {
        cepStatus = "not run (--scenarios)";
      }
    } catch (Exception e) {
      cepStatus = "not measured: " + e;
    }
    progress.finish();
    return results;
  }

  /** Starts the peer with the routes of the peer scenarios, if any; without it they are dropped. */
  private void startPeer(Map<String, ScenarioSession> sessions) {
    List<PeerRoute> routes =
        sessions.values().stream()
            .map(ScenarioSession::peerRoute)
            .filter(Objects::nonNull)
            .toList();
    if (routes.isEmpty()) {
      return;
    }
    progress.step("starting the Camel peer (" + routes.size() + " routes)");
    try {
      hooks.startPeer(routes);
      peerStatus = "started: " + routes.size() + " routes";
    } catch (Exception e) {
      peerStatus = "not measured: the peer did not start: " + e.getMessage();
      notes.add("Camel peer: " + peerStatus);
      for (var r : routes) {
        ScenarioSession s = sessions.remove(r.id());
        if (s != null) {
          s.close();
        }
      }
    }
  }

  private void measureIdle() throws InterruptedException {
    if (cpu.enabled()) {
      progress.step(
          "idle CPU of the service"
              + (cpu.sources().size() > 1 ? ", peer and brokers" : "")
              + " ("
              + Math.round(o.steady().idleSeconds())
              + " s)");
      idleRates.add(cpu.idleRates(Duration.ofMillis(Math.round(o.steady().idleSeconds() * 1000))));
      lastIdle = null;
    }
  }

  private void bursts(Map<String, ScenarioSession> sessions, List<Integer> sizes, int reps)
      throws Exception {
    for (int n : sizes) {
      for (int rep = 1; rep <= reps; rep++) {
        for (ScenarioSession session : sessions.values()) {
          progress.step(
              "burst " + session.scenario().id() + " N=" + n + " rep " + rep + "/" + reps);
          measuredBurst(session, "burst", n, rep);
        }
      }
      if (n == o.steady().n() && cpu.enabled()) {
        steadyRepeats(sessions, n, reps);
      }
    }
  }

  /**
   * The steady-state rule: bursts of the figures' size are repeated, round by round over the paths
   * not yet steady, until each has enough bursts whose JIT share stayed under the bound, or the
   * bound on bursts is reached.
   */
  private void steadyRepeats(Map<String, ScenarioSession> sessions, int n, int done)
      throws Exception {
    int rep = done;
    while (true) {
      List<ScenarioSession> pending =
          sessions.values().stream()
              .filter(
                  s -> SteadyState.another(selection(s.scenario().id(), n), o.steady().maxBursts()))
              .toList();
      if (pending.isEmpty()) {
        return;
      }
      rep++;
      progress.extend((long) n * pending.size());
      for (ScenarioSession session : pending) {
        progress.step(
            "steady-state repeat "
                + session.scenario().id()
                + " N="
                + n
                + " burst "
                + rep
                + "/"
                + o.steady().maxBursts());
        measuredBurst(session, "burst", n, rep);
      }
    }
  }

  /** The steady-state selection of a scenario's bursts of size {@code n}. */
  public SteadyState.Selection selection(String scenario, int n) {
    return SteadyState.select(
        cpuUses,
        scenario,
        n,
        subjects.get(scenario),
        o.steady().bursts(),
        o.steady().maxJitShare());
  }

  /**
   * The profile so far as collapsed stacks, split into the capacity model's stages ({@link
   * Stages}); empty (and a note) when async-profiler refuses the dump.
   */
  private Optional<Map<String, Double>> stageShares(AsyncProfiler profiler, long pid, Path file) {
    try {
      profiler.dumpCollapsed(pid, file);
      return Optional.of(Stages.shares(Files.readAllLines(file)));
    } catch (IOException e) {
      notes.add("no per-stage split of " + file.getFileName() + ": " + e.getMessage());
      return Optional.empty();
    }
  }

  /**
   * Each profiled via-service path's stage → share of the service's CPU in its CPU profile (full
   * runs with {@code --profile}).
   */
  public Map<String, Map<String, Double>> stageShares() {
    return stages;
  }

  /**
   * Profiles of each relayed path (full runs): a CPU flame graph and an allocation flame graph of
   * the relaying process over one burst each, and its system calls counted over a smaller burst.
   * None of these bursts counts for the figures (profilers and tracers cost CPU).
   */
  private void profiles(Map<String, ScenarioSession> sessions) throws Exception {
    Optional<AsyncProfiler> profiler =
        AsyncProfiler.locate(o.workDir().resolveSibling("async-profiler"));
    Path dir = o.reportDir().resolve("profiles");
    Files.createDirectories(dir);
    for (ScenarioSession session : sessions.values()) {
      Scenario s = session.scenario();
      if (!s.relayed()) {
        continue;
      }
      String process = s.viaService() ? "service" : s.peer();
      long pid = hooks.pid(process);
      Map<String, String> graphs = new LinkedHashMap<>();
      flameGraphs.put(s.id(), graphs);
      if (pid < 0) {
        graphs.put("cpu", "no profile: the suite did not start the " + process);
        continue;
      }
      int n = o.steady().n();
      if (profiler.isEmpty()) {
        graphs.put(
            "cpu",
            "no profile: async-profiler's library not found on the runner's class path (linux-x64)");
      } else {
        for (String kind : List.of("cpu", "alloc")) {
          String file = s.id() + "-" + process + "-" + kind + ".html";
          progress.step("profile (" + kind + ") " + s.id() + " N=" + n);
          progress.extend(n);
          try {
            if (kind.equals("cpu")) {
              profiler.get().startCpu(pid);
            } else {
              profiler.get().startAlloc(pid);
            }
            try {
              add(session.burst("profile-" + kind, n, 1, progress));
            } finally {
              if (kind.equals("cpu") && s.viaService()) {
                stageShares(
                        profiler.get(), pid, dir.resolve(s.id() + "-" + process + "-cpu.collapsed"))
                    .ifPresent(shares -> stages.put(s.id(), shares));
              }
              profiler
                  .get()
                  .stop(
                      pid,
                      dir.resolve(file),
                      s.id()
                          + " "
                          + process
                          + " "
                          + (kind.equals("cpu")
                              ? "CPU (" + profiler.get().cpuEvent() + ")"
                              : "allocations")
                          + ", "
                          + n
                          + " events");
            }
            graphs.put(kind, "profiles/" + file);
          } catch (IOException e) {
            graphs.put(kind, "no profile: " + e.getMessage());
          }
        }
        graphs.put("event", profiler.get().cpuEvent());
      }
      if (o.strace() && Syscalls.available()) {
        int m = Math.max(100, Math.min(2_000, n / 5));
        progress.step("system calls (strace) " + s.id() + " N=" + m);
        progress.extend(m);
        Path trace = o.workDir().resolveSibling("strace").resolve(s.id() + ".strace");
        Files.createDirectories(trace.getParent());
        try {
          RunResult r;
          try (var t = Syscalls.start(pid, trace)) {
            r = session.burst("syscalls", m, 1, progress);
          }
          add(r);
          syscalls.put(
              s.id(),
              new SyscallCount(process, r.received(), Syscalls.count(trace, hooks.ports()), null));
          Files.deleteIfExists(trace);
        } catch (Exception e) {
          syscalls.put(
              s.id(), new SyscallCount(process, 0, Map.of(), "not counted: " + e.getMessage()));
        }
      }
    }
    lastIdle = null;
  }

  /**
   * A burst between two idle CPU readings (the previous burst's closing reading opens the next
   * one).
   */
  private RunResult measuredBurst(ScenarioSession session, String mode, int n, int rep)
      throws Exception {
    Map<String, HopBreakdown.Timed> hopsBefore = scrapeHops();
    if (!cpu.enabled()) {
      RunResult r = session.burst(mode, n, rep, progress);
      add(r);
      addHops(r, mode, hopsBefore);
      Thread.sleep(100);
      return r;
    }
    // A scrape just now: the window opens after it, so the scrape's CPU is not the burst's.
    CpuMeter.Snapshot before =
        lastIdle != null && hopsBefore == null ? lastIdle : cpu.idleSnapshot(IDLE_MAX);
    RunResult r = session.burst(mode, n, rep, progress);
    add(r);
    CpuMeter.Snapshot after = cpu.idleSnapshot(IDLE_MAX);
    lastIdle = after;
    cpuUses.add(CpuUse.between(r.scenario(), mode, n, rep, r.received(), before, after));
    addHops(r, mode, hopsBefore);
    return r;
  }

  /** The service's per-hop timers now, or null (not exposed, no key for them, unreachable). */
  private Map<String, HopBreakdown.Timed> scrapeHops() {
    if (!hopsAvailable) {
      return null;
    }
    try {
      ServiceApi.Answer a = api.get("/actuator/prometheus");
      if (a.ok()) {
        return HopBreakdown.parse(a.body());
      }
      notes.add("per-hop breakdown: /actuator/prometheus answered " + a.status() + "; left out");
    } catch (IOException e) {
      notes.add("per-hop breakdown: /actuator/prometheus unreachable (" + e.getMessage() + ")");
    }
    hopsAvailable = false;
    return null;
  }

  private void addHops(RunResult r, String mode, Map<String, HopBreakdown.Timed> before) {
    if (before == null) {
      return;
    }
    Map<String, HopBreakdown.Timed> after = scrapeHops();
    if (after != null) {
      hops.add(mode.equals("burst") ? r.scenario() : r.scenario() + " " + mode, before, after);
    }
  }

  /** Per scenario, where its time went inside the service (per-hop timers). */
  public HopBreakdown hops() {
    return hops;
  }

  private void paced(Map<String, ScenarioSession> sessions) throws Exception {
    Duration duration = Duration.ofMillis(Math.round(o.pacedSeconds() * 1000));
    for (List<String> group : PACED_GROUPS) {
      if (group.get(0).equals("T5") && !o.camelPeer()) {
        continue; // T5's ladder is only for the comparison with the peer's CT5
      }
      List<ScenarioSession> alive =
          new ArrayList<>(group.stream().filter(sessions::containsKey).map(sessions::get).toList());
      if (alive.isEmpty()) {
        continue;
      }
      // The group's ladder and bound are those of its direct scenario's transport (R1 runs on the
      // JMS ladder).
      String transport =
          Scenario.all().stream()
              .filter(s -> s.id().equals(group.get(0)))
              .findFirst()
              .map(Scenario::to)
              .orElse(alive.get(0).scenario().to());
      double bound = o.p99BoundMs(transport);
      Duration drain = Duration.ofSeconds(transport.equals("sqs") ? 30 : 15);
      Map<String, Double> lastPass = new LinkedHashMap<>();
      Map<String, Double> firstFail = new LinkedHashMap<>();
      List<ScenarioSession> failed = new ArrayList<>();
      double reference = RateLadder.referenceRate(transport);
      for (double rate : RateLadder.rates(transport, o.quick())) {
        // Scenarios that failed below the reference rate still run at it (for its latency figures).
        List<ScenarioSession> running = new ArrayList<>(alive);
        if (rate == reference) {
          running.addAll(failed);
        }
        if (running.isEmpty()) {
          if (rate > reference) {
            break;
          }
          continue;
        }
        for (RateStep step : step(running, rate, duration, drain, bound)) {
          if (!firstFail.containsKey(step.scenario()) && step.sustained()) {
            lastPass.put(step.scenario(), rate);
          } else if (!firstFail.containsKey(step.scenario())) {
            firstFail.put(step.scenario(), rate);
            alive.stream()
                .filter(s -> s.scenario().id().equals(step.scenario()))
                .findFirst()
                .ifPresent(failed::add);
            alive.removeIf(s -> s.scenario().id().equals(step.scenario()));
          }
        }
      }
      if (!o.quick()) {
        // One bisection step between the last sustained and the first failed rate.
        for (String id : group) {
          Double pass = lastPass.get(id);
          Double fail = firstFail.get(id);
          if (pass != null && fail != null && sessions.containsKey(id)) {
            double mid = Math.round((pass + fail) / 2);
            progress.extend(Math.round(mid * o.pacedSeconds() * RateLadder.RUNS));
            for (RateStep step : step(List.of(sessions.get(id)), mid, duration, drain, bound)) {
              if (step.sustained()) {
                lastPass.put(id, mid);
              }
            }
          }
        }
      }
      for (String id : group) {
        if (sessions.containsKey(id)) {
          sustainable.put(id, lastPass.getOrDefault(id, 0.0));
          if (!firstFail.containsKey(id)) {
            notes.add(
                id
                    + ": every offered rate was sustained; the sustainable rate is at least the highest tried.");
          }
        }
      }
    }
  }

  /**
   * One step of a ladder: up to 3 runs of every session at {@code rate}, interleaved (run 1 of
   * each, then run 2, …) so that drifting load hits all of them; in quick mode a session's third
   * run is skipped once its first two decided the step.
   */
  private List<RateStep> step(
      List<ScenarioSession> sessions, double rate, Duration duration, Duration drain, double bound)
      throws InterruptedException {
    Map<String, List<RunResult>> runs = new LinkedHashMap<>();
    Map<String, List<Boolean>> passes = new LinkedHashMap<>();
    List<ScenarioSession> pending = new ArrayList<>(sessions);
    for (int run = 1; run <= RateLadder.RUNS && !pending.isEmpty(); run++) {
      for (ScenarioSession s : List.copyOf(pending)) {
        String id = s.scenario().id();
        progress.step(
            "paced " + id + " " + Math.round(rate) + " ev/s run " + run + "/" + RateLadder.RUNS);
        // CPU per event in paced runs (full mode: the idle waits would lengthen the quick mode's
        // many short runs)
        CpuMeter.Snapshot before = cpu.enabled() && !o.quick() ? cpu.idleSnapshot(IDLE_MAX) : null;
        RunResult r = s.paced(rate, duration, drain, run, progress);
        add(r);
        if (before != null) {
          cpuUses.add(
              CpuUse.between(
                  id, "rate", r.n(), run, rate, r.received(), before, cpu.idleSnapshot(IDLE_MAX)));
        }
        runs.computeIfAbsent(id, k -> new ArrayList<>()).add(r);
        passes.computeIfAbsent(id, k -> new ArrayList<>()).add(RateLadder.sustained(r, bound));
        if (o.quick() && RateLadder.decided(passes.get(id)).isPresent()) {
          pending.remove(s);
        }
      }
    }
    List<RateStep> out = new ArrayList<>();
    for (ScenarioSession s : sessions) {
      String id = s.scenario().id();
      RateStep step =
          new RateStep(
              id,
              rate,
              runs.get(id),
              passes.get(id),
              RateLadder.stepSustained(passes.get(id)),
              bound);
      steps.add(step);
      out.add(step);
    }
    return out;
  }

  /**
   * I1: a healthy JMS → service → JMS subscription alone, and beside a second subscription on the
   * same type whose webhook answers 503 after 5 s (5 attempts, backoff 1–30 s). Alone and beside
   * alternate (and swap order every repetition) so that drifting load hits both. The failing
   * subscription is created right before each "beside" burst and deleted once its deliveries were
   * parked, which drops them: its retries must not run on into the next "alone" burst or the other
   * scenarios.
   */
  private void isolation() throws Exception {
    Scenario s =
        new Scenario(
            "I1",
            "JMS topic → service → JMS topic, beside a webhook answering 503 after 5 s",
            "jms",
            "jms",
            true,
            List.of("T1"));
    List<Integer> sizes = o.quick() ? List.of(500) : o.smallN();
    ScenarioSession session = ScenarioSession.open(s, "", runId, legs, api, events, clock);
    try (FailingWebhook hook = new FailingWebhook(FAILING_DELAY)) {
      progress.step("set-up + warm-up I1");
      session.warmUp(warmUp(), null);
      lastIdle = null;
      String name = "perf-" + runId + "-i1-failing";
      for (int n : sizes) {
        for (int rep = 1; rep <= o.reps(); rep++) {
          List<String> order =
              rep % 2 == 1 ? List.of("alone", "beside") : List.of("beside", "alone");
          for (String mode : order) {
            progress.step("I1 " + mode + " N=" + n + " rep " + rep + "/" + o.reps());
            String failing = null;
            if (mode.equals("beside")) {
              failing =
                  api.subscribe(
                      name, session.type(), hook.url("/hook"), Map.of("retry", FAILING_RETRY));
              lastIdle = null;
            }
            if (!cpu.enabled()) {
              add(session.burst(mode, n, rep, progress));
            } else {
              CpuMeter.Snapshot before = lastIdle != null ? lastIdle : cpu.idleSnapshot(IDLE_MAX);
              RunResult r = session.burst(mode, n, rep, progress);
              add(r);
              if (failing != null) {
                parked.put(n + "/" + rep, awaitParked(failing, n));
                api.unsubscribe(failing);
                failing = null;
              }
              CpuMeter.Snapshot after = cpu.idleSnapshot(IDLE_MAX);
              lastIdle = after;
              cpuUses.add(CpuUse.between("I1", mode, n, rep, r.received(), before, after));
            }
            if (failing != null) {
              parked.put(n + "/" + rep, awaitParked(failing, n));
              api.unsubscribe(failing);
            }
          }
        }
      }
      isolationStatus =
          "measured (webhook: "
              + hook.requests()
              + " requests, up to "
              + hook.maxConcurrent()
              + " waiting at once)";
    } finally {
      session.close();
    }
  }

  /**
   * Waits (at most 20 s) until the failing subscription's {@code n} deliveries are in the retry
   * store (pending or dead-lettered); returns how many were, or -1 if the service has no deliveries
   * API.
   */
  private long awaitParked(String subscription, int n) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    long seen = -1;
    while (System.nanoTime() < deadline) {
      Optional<Long> count =
          Optional.ofNullable(api.getJson("/api/v1/subscriptions/" + subscription + "/deliveries"))
              .map(j -> j.path("pending").asLong() + j.path("deadLetters").asLong());
      if (count.isEmpty()) {
        return seen;
      }
      seen = count.get();
      if (seen >= n) {
        return seen;
      }
      Thread.sleep(200);
    }
    return seen;
  }

  private void cep() throws Exception {
    Scenario relay =
        new Scenario(
            "C1",
            "JMS topic → service (10 detectors + 10 rules) → JMS topic",
            "jms",
            "jms",
            true,
            List.of("T1"));
    int n = o.quick() ? 500 : 5000;
    int reps = o.quick() ? 1 : 3;
    ScenarioSession session = ScenarioSession.open(relay, "", runId, legs, api, events, clock);
    try {
      session.warmUp(warmUp(), null);
      lastIdle = null;
      for (int rep = 1; rep <= reps; rep++) {
        progress.step("relay-only C1 N=" + n + " rep " + rep);
        measuredBurst(session, "relay", n, rep);
      }
      String absent = deployDetectorsAndRules(session.type());
      if (absent != null) {
        cepStatus = absent;
        progress.advance((long) n * reps);
        return;
      }
      session.warmUp(warmUp(), null);
      lastIdle = null;
      for (int rep = 1; rep <= reps; rep++) {
        progress.step("cep C1 N=" + n + " rep " + rep);
        measuredBurst(session, "cep", n, rep);
      }
      cepStatus = "measured";
    } finally {
      api.removeDetectorsAndRules();
      session.close();
    }
  }

  /** Deploys the detectors and rules; returns null on success, else why not. */
  private String deployDetectorsAndRules(String type) throws Exception {
    for (int i = 1; i <= CEP_COUNT; i++) {
      ServiceApi.Answer a =
          api.addDetector(
              "perf-" + runId + "-d" + i,
              type,
              "select count(*) as n from R#length(" + (100 + i) + ") having count(*) > 100000",
              type + ".detected" + i);
      if (a.status() == 404 || a.status() == 405) {
        return "not measured: API absent (POST /api/v1/detectors answered " + a.status() + ")";
      }
      if (!a.ok()) {
        return "not measured: POST /api/v1/detectors answered " + a.status() + ": " + a.body();
      }
    }
    for (int i = 1; i <= CEP_COUNT; i++) {
      String drl =
          "rule \"perf-r"
              + i
              + "\" when $e : Event( type == \""
              + type
              + "\", number(\"value\") > "
              + (1_000_000 + i)
              + " ) then actions.run(\"log\", Map.of(\"message\",\"x\")); end";
      ServiceApi.Answer a = api.addRule("perf-" + runId + "-r" + i, drl);
      if (a.status() == 404 || a.status() == 405) {
        return "not measured: API absent (POST /api/v1/rules answered " + a.status() + ")";
      }
      if (!a.ok()) {
        return "not measured: POST /api/v1/rules answered " + a.status() + ": " + a.body();
      }
    }
    return null;
  }

  private void add(RunResult r) {
    results.add(r);
    if (!r.exactlyOnce() && !r.mode().equals("rate")) {
      notes.add(
          r.scenario()
              + " "
              + r.mode()
              + " N="
              + r.n()
              + " rep "
              + r.rep()
              + ": received "
              + r.received()
              + ", duplicates "
              + r.duplicates()
              + ", failed sends "
              + r.sendFailures());
    }
  }

  /** Warm-up of I1 and C1, whose paths T2 already warmed up. */
  private int warmUp() {
    return o.quick() ? 100 : 500;
  }

  private long plannedEvents(List<Scenario> scenarios) {
    long perScenario = o.steady().warmup();
    for (int n : o.smallN()) {
      perScenario += (long) n * o.reps();
    }
    for (int i = 0; i < o.largeN().size(); i++) {
      perScenario += (long) o.largeN().get(i) * o.largeReps().get(i);
    }
    long total = perScenario * scenarios.size();
    for (Scenario s : scenarios) {
      for (List<String> group : PACED_GROUPS) {
        if (group.contains(s.id())) {
          // The ladder usually stops after a few steps on a small machine: plan for the first
          // three.
          String transport =
              Scenario.all().stream()
                  .filter(x -> x.id().equals(group.get(0)))
                  .findFirst()
                  .map(Scenario::to)
                  .orElse(s.to());
          total +=
              Math.round(
                  RateLadder.rates(transport, o.quick()).stream()
                          .limit(3)
                          .mapToDouble(Double::doubleValue)
                          .sum()
                      * o.pacedSeconds()
                      * (o.quick() ? RateLadder.NEEDED : RateLadder.RUNS));
        }
      }
    }
    long isolation =
        2L * o.reps() * (o.quick() ? 500 : o.smallN().stream().mapToLong(Integer::longValue).sum());
    return total + isolation + 2L * (o.quick() ? 500 : 15000) + 3L * warmUp();
  }

  /** All results so far. */
  public List<RunResult> results() {
    return results;
  }

  /** Remarks for the report (incomplete runs, open-ended searches). */
  public List<String> notes() {
    return notes;
  }

  /** Highest sustained rate per paced scenario. */
  public Map<String, Double> sustainable() {
    return sustainable;
  }

  /** Every ladder step with its runs and outcome. */
  public List<RateStep> steps() {
    return steps;
  }

  /** CPU used in each burst's window. */
  public List<CpuUse> cpuUses() {
    return cpuUses;
  }

  /**
   * Idle CPU rate (ms per s) of each source, averaged over the idle measurements (after the
   * warm-ups and, except in quick mode, after the bursts).
   */
  public Map<String, Double> idleRates() {
    Map<String, Double> sum = new LinkedHashMap<>();
    Map<String, Integer> count = new LinkedHashMap<>();
    for (Map<String, Double> m : idleRates) {
      m.forEach(
          (k, v) -> {
            sum.merge(k, v, Double::sum);
            count.merge(k, 1, Integer::sum);
          });
    }
    Map<String, Double> out = new LinkedHashMap<>();
    sum.forEach((k, v) -> out.put(k, v / count.get(k)));
    return out;
  }

  /** Each idle measurement (ms of CPU per s per source), in order. */
  public List<Map<String, Double>> idleMeasurements() {
    return idleRates;
  }

  /**
   * I1: the failing subscription's deliveries found in the retry store after each "beside" burst,
   * by "N/rep".
   */
  public Map<String, Long> parked() {
    return parked;
  }

  /** Outcome of the isolation scenario I1: "measured …" or why not. */
  public String isolationStatus() {
    return isolationStatus;
  }

  /**
   * The process whose JIT share decides the steady state of each scenario's bursts (null: none).
   */
  public Map<String, String> subjects() {
    return subjects;
  }

  /**
   * Flame graphs per scenario: kind ({@code cpu}, {@code alloc}) → path under the report dir, or
   * why there is none.
   */
  public Map<String, Map<String, String>> flameGraphs() {
    return flameGraphs;
  }

  /** System calls counted per scenario. */
  public Map<String, SyscallCount> syscalls() {
    return syscalls;
  }

  /** The Camel peer's status. */
  public String peerStatus() {
    return peerStatus;
  }

  /** Outcome of the detectors + rules comparison: "measured" or why not. */
  public String cepStatus() {
    return cepStatus;
  }
}
