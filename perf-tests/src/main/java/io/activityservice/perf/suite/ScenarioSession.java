package io.activityservice.perf.suite;

import io.activityservice.perf.peer.PeerRoute;
import io.activityservice.perf.service.ServiceApi;
import io.activityservice.perf.transport.EventSender;
import io.activityservice.perf.transport.Listener;
import io.activityservice.perf.transport.PerfEvents;
import io.activityservice.perf.transport.ReceiveHandler;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * One scenario set up and ready to measure: the consumer listening on the output channel, the
 * producer open on the input channel and, via the service, the service listening on the input
 * channel with a subscription routing the scenario's event type to the output channel. Runs bursts
 * and paced runs.
 */
public final class ScenarioSession implements AutoCloseable {

  private final Scenario scenario;
  private final String runId;
  private final String type;
  private final PerfEvents events;
  private final PerfEvents.Clock clock;
  private final EventSender sender;
  private final Listener listener;
  private final PeerRoute peerRoute;
  private volatile ReceiveHandler current = (id, t) -> {};
  private int runs;

  private ScenarioSession(
      Scenario scenario,
      String runId,
      String type,
      PerfEvents events,
      PerfEvents.Clock clock,
      EventSender sender,
      Listener listener,
      PeerRoute peerRoute) {
    this.peerRoute = peerRoute;
    this.scenario = scenario;
    this.runId = runId;
    this.type = type;
    this.events = events;
    this.clock = clock;
    this.sender = sender;
    this.listener = listener;
  }

  /**
   * Sets the scenario up.
   *
   * @param suffix distinguishes several sessions of one scenario in a run (e.g. {@code cep})
   */
  public static ScenarioSession open(
      Scenario s,
      String suffix,
      String runId,
      Legs legs,
      ServiceApi api,
      PerfEvents events,
      PerfEvents.Clock clock)
      throws Exception {
    String base = "perf-" + runId + "-" + s.id().toLowerCase() + suffix;
    String type = "io.activityservice.perf." + runId + "." + s.id().toLowerCase() + suffix;
    String in = legs.uri(s.from(), s.relayed() ? base + "-in" : base);
    String out = s.relayed() ? legs.uri(s.to(), base + "-out") : in;
    ScenarioSession[] self = new ScenarioSession[1];
    Listener listener =
        legs.listen(out, "perf-" + runId, (id, t) -> self[0].current.received(id, t));
    try {
      PeerRoute route = null;
      if (s.viaService()) {
        if (!s.rest()) {
          api.addInbound(in);
        }
        api.subscribe(
            base,
            type,
            out,
            s.transform() == null ? Map.of() : Map.of("transform", Map.of("data", s.transform())));
      } else if (s.peer() != null) {
        if (in.startsWith("jms:topic:")) {
          legs.createVirtualTopicQueue(in.substring("jms:topic:".length()), PeerRoute.SUBSCRIPTION);
        }
        route = PeerRoute.of(s.id(), in, out, legs.kafkaBrokers());
      }
      self[0] =
          new ScenarioSession(s, runId, type, events, clock, legs.sender(in), listener, route);
      return self[0];
    } catch (Exception e) {
      listener.close();
      throw e;
    }
  }

  /** The peer's route of a peer scenario, else null. */
  public PeerRoute peerRoute() {
    return peerRoute;
  }

  /** The scenario. */
  public Scenario scenario() {
    return scenario;
  }

  /** The CloudEvents type this session's events carry (and its subscription selects). */
  public String type() {
    return type;
  }

  /**
   * Sends {@code n} events as fast as the producer takes them and waits for all of them.
   *
   * @return the run, or one with fewer received events if some did not arrive in time
   */
  public RunResult burst(String mode, int n, int rep, Progress progress)
      throws InterruptedException {
    Tracker t = newTracker(n);
    Instant start = Instant.now();
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      long now = System.nanoTime();
      t.markSent(i, now);
      sender
          .send(events.event(t.id(i), type, now, clock))
          .whenComplete(
              (v, e) -> {
                if (e != null) {
                  t.sendFailed();
                }
              });
      if ((i & 1023) == 1023) {
        progress.advance(1024);
      }
    }
    long sendEnd = System.nanoTime();
    progress.advance(n & 1023);
    t.await(Duration.ofSeconds(60 + n / 100), Duration.ofSeconds(60));
    return result(mode, t, n, rep, 0, t0, sendEnd, start);
  }

  /**
   * Open-loop run: {@code rate} events/s for {@code duration}, each stamped with its intended send
   * time; then waits for the stragglers (at most {@code drain}).
   */
  public RunResult paced(double rate, Duration duration, Duration drain, int rep, Progress progress)
      throws InterruptedException {
    int n = (int) Math.max(1, Math.round(rate * duration.toNanos() / 1e9));
    Tracker t = newTracker(n);
    long interval = Math.round(1e9 / rate);
    Instant start = Instant.now();
    long t0 = System.nanoTime() + 1_000_000;
    int step = Math.max(1, n / 50);
    for (int i = 0; i < n; i++) {
      long intended = t0 + i * interval;
      long wait;
      while ((wait = intended - System.nanoTime()) > 0) {
        LockSupport.parkNanos(wait);
      }
      t.markSent(i, intended);
      sender
          .send(events.event(t.id(i), type, intended, clock))
          .whenComplete(
              (v, e) -> {
                if (e != null) {
                  t.sendFailed();
                }
              });
      if (i % step == step - 1) {
        progress.advance(step);
      }
    }
    long sendEnd = System.nanoTime();
    progress.advance(n % step);
    boolean all = t.await(drain, Duration.ofSeconds(Math.min(30, drain.toSeconds())));
    RunResult r = result("rate", t, n, rep, rate, t0, sendEnd, start);
    if (!all) {
      t.settle(Duration.ofSeconds(3), Duration.ofSeconds(120));
    }
    return r;
  }

  /**
   * Sends {@code n} events nobody measures (JIT, connections, queue creation) in bursts of at most
   * {@value #WARMUP_CHUNK} and waits for each.
   *
   * @return events that did not arrive (a warm-up loses none unless something is broken)
   */
  public long warmUp(int n, Progress progress) throws InterruptedException {
    long missing = 0;
    for (int done = 0; done < n; done += WARMUP_CHUNK) {
      int chunk = Math.min(WARMUP_CHUNK, n - done);
      Tracker t = newTracker(chunk);
      for (int i = 0; i < chunk; i++) {
        long now = System.nanoTime();
        t.markSent(i, now);
        sender.send(events.event(t.id(i), type, now, clock));
      }
      t.await(Duration.ofSeconds(90 + chunk / 100), Duration.ofSeconds(45));
      missing += chunk - t.received();
      if (progress != null) {
        progress.advance(chunk);
      }
    }
    Thread.sleep(200);
    return missing;
  }

  /** Events per warm-up burst. */
  static final int WARMUP_CHUNK = 10_000;

  private Tracker newTracker(int n) {
    Tracker t = new Tracker(runId + "-" + scenario.id() + "-" + (++runs) + "-", n);
    current = t;
    return t;
  }

  private RunResult result(
      String mode, Tracker t, int n, int rep, double rate, long t0, long sendEnd, Instant start) {
    long last = t.lastReceive();
    double seconds = last == Long.MIN_VALUE ? 0 : (last - t0) / 1e9;
    return new RunResult(
        scenario.id(),
        mode,
        n,
        rep,
        rate,
        t.received(),
        t.duplicates(),
        t.sendFailures(),
        seconds,
        (sendEnd - t0) / 1e9,
        t.latencies(),
        start,
        Instant.now());
  }

  /**
   * Closes the producer and the consumer (service-side channels are removed by the API's clean-up).
   */
  @Override
  public void close() {
    sender.close();
    listener.close();
  }
}
