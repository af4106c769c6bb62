package io.activityservice.app.stats;

import io.activityservice.app.console.ConsoleProperties;
import io.activityservice.channel.support.DaemonThreads;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Samples the service's own Micrometer meters every {@code interval} into a bounded ring buffer of
 * counts per interval (answered as per-second rates), for {@code GET /api/v1/stats} and the
 * console's live charts. Cheap: one pass over a few meter families per interval, off every hot
 * path; memory is bounded by {@code retention / interval} samples of at most {@code max-series}
 * series per family.
 *
 * <p>Routing latency percentiles per interval come from the difference of two snapshots of the
 * {@code activity.routing.latency} histogram (cumulative in the Prometheus registry): the events
 * routed in that interval only, not a decaying average.
 */
public final class StatsSampler implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(StatsSampler.class);

  /** Series families: name in the answer, meter, tag. */
  public enum Family {
    /** Events received, by type. */
    IN("in", "activity.events.in", "type"),
    /** Events received, by inbound channel kind (scheme, or {@code http} for the REST API). */
    RECEIVED("received", "activity.events.received", "channel"),
    /** Deliveries accepted, by target channel. */
    OUT("out", "activity.events.out", "channel"),
    /** Failed delivery attempts, by target channel. */
    FAILED("failed", "activity.events.failed", "channel"),
    /** Deliveries given up, by target channel. */
    DEAD_LETTERED("deadLettered", "activity.events.deadlettered", "channel"),
    /** Events sent into detectors, by detector. */
    DETECTOR_IN("detectorIn", "activity.detectors.events.in", "detector"),
    /** Detector output rows (derived events), by detector. */
    DETECTOR_OUT("detectorOut", "activity.detectors.rows.out", "detector"),
    /** Rule firings, by rule set. */
    RULE_MATCHES("ruleMatches", "activity.rules.matches", "rule"),
    /** Failed rule actions, by rule set. */
    RULE_FAILURES("ruleActionFailures", "activity.rules.action.failures", "rule");

    final String key;
    final String meter;
    final String tag;

    Family(String key, String meter, String tag) {
      this.key = key;
      this.meter = meter;
      this.tag = tag;
    }

    /** The name in the answer, e.g. {@code deadLettered}. */
    public String key() {
      return key;
    }
  }

  static final String OTHER = "other";
  static final String LATENCY_METER = "activity.routing.latency";

  /**
   * The per-hop timers ({@code activity.hop.*}), in the order of an event's path: the key in the
   * answer is the suffix ({@code transport}, {@code ingest}, {@code route}, {@code parked}, {@code
   * send}); series are the {@code channel} tag (a scheme) or {@code all}.
   */
  static final List<String> HOPS = List.of("transport", "ingest", "route", "parked", "send");

  /** A timer's count and total time (ms) in an interval, or cumulative. */
  record Timed(long count, double totalMs) {}

  /**
   * One interval.
   *
   * @param epochMillis end of the interval
   * @param counts per family: series to events counted in the interval (series with none are left
   *     out)
   * @param latencyCount events whose routing completed in the interval
   * @param p50 their median routing latency in milliseconds, or null (none, or not measurable)
   * @param p99 their 99th percentile, or null
   * @param elapsedNanos the interval's measured length (the scheduler drifts under load)
   * @param cpuNanos CPU time this process used in the interval, or -1 when not measurable
   * @param hostLoad the whole host's recent CPU load (0 to 1), or NaN when not measurable
   */
  record Sample(
      long epochMillis,
      Map<Family, Map<String, Double>> counts,
      long latencyCount,
      Double p50,
      Double p99,
      long elapsedNanos,
      long cpuNanos,
      double hostLoad,
      Map<String, Map<String, Timed>> hops) {}

  private final MeterRegistry registry;
  private final ProcessCpu cpu;
  private long lastNanos;
  private long lastCpuNanos = -1;
  private final Clock clock;
  private final ConsoleProperties.Stats settings;
  private final int capacity;
  private final ArrayDeque<Sample> samples = new ArrayDeque<>();
  private final Map<Family, Map<String, Double>> lastCounts = new HashMap<>();
  private long[] lastBuckets;
  private long lastLatencyCount = -1;
  private boolean started;
  private ScheduledExecutorService scheduler;

  /** The counters per family and the latency timer, found once (and again after meters changed). */
  private final Map<Family, List<Counter>> byFamily = new EnumMap<>(Family.class);

  private Timer latencyTimer;
  private List<Timer> hopTimers;
  private Map<String, Timed> lastHops = Map.of();
  private volatile boolean metersChanged = true;

  public StatsSampler(MeterRegistry registry, Clock clock, ConsoleProperties.Stats settings) {
    this(registry, clock, settings, ProcessCpu.platform());
  }

  /**
   * @param cpu the process's CPU time and the host's load, sampled with the counters (for the
   *     capacity model)
   */
  public StatsSampler(
      MeterRegistry registry, Clock clock, ConsoleProperties.Stats settings, ProcessCpu cpu) {
    this.registry = registry;
    this.cpu = cpu;
    registry
        .config()
        .onMeterAdded(m -> metersChanged = true)
        .onMeterRemoved(m -> metersChanged = true);
    this.clock = clock;
    this.settings = settings;
    this.capacity = (int) settings.retention().dividedBy(settings.interval());
  }

  /** Starts sampling on its own daemon thread. */
  public synchronized void start() {
    if (scheduler != null) {
      return;
    }
    scheduler = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("console-stats"));
    sample(); // baseline: the first interval starts now
    long every = settings.interval().toMillis();
    scheduler.scheduleAtFixedRate(
        () -> {
          try {
            sample();
          } catch (RuntimeException e) {
            log.warn("sampling statistics failed", e);
          }
        },
        every,
        every,
        TimeUnit.MILLISECONDS);
  }

  @Override
  public synchronized void close() {
    if (scheduler != null) {
      scheduler.shutdownNow();
    }
  }

  /** Takes one sample now (the scheduler calls it every interval). */
  synchronized void sample() {
    boolean baseline = !started;
    started = true;
    Map<Family, Map<String, Double>> deltas = new EnumMap<>(Family.class);
    for (Family f : Family.values()) {
      Map<String, Double> counts = counts(f);
      Map<String, Double> before = lastCounts.getOrDefault(f, Map.of());
      Map<String, Double> interval = new HashMap<>();
      counts.forEach(
          (series, count) -> {
            double prev = before.getOrDefault(series, 0.0);
            double delta =
                count >= prev
                    ? count - prev
                    : count; // a meter removed and registered again starts at 0
            if (delta > 0) {
              interval.merge(
                  interval.size() < settings.maxSeries() || interval.containsKey(series)
                      ? series
                      : OTHER,
                  delta,
                  Double::sum);
            }
          });
      lastCounts.put(f, counts);
      if (!interval.isEmpty()) {
        deltas.put(f, interval);
      }
    }
    Latency latency = latency();
    long now = System.nanoTime();
    long cpuNow = cpu.processCpuNanos();
    double hostLoad = cpu.hostLoad();
    long cpuDelta = cpuNow >= 0 && lastCpuNanos >= 0 ? Math.max(0, cpuNow - lastCpuNanos) : -1;
    long elapsed = now - lastNanos;
    lastNanos = now;
    lastCpuNanos = cpuNow;
    if (!baseline) {
      samples.addLast(
          new Sample(
              clock.millis(),
              deltas,
              latency.count,
              latency.p50,
              latency.p99,
              elapsed,
              cpuDelta,
              hostLoad,
              hops()));
      while (samples.size() > capacity) {
        samples.removeFirst();
      }
    } else {
      hops(); // the baseline of the hop timers
    }
  }

  private Map<String, Double> counts(Family f) {
    Map<String, Double> counts = new HashMap<>();
    for (Counter c : counters(f)) {
      String series = c.getId().getTag(f.tag);
      counts.merge(series == null ? OTHER : series, c.count(), Double::sum);
    }
    return counts;
  }

  /**
   * The counters of a family. Searching the registry walks every meter (JVM, Tomcat, pools…), so
   * the counters are looked up again only after meters were added or removed.
   */
  private List<Counter> counters(Family f) {
    if (metersChanged) {
      metersChanged = false;
      byFamily.clear();
      latencyTimer = null;
      hopTimers = null;
    }
    return byFamily.computeIfAbsent(f, k -> List.copyOf(registry.find(k.meter).counters()));
  }

  /** Per hop, per series: the events timed in the interval and their total time. */
  private Map<String, Map<String, Timed>> hops() {
    List<Timer> timers = hopTimers; // null again after meters changed (see counters)
    if (timers == null) {
      List<Timer> found = new ArrayList<>();
      for (String hop : HOPS) {
        found.addAll(registry.find("activity.hop." + hop).timers());
      }
      timers = List.copyOf(found);
      hopTimers = timers;
    }
    Map<String, Timed> now = new HashMap<>();
    Map<String, Map<String, Timed>> interval = new HashMap<>();
    for (Timer t : timers) {
      String hop = t.getId().getName().substring("activity.hop.".length());
      String channel = t.getId().getTag("channel");
      String series = channel == null ? "all" : channel;
      Timed total = new Timed(t.count(), t.totalTime(TimeUnit.MILLISECONDS));
      now.put(hop + '|' + series, total);
      Timed before = lastHops.getOrDefault(hop + '|' + series, new Timed(0, 0));
      long n = total.count() - before.count();
      if (n > 0) {
        interval
            .computeIfAbsent(hop, k -> new HashMap<>())
            .put(series, new Timed(n, total.totalMs() - before.totalMs()));
      }
    }
    lastHops = now;
    return interval;
  }

  private record Latency(long count, Double p50, Double p99) {}

  private Latency latency() {
    Timer timer = latencyTimer;
    if (timer == null) {
      timer = registry.find(LATENCY_METER).timer();
      latencyTimer = timer;
    }
    if (timer == null) {
      return new Latency(0, null, null);
    }
    if (timer.count() == lastLatencyCount && lastBuckets != null) {
      return new Latency(0, null, null); // nothing routed: no snapshot of the histogram's buckets
    }
    HistogramSnapshot snapshot = timer.takeSnapshot();
    CountAtBucket[] buckets = snapshot.histogramCounts();
    long[] cumulative = new long[buckets.length];
    for (int i = 0; i < buckets.length; i++) {
      cumulative[i] = (long) buckets[i].count();
    }
    long count = snapshot.count();
    long[] before = lastBuckets;
    long countBefore = lastLatencyCount;
    lastBuckets = cumulative;
    lastLatencyCount = count;
    if (before == null
        || before.length != cumulative.length
        || countBefore < 0
        || count < countBefore) {
      return new Latency(Math.max(0, count - Math.max(0, countBefore)), null, null);
    }
    long n = count - countBefore;
    if (n == 0 || buckets.length == 0) {
      return new Latency(n, null, null);
    }
    long[] interval = new long[cumulative.length];
    for (int i = 0; i < cumulative.length; i++) {
      interval[i] = cumulative[i] - before[i];
      if (interval[i] < 0) {
        return new Latency(
            n, null, null); // a decaying histogram (not Prometheus): no per-interval percentiles
      }
    }
    double[] boundsMs = new double[buckets.length];
    for (int i = 0; i < buckets.length; i++) {
      boundsMs[i] = buckets[i].bucket(TimeUnit.MILLISECONDS);
    }
    return new Latency(
        n,
        Percentiles.of(boundsMs, interval, n, 0.50),
        Percentiles.of(boundsMs, interval, n, 0.99));
  }

  /**
   * The samples of the last {@code window}, as columns.
   *
   * @param families the families to include (all when empty)
   */
  public synchronized Window window(Duration window, List<Family> families) {
    long from = clock.millis() - window.toMillis();
    List<Sample> in = new ArrayList<>();
    for (Sample s : samples) {
      if (s.epochMillis() > from) {
        in.add(s);
      }
    }
    List<Long> times = in.stream().map(Sample::epochMillis).toList();
    Map<String, Map<String, List<Double>>> series = new LinkedHashMap<>();
    Map<String, Map<String, Double>> totals = new LinkedHashMap<>();
    double seconds = settings.interval().toMillis() / 1000.0;
    for (Family f : families.isEmpty() ? List.of(Family.values()) : families) {
      Map<String, List<Double>> columns = new LinkedHashMap<>();
      Map<String, Double> total = new LinkedHashMap<>();
      for (int i = 0; i < in.size(); i++) {
        Map<String, Double> counts = in.get(i).counts().getOrDefault(f, Map.of());
        for (Map.Entry<String, Double> e : counts.entrySet()) {
          List<Double> column =
              columns.computeIfAbsent(
                  e.getKey(), k -> new ArrayList<>(Collections.nCopies(in.size(), 0.0)));
          column.set(i, e.getValue() / seconds);
          total.merge(e.getKey(), e.getValue(), Double::sum);
        }
      }
      series.put(f.key, columns);
      totals.put(f.key, total);
    }
    List<Double> p50 = in.stream().map(Sample::p50).toList();
    List<Double> p99 = in.stream().map(Sample::p99).toList();
    List<Long> routed = in.stream().map(Sample::latencyCount).toList();
    Map<String, Map<String, Timed>> sums = new HashMap<>();
    for (Sample sample : in) {
      sample
          .hops()
          .forEach(
              (hop, bySeries) ->
                  bySeries.forEach(
                      (k, t) ->
                          sums.computeIfAbsent(hop, x -> new HashMap<>())
                              .merge(
                                  k,
                                  t,
                                  (a, b) ->
                                      new Timed(
                                          a.count() + b.count(), a.totalMs() + b.totalMs()))));
    }
    Map<String, Map<String, Double>> hops = new LinkedHashMap<>();
    for (String hop : HOPS) {
      Map<String, Double> means = new TreeMap<>();
      sums.getOrDefault(hop, Map.of()).forEach((k, t) -> means.put(k, t.totalMs() / t.count()));
      hops.put(hop, means);
    }
    return new Window(times, series, totals, new LatencyColumns(p50, p99, routed), hops);
  }

  /**
   * What the capacity model reads over a window: the samples' measured time, the process's CPU time
   * and the host's mean load in it, and the events received per inbound channel kind and delivered
   * per target channel.
   *
   * @param seconds time the samples cover (0 when there are none yet)
   * @param cpuSeconds CPU time of this process in them, or -1 when any sample could not measure it
   * @param hostLoad the host's mean CPU load (0 to 1) over them, or NaN when not measurable
   * @param received inbound channel kind to events received
   * @param delivered target channel (redacted URI, or {@code other}) to deliveries accepted
   */
  public record Totals(
      double seconds,
      double cpuSeconds,
      double hostLoad,
      Map<String, Double> received,
      Map<String, Double> delivered,
      List<Point> points) {

    /** Totals without per-sample points (no fit of the other processes' load possible). */
    public Totals(
        double seconds,
        double cpuSeconds,
        double hostLoad,
        Map<String, Double> received,
        Map<String, Double> delivered) {
      this(seconds, cpuSeconds, hostLoad, received, delivered, List.of());
    }
  }

  /**
   * One sample of the window, for the capacity model's fit of the other processes' CPU against the
   * event rate.
   *
   * @param seconds the sample's measured length
   * @param received events received in it, all inbound kinds
   * @param cpuSeconds this process's CPU time in it, or -1 when not measurable
   * @param hostLoad the host's CPU load (0 to 1) at its end, or NaN when not measurable
   */
  public record Point(double seconds, double received, double cpuSeconds, double hostLoad) {}

  /** The totals of the last {@code window}, for the capacity model. */
  public synchronized Totals totals(Duration window) {
    long from = clock.millis() - window.toMillis();
    long nanos = 0;
    long cpuNanos = 0;
    boolean cpuKnown = true;
    double load = 0;
    int loads = 0;
    Map<String, Double> received = new LinkedHashMap<>();
    Map<String, Double> delivered = new LinkedHashMap<>();
    List<Point> points = new ArrayList<>();
    for (Sample s : samples) {
      if (s.epochMillis() <= from) {
        continue;
      }
      double in = 0;
      for (double v : s.counts().getOrDefault(Family.RECEIVED, Map.of()).values()) {
        in += v;
      }
      points.add(
          new Point(
              s.elapsedNanos() / 1e9,
              in,
              s.cpuNanos() < 0 ? -1 : s.cpuNanos() / 1e9,
              s.hostLoad()));
      nanos += s.elapsedNanos();
      if (s.cpuNanos() < 0) {
        cpuKnown = false;
      } else {
        cpuNanos += s.cpuNanos();
      }
      if (!Double.isNaN(s.hostLoad())) {
        load += s.hostLoad();
        loads++;
      }
      s.counts()
          .getOrDefault(Family.RECEIVED, Map.of())
          .forEach((k, v) -> received.merge(k, v, Double::sum));
      s.counts()
          .getOrDefault(Family.OUT, Map.of())
          .forEach((k, v) -> delivered.merge(k, v, Double::sum));
    }
    return new Totals(
        nanos / 1e9,
        cpuKnown ? cpuNanos / 1e9 : -1,
        loads == 0 ? Double.NaN : load / loads,
        received,
        delivered,
        List.copyOf(points));
  }

  /** Latency columns: milliseconds (null where no event completed) and the events counted. */
  public record LatencyColumns(
      @ArraySchema(schema = @Schema(types = {"number", "null"})) List<Double> p50,
      @ArraySchema(schema = @Schema(types = {"number", "null"})) List<Double> p99,
      List<Long> count) {}

  /**
   * Samples as columns.
   *
   * @param times end of each interval, epoch milliseconds
   * @param series per family: series to events per second, one value per time
   * @param totals per family: series to events in the window
   * @param latency routing latency per interval
   * @param hops per hop ({@code transport}, {@code ingest}, {@code route}, {@code parked}, {@code
   *     send}): series (the inbound or target scheme, or {@code all}) to the mean milliseconds of
   *     the events timed in the window
   */
  public record Window(
      List<Long> times,
      Map<String, Map<String, List<Double>>> series,
      Map<String, Map<String, Double>> totals,
      LatencyColumns latency,
      Map<String, Map<String, Double>> hops) {}
}
