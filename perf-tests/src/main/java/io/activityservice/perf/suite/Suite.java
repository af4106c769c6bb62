package io.activityservice.perf.suite;

import io.activityservice.perf.Options;
import io.activityservice.perf.service.ServiceApi;
import io.activityservice.perf.transport.PerfEvents;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the measurements: bursts of the paper's T1–T6 plus Kafka and REST rows (repetitions interleaved
 * across scenarios so that load drifting on a shared machine hits direct and via-service runs alike),
 * larger bursts for throughput, open-loop latency ladders per direct/via pair, and relay-only versus
 * 10 detectors + 10 rules.
 */
public final class Suite {

  /** Direct/via pairs measured in latency mode. */
  static final List<List<String>> PACED_PAIRS = List.of(List.of("T1", "T2"), List.of("T3", "T4"), List.of("K1", "K2"));
  /** Number of detectors and of rules deployed for the CEP comparison. */
  static final int CEP_COUNT = 10;

  private final Options o;
  private final Legs legs;
  private final ServiceApi api;
  private final String runId;
  private final PerfEvents events = new PerfEvents(1024);
  private final PerfEvents.Clock clock = new PerfEvents.Clock();
  private final List<RunResult> results = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private final Map<String, Double> sustainable = new LinkedHashMap<>();
  private String cepStatus = "not run";
  private Progress progress;

  /** A suite over the given clients and API. */
  public Suite(Options o, Legs legs, ServiceApi api, String runId) {
    this.o = o;
    this.legs = legs;
    this.api = api;
    this.runId = runId;
  }

  /** Scenarios that can run with the transports available. */
  public List<Scenario> scenarios() {
    return Scenario.all().stream()
        .filter(s -> legs.available(s.from()) && legs.available(s.to())).toList();
  }

  /** Runs everything; returns the results (also available from {@link #results()}). */
  public List<RunResult> run() throws Exception {
    List<Scenario> scenarios = scenarios();
    progress = Progress.onStderr(plannedEvents(scenarios));
    Map<String, ScenarioSession> sessions = new LinkedHashMap<>();
    try {
      for (Scenario s : scenarios) {
        progress.step("set-up + warm-up " + s.id());
        ScenarioSession session = ScenarioSession.open(s, "", runId, legs, api, events, clock);
        sessions.put(s.id(), session);
        session.warmUp(warmUp());
        progress.advance(warmUp());
      }
      bursts(sessions, o.smallN(), o.reps());
      for (int i = 0; i < o.largeN().size(); i++) {
        bursts(sessions, List.of(o.largeN().get(i)), o.largeReps().get(i));
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
      cep();
    } catch (Exception e) {
      cepStatus = "not measured: " + e;
    }
    progress.finish();
    return results;
  }

  private void bursts(Map<String, ScenarioSession> sessions, List<Integer> sizes, int reps) throws Exception {
    for (int n : sizes) {
      for (int rep = 1; rep <= reps; rep++) {
        for (ScenarioSession session : sessions.values()) {
          progress.step("burst " + session.scenario().id() + " N=" + n + " rep " + rep + "/" + reps);
          RunResult r = session.burst("burst", n, rep, progress);
          add(r);
          Thread.sleep(100);
        }
      }
    }
  }

  private void paced(Map<String, ScenarioSession> sessions) throws Exception {
    Duration duration = Duration.ofMillis(Math.round(o.pacedSeconds() * 1000));
    for (List<String> pair : PACED_PAIRS) {
      List<ScenarioSession> alive = new ArrayList<>(pair.stream().filter(sessions::containsKey).map(sessions::get).toList());
      if (alive.isEmpty()) {
        continue;
      }
      String transport = alive.get(0).scenario().from();
      double bound = o.p99BoundMs(transport);
      Duration drain = Duration.ofSeconds(transport.equals("sqs") ? 30 : 15);
      Map<String, Double> lastPass = new LinkedHashMap<>();
      Map<String, Double> firstFail = new LinkedHashMap<>();
      for (double rate : RateLadder.rates(transport, o.quick())) {
        for (ScenarioSession s : List.copyOf(alive)) {
          progress.step("paced " + s.scenario().id() + " " + Math.round(rate) + " ev/s");
          RunResult r = s.paced(rate, duration, drain, 1, progress);
          add(r);
          if (RateLadder.sustained(r, bound)) {
            lastPass.put(s.scenario().id(), rate);
          } else {
            firstFail.put(s.scenario().id(), rate);
            alive.remove(s);
          }
        }
      }
      if (!o.quick()) {
        // One bisection step between the last sustained and the first failed rate.
        for (String id : pair) {
          Double pass = lastPass.get(id);
          Double fail = firstFail.get(id);
          if (pass != null && fail != null && sessions.containsKey(id)) {
            double mid = Math.round((pass + fail) / 2);
            progress.extend(Math.round(mid * o.pacedSeconds()));
            progress.step("paced " + id + " " + Math.round(mid) + " ev/s (bisection)");
            RunResult r = sessions.get(id).paced(mid, duration, drain, 1, progress);
            add(r);
            if (RateLadder.sustained(r, bound)) {
              lastPass.put(id, mid);
            }
          }
        }
      }
      for (String id : pair) {
        if (sessions.containsKey(id)) {
          sustainable.put(id, lastPass.getOrDefault(id, 0.0));
          if (!firstFail.containsKey(id)) {
            notes.add(id + ": every offered rate was sustained; the sustainable rate is at least the highest tried.");
          }
        }
      }
    }
  }

  private void cep() throws Exception {
    Scenario relay = new Scenario("C1", "JMS topic → service (10 detectors + 10 rules) → JMS topic", "jms", "jms",
        true, List.of("T1"));
    int n = o.quick() ? 500 : 5000;
    int reps = o.quick() ? 1 : 3;
    ScenarioSession session = ScenarioSession.open(relay, "", runId, legs, api, events, clock);
    try {
      session.warmUp(warmUp());
      for (int rep = 1; rep <= reps; rep++) {
        progress.step("relay-only C1 N=" + n + " rep " + rep);
        add(session.burst("relay", n, rep, progress));
      }
      String absent = deployDetectorsAndRules(session.type());
      if (absent != null) {
        cepStatus = absent;
        progress.advance((long) n * reps);
        return;
      }
      session.warmUp(warmUp());
      for (int rep = 1; rep <= reps; rep++) {
        progress.step("cep C1 N=" + n + " rep " + rep);
        add(session.burst("cep", n, rep, progress));
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
      ServiceApi.Answer a = api.addDetector("perf-" + runId + "-d" + i, type,
          "select count(*) as n from R#length(" + (100 + i) + ") having count(*) > 100000", type + ".detected" + i);
      if (a.status() == 404 || a.status() == 405) {
        return "not measured: API absent (POST /api/v1/detectors answered " + a.status() + ")";
      }
      if (!a.ok()) {
        return "not measured: POST /api/v1/detectors answered " + a.status() + ": " + a.body();
      }
    }
    for (int i = 1; i <= CEP_COUNT; i++) {
      String drl = "rule \"perf-r" + i + "\" when $e : Event( type == \"" + type + "\", number(\"value\") > "
          + (1_000_000 + i) + " ) then actions.run(\"log\", Map.of(\"message\",\"x\")); end";
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
      notes.add(r.scenario() + " " + r.mode() + " N=" + r.n() + " rep " + r.rep() + ": received " + r.received()
          + ", duplicates " + r.duplicates() + ", failed sends " + r.sendFailures());
    }
  }

  private int warmUp() {
    return o.quick() ? 100 : 500;
  }

  private long plannedEvents(List<Scenario> scenarios) {
    long perScenario = warmUp();
    for (int n : o.smallN()) {
      perScenario += (long) n * o.reps();
    }
    for (int i = 0; i < o.largeN().size(); i++) {
      perScenario += (long) o.largeN().get(i) * o.largeReps().get(i);
    }
    long total = perScenario * scenarios.size();
    for (Scenario s : scenarios) {
      if (PACED_PAIRS.stream().anyMatch(p -> p.contains(s.id()))) {
        // The ladder usually stops after a few steps on a small machine: plan for the first three.
        total += Math.round(RateLadder.rates(s.from(), o.quick()).stream().limit(3).mapToDouble(Double::doubleValue).sum()
            * o.pacedSeconds());
      }
    }
    return total + 2L * (o.quick() ? 500 : 15000) + 2L * warmUp();
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

  /** Outcome of the detectors + rules comparison: "measured" or why not. */
  public String cepStatus() {
    return cepStatus;
  }
}
