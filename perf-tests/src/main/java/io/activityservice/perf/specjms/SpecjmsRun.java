package io.activityservice.perf.specjms;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.activityservice.perf.cpu.CpuMeter;
import io.activityservice.perf.service.ServiceApi;
import io.activityservice.perf.specjms.Workload.Group;
import io.activityservice.perf.specjms.Workload.Message;
import io.activityservice.perf.specjms.Workload.Role;
import io.activityservice.perf.suite.Legs;
import io.activityservice.perf.transport.EventSender;
import io.activityservice.perf.transport.JmsSessionTransport;
import io.activityservice.perf.transport.Listener;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * One SPECjms2007 run through the service: the supply chain's locations mapped onto the service's
 * transports, an open-loop paced driver per interaction, warm-up, measurement and drain, and the
 * audit of Table 5.8.
 *
 * <p>Mapping: supermarkets send on an SQS queue and receive on one SQS queue each; distribution
 * centres send on a JMS queue and receive on one JMS queue each; headquarters send on a Kafka topic
 * and receive on one Kafka topic each; suppliers (external companies) post to the REST API and
 * receive through webhooks. Every message is a CloudEvent of type {@code specjms.<message>} with
 * the destination location in {@code subject} (jms2009-PS's "message type + target location"
 * destinations, with patterns in the selectors' role); the HQ topics (priceUpdate,
 * productAnnouncement, creditCardHL) reach every supermarket through one subscription per
 * supermarket, and callForOffers reaches the suppliers of its product family through one pattern
 * subscription per supplier ({@code data.family} in the families it offers).
 *
 * <p>Simplification: an interaction's messages are sent together when the interaction fires (by the
 * locations that send them in the thesis), not each on receipt of the previous one; counts and
 * rates per interaction are the thesis's, the chain's latency is not.
 */
public final class SpecjmsRun {

  /** A send started this late counts as a pacing miss. */
  static final long MISS_NANOS = Duration.ofMillis(10).toNanos();

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The phases.
   *
   * @param warmup at the configured rate, not measured
   * @param measure the measurement period the audit reads
   * @param drain drivers stopped, backlogs clear; the run waits at most this long for the rest
   */
  public record Phases(Duration warmup, Duration measure, Duration drain) {}

  /**
   * A run's outcome.
   *
   * @param workload the workload
   * @param rules the audit
   * @param sentPerSecond messages sent per second in the measurement period
   * @param deliveredPerSecond deliveries received per second in it
   * @param cpuMicrosPerDelivery CPU µs per delivery in the measurement period, per process
   * @param capacity the service's {@code GET /api/v1/capacity} at the end of the measurement (null
   *     if it could not be read)
   * @param refused the pre-audit's reason for not starting, or null
   * @param groups per message group a–d, what the measurement period's messages did
   * @param executions executions started in the measurement period, all interactions run
   * @param deliveries deliveries received in the measurement period
   * @param cpuNanos CPU nanoseconds per source over the measurement period (empty without a meter)
   * @param seconds length of the measurement period
   * @param configuredIdle CPU ms per second per source with the run's channels, subscriptions and
   *     clients in place but nothing sent (read only when one interaction runs alone; else empty)
   */
  public record Result(
      Workload workload,
      List<Audit.Rule> rules,
      double sentPerSecond,
      double deliveredPerSecond,
      Map<String, Double> cpuMicrosPerDelivery,
      JsonNode capacity,
      String refused,
      List<GroupReport> groups,
      long executions,
      long deliveries,
      Map<String, Long> cpuNanos,
      double seconds,
      Map<String, Double> configuredIdle) {
    /** Whether the audit passed. */
    public boolean passed() {
      return refused == null && Audit.passed(rules);
    }
  }

  /**
   * One message group's share of a run's measurement period.
   *
   * @param group a–d
   * @param sent messages of the group sent
   * @param predictedReceived deliveries the workload predicts for the period
   * @param received deliveries of those messages received by the end of the drain
   * @param p90Ms 90th percentile of their delivery time (NaN without deliveries)
   * @param producers how each sending transport honoured the group
   */
  public record GroupReport(
      Group group,
      long sent,
      double predictedReceived,
      long received,
      double p90Ms,
      String producers) {}

  private record Sent(int interaction, Group group, long intended, boolean measured, int copies) {}

  private final Workload w;
  private final Legs legs;
  private final ServiceApi api;
  private final CpuMeter cpu;
  private final String prefix;
  private final Map<String, Sent> sent = new ConcurrentHashMap<>();
  private final Set<String> delivered = ConcurrentHashMap.newKeySet();
  private final Map<String, ConcurrentHistogram> latency = new ConcurrentHashMap<>();
  private final LongAdder[] receivedMeasured = adders();
  private final LongAdder[] sentMeasured = adders();
  private final LongAdder[] executions = adders();
  private final LongAdder[] misses = adders();
  private final Map<Group, LongAdder> sentByGroup = new EnumMap<>(Group.class);
  private final Map<Group, LongAdder> receivedByGroup = new EnumMap<>(Group.class);
  private final Map<Group, ConcurrentHistogram> latencyByGroup = new EnumMap<>(Group.class);
  private final int only;
  private final AtomicLong deliveriesInWindow = new AtomicLong();
  private final AtomicInteger leftovers = new AtomicInteger();
  private final List<String> leftoverWhere = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final AtomicLong seq = new AtomicLong();
  private final AtomicLong families = new AtomicLong();
  private volatile long measureFrom = Long.MAX_VALUE;
  private volatile long measureTo = Long.MAX_VALUE;
  private volatile boolean preAudit = true;
  private final Map<String, EventSender> senders = new ConcurrentHashMap<>();
  private final Map<Role, String> honoured = new EnumMap<>(Role.class);

  /**
   * The locations' agents: they send an execution's follow-up messages, as SPECjms's event handlers
   * do, so that a driver thread sends only the message that starts its interaction.
   */
  private final java.util.concurrent.ExecutorService agents =
      Executors.newFixedThreadPool(
          4,
          r -> {
            Thread t = new Thread(r, "specjms-agent");
            t.setDaemon(true);
            return t;
          });

  /** The sends of the execution being built on this driver thread, after its first. */
  private final ThreadLocal<List<Runnable>> followUps = new ThreadLocal<>();

  private final List<Listener> listeners = new ArrayList<>();
  private HttpServer webhooks;

  /**
   * @param prefix names every destination (fixed per topology and run number, so that leftovers of
   *     an earlier, interrupted run are found by the pre-audit)
   */
  public SpecjmsRun(Workload w, Legs legs, ServiceApi api, CpuMeter cpu, String prefix) {
    this(w, legs, api, cpu, prefix, 0);
  }

  /**
   * @param only run interaction {@code only} (1–7) alone, its rate as configured; 0 runs all
   */
  public SpecjmsRun(Workload w, Legs legs, ServiceApi api, CpuMeter cpu, String prefix, int only) {
    if (only < 0 || only > 7) {
      throw new IllegalArgumentException("interaction " + only + ": 1 to 7, or 0 for all");
    }
    this.only = only;
    for (Group g : Group.values()) {
      sentByGroup.put(g, new LongAdder());
      receivedByGroup.put(g, new LongAdder());
      latencyByGroup.put(g, new ConcurrentHistogram(3_600_000_000L, 2));
    }
    this.w = w;
    this.legs = legs;
    this.api = api;
    this.cpu = cpu;
    this.prefix = prefix;
  }

  private static LongAdder[] adders() {
    LongAdder[] a = new LongAdder[8];
    for (int i = 0; i < a.length; i++) {
      a[i] = new LongAdder();
    }
    return a;
  }

  private static String id(Role r, int i) {
    return r.name().toLowerCase(Locale.ROOT) + i;
  }

  /** Sets up, runs the phases, audits; the service's configuration is removed afterwards. */
  public Result run(Phases phases, java.io.PrintStream progress) throws Exception {
    try {
      listen();
      // Pre-audit: nothing may arrive on a destination before anything was sent.
      Thread.sleep(3000);
      preAudit = false;
      if (leftovers.get() > 0) {
        return new Result(
            w,
            List.of(),
            0,
            0,
            Map.of(),
            null,
            "pre-audit: "
                + leftovers.get()
                + " leftover messages on "
                + leftoverWhere.stream().distinct().toList()
                + "; empty them (or use new destinations) and run again",
            List.of(),
            0,
            0,
            Map.of(),
            0,
            Map.of());
      }
      configureService();
      openSenders();
      progress.printf(
          Locale.ROOT,
          "specjms: %s BASE %d: %d SM, %d DC, %d SP, %d HQ, ζ %.2f; predicted %.1f sent/s, %.1f"
              + " received/s with every interaction%s%n",
          w.topology(),
          w.base(),
          w.supermarkets(),
          w.distributionCentres(),
          w.suppliers(),
          w.headquarters(),
          w.zeta(),
          w.totals()[0],
          w.totals()[1],
          only == 0 ? "" : "; running interaction " + only + " alone");
      Map<String, Double> idle = Map.of();
      if (only != 0 && cpu != null) {
        // The service's CPU with this run's inbound channels, subscriptions and consumers in place
        // but nothing sent: their polling loops cost CPU per second, not per message.
        CpuMeter.Snapshot a = cpu.snapshot();
        Thread.sleep(CONFIGURED_IDLE.toMillis());
        idle = io.activityservice.perf.cpu.CpuCost.rates(a, cpu.snapshot());
      }
      return drive(phases, progress, idle);
    } finally {
      close();
    }
  }

  private void listen() throws Exception {
    webhooks = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    webhooks.setExecutor(Executors.newFixedThreadPool(4));
    webhooks.createContext(
        "/sp/",
        exchange -> {
          try (InputStream body = exchange.getRequestBody()) {
            byte[] bytes = body.readAllBytes();
            long now = System.nanoTime();
            String id = exchange.getRequestHeaders().getFirst("ce-id");
            if (id == null) {
              JsonNode json = JSON.readTree(bytes);
              id = json.path("id").asText(null);
            }
            String dest = exchange.getRequestURI().getPath().substring("/sp/".length());
            if (id != null) {
              received("sp" + dest, id, now);
            }
            exchange.sendResponseHeaders(204, -1);
          } catch (IOException | RuntimeException e) {
            exchange.sendResponseHeaders(500, -1);
          } finally {
            exchange.close();
          }
        });
    webhooks.start();
    for (int i = 0; i < w.supermarkets(); i++) {
      String d = id(Role.SM, i);
      listeners.add(legs.listen(destination(Role.SM, i), prefix, (id, t) -> received(d, id, t)));
    }
    boolean dcTransacted = receivesOnlyTransacted(Role.DC);
    for (int i = 0; i < w.distributionCentres(); i++) {
      String d = id(Role.DC, i);
      listeners.add(
          JmsSessionTransport.listen(
              legs.jmsBrokerUrl(),
              queueName(destination(Role.DC, i)),
              dcTransacted,
              (id, t) -> received(d, id, t)));
    }
    for (int i = 0; i < w.headquarters(); i++) {
      String d = id(Role.HQ, i);
      listeners.add(legs.listen(destination(Role.HQ, i), prefix, (id, t) -> received(d, id, t)));
    }
  }

  private final Map<String, String> destinations = new ConcurrentHashMap<>();

  /** Whether every message type a role receives is in a transactional group (b, d). */
  static boolean receivesOnlyTransacted(Role r) {
    return Workload.MESSAGES.stream()
        .filter(m -> m.to() == r)
        .allMatch(m -> GroupSettings.of(m.group()).transacted());
  }

  private static String queueName(String jmsUri) {
    String name = jmsUri.substring("jms:queue:".length());
    int q = name.indexOf('?');
    return q < 0 ? name : name.substring(0, q);
  }

  /** The channel a location receives on. */
  private String destination(Role r, int i) throws Exception {
    String key = id(r, i);
    String known = destinations.get(key);
    if (known != null) {
      return known;
    }
    String uri =
        switch (r) {
          case SM -> legs.uri("sqs", prefix + "-" + key);
          case DC -> "jms:queue:" + prefix.replace('-', '.') + "." + key;
          case HQ -> legs.uri("kafka", prefix + "-" + key);
          case SP -> "http://127.0.0.1:" + webhooks.getAddress().getPort() + "/sp/" + i;
        };
    destinations.put(key, uri);
    return uri;
  }

  /** The channel a role's locations send on (the service's inbound channel), or rest. */
  private String outbox(Role r) throws Exception {
    return switch (r) {
      case SM -> legs.uri("sqs", prefix + "-sm-out");
      case DC -> "jms:queue:" + prefix.replace('-', '.') + ".dc.out";
      case HQ -> legs.uri("kafka", prefix + "-hq-out");
      case SP -> "rest";
    };
  }

  private void configureService() throws Exception {
    for (Role r : List.of(Role.SM, Role.DC, Role.HQ)) {
      api.addInbound(outbox(r));
    }
    for (Role r : Role.values()) {
      List<String> queueTypes = new ArrayList<>();
      List<String> topicTypes = new ArrayList<>();
      Set<Group> queueGroups = java.util.EnumSet.noneOf(Group.class);
      Set<Group> topicGroups = java.util.EnumSet.noneOf(Group.class);
      for (Message m : Workload.MESSAGES) {
        if (m.to() == r && !m.name().equals("callForOffers")) {
          (m.topic() ? topicTypes : queueTypes).add("specjms." + m.name());
          (m.topic() ? topicGroups : queueGroups).add(m.group());
        }
      }
      for (int i = 0; i < w.count(r); i++) {
        String target = destination(r, i);
        if (!queueTypes.isEmpty()) {
          // Non-persistent delivery where the target is JMS and carries only groups a/c.
          api.subscribe(
              prefix + "-" + id(r, i),
              null,
              GroupSettings.serviceTarget(target, queueGroups),
              Map.of("pattern", Map.of("type", queueTypes, "subject", List.of(id(r, i)))));
        }
        if (!topicTypes.isEmpty()) {
          api.subscribe(
              prefix + "-" + id(r, i) + "-topics",
              null,
              GroupSettings.serviceTarget(target, topicGroups),
              Map.of("pattern", Map.of("type", topicTypes)));
        }
        if (r == Role.SP) {
          api.subscribe(
              prefix + "-" + id(r, i) + "-offers",
              null,
              target,
              Map.of(
                  "pattern",
                  Map.of(
                      "type",
                      List.of("specjms.callForOffers"),
                      "data",
                      Map.of("family", w.familiesOfSupplier().get(i)))));
        }
      }
    }
  }

  /**
   * One sender per role and group it sends: the distribution centres' JMS producers and the
   * headquarters' Kafka producers honour the group ({@link GroupSettings}); SQS and REST have
   * nothing to choose, so supermarkets and suppliers use one sender for every group.
   */
  private void openSenders() throws Exception {
    for (Role r : Role.values()) {
      Set<Group> groups = java.util.EnumSet.noneOf(Group.class);
      for (Message m : Workload.MESSAGES) {
        if (m.from() == r) {
          groups.add(m.group());
        }
      }
      List<String> how = new ArrayList<>();
      for (Group g : groups) {
        GroupSettings gs = GroupSettings.of(g);
        String key = r + "/" + g;
        switch (r) {
          case DC -> {
            senders.put(
                key,
                JmsSessionTransport.sender(
                    legs.jmsBrokerUrl(), queueName(outbox(r)), gs.persistent(), gs.transacted()));
            how.add(g + ": JMS " + gs.honouredOn("jms"));
          }
          case HQ -> {
            String topic = outbox(r).substring("kafka:".length());
            try {
              senders.put(
                  key,
                  legs.kafkaSender(
                      topic, gs.kafkaProducer(gs.transacted() ? prefix + "-hq-" + g : null)));
              how.add(g + ": Kafka " + gs.honouredOn("kafka"));
            } catch (RuntimeException e) {
              // A broker without a transaction log (an external single broker with the default
              // replication factor 3): persistent and idempotent, but no transaction.
              senders.put(key, legs.kafkaSender(topic, gs.kafkaProducer(null)));
              how.add(
                  g
                      + ": Kafka acks=all, idempotent, NO transaction (the broker refused one: "
                      + e.getClass().getSimpleName()
                      + ")");
            }
          }
          case SM -> {
            senders.computeIfAbsent(r.name(), x -> legs.sender(uncheckedOutbox(r)));
            senders.put(key, senders.get(r.name()));
            how.add(g + ": " + gs.honouredOn("sqs"));
          }
          case SP -> {
            senders.computeIfAbsent(r.name(), x -> legs.sender("rest"));
            senders.put(key, senders.get(r.name()));
            how.add(g + ": " + gs.honouredOn("rest"));
          }
        }
      }
      honoured.put(r, String.join("; ", how));
    }
  }

  private String uncheckedOutbox(Role r) {
    try {
      return outbox(r);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private void received(String destination, String id, long now) {
    if (preAudit) {
      leftovers.incrementAndGet();
      leftoverWhere.add(destination);
      return;
    }
    Sent s = sent.get(id);
    if (s == null || !delivered.add(id + "@" + destination)) {
      return; // not ours, or a duplicate (counted once)
    }
    if (now >= measureFrom && now < measureTo) {
      deliveriesInWindow.incrementAndGet();
    }
    if (s.measured()) {
      receivedMeasured[s.interaction()].increment();
      receivedByGroup.get(s.group()).increment();
      latencyByGroup.get(s.group()).recordValue(Math.max(0, (now - s.intended()) / 1000));
      latency
          .computeIfAbsent(destination, k -> new ConcurrentHistogram(3_600_000_000L, 2))
          .recordValue(Math.max(0, (now - s.intended()) / 1000));
    }
  }

  /** How long a solo run reads the configured service's idle CPU before it sends anything. */
  public static final Duration CONFIGURED_IDLE = Duration.ofSeconds(3);

  private Result drive(Phases phases, java.io.PrintStream progress, Map<String, Double> idle)
      throws Exception {
    long start = System.nanoTime() + Duration.ofMillis(200).toNanos();
    measureFrom = start + phases.warmup().toNanos();
    measureTo = measureFrom + phases.measure().toNanos();
    List<Thread> drivers = new ArrayList<>();
    for (int i = 1; i <= 7; i++) {
      double rate = w.rate(i);
      if (rate <= 0 || (only != 0 && i != only)) {
        continue;
      }
      int interaction = i;
      Thread t = new Thread(() -> pace(interaction, rate, start), "specjms-driver-I" + i);
      t.setDaemon(true);
      t.start();
      drivers.add(t);
    }
    progress.printf(
        Locale.ROOT,
        "specjms: warm-up %ds, measurement %ds, drain up to %ds%n",
        phases.warmup().toSeconds(),
        phases.measure().toSeconds(),
        phases.drain().toSeconds());
    LockSupport.parkNanos(measureFrom - System.nanoTime());
    CpuMeter.Snapshot before = cpu == null ? null : cpu.snapshot();
    LockSupport.parkNanos(measureTo - System.nanoTime());
    CpuMeter.Snapshot after = cpu == null ? null : cpu.snapshot();
    JsonNode capacity = api.getJson("/api/v1/capacity");
    for (Thread t : drivers) {
      t.join(10_000);
    }
    long expected = expectedDeliveries();
    long drainUntil = System.nanoTime() + phases.drain().toNanos();
    while (delivered.size() < expected && System.nanoTime() < drainUntil) {
      Thread.sleep(100);
    }
    double seconds = phases.measure().toNanos() / 1e9;
    List<Audit.InteractionCounts> counts = new ArrayList<>();
    Map<Integer, double[]> predicted = w.predicted();
    for (int i = 1; i <= 7; i++) {
      double rate = w.rate(i);
      if (rate <= 0 || (only != 0 && i != only)) {
        continue;
      }
      counts.add(
          new Audit.InteractionCounts(
              i,
              rate,
              executions[i].sum(),
              misses[i].sum(),
              predicted.get(i)[0] * seconds,
              sentMeasured[i].sum(),
              predicted.get(i)[1] * seconds,
              receivedMeasured[i].sum()));
    }
    Map<String, Double> p90 = new TreeMap<>();
    latency.forEach((d, h) -> p90.put(d, h.getValueAtPercentile(90) / 1000.0));
    List<Audit.Rule> rules = Audit.rules(seconds, counts, p90, expected, delivered.size());
    long sentInWindow = 0;
    for (int i = 1; i <= 7; i++) {
      sentInWindow += sentMeasured[i].sum();
    }
    Map<String, Double> cpuPerDelivery = new LinkedHashMap<>();
    Map<String, Long> cpuNanos = new LinkedHashMap<>();
    long windowDeliveries = deliveriesInWindow.get();
    if (before != null && after != null) {
      after
          .cpuNanos()
          .forEach(
              (source, ns) -> {
                Long b = before.cpuNanos().get(source);
                if (b != null) {
                  cpuNanos.put(source, ns - b);
                  if (windowDeliveries > 0) {
                    cpuPerDelivery.put(source, (ns - b) / 1000.0 / windowDeliveries);
                  }
                }
              });
    }
    long executed = 0;
    for (int i = 1; i <= 7; i++) {
      executed += executions[i].sum();
    }
    return new Result(
        w,
        rules,
        sentInWindow / seconds,
        windowDeliveries / seconds,
        cpuPerDelivery,
        capacity,
        null,
        groupReports(seconds),
        executed,
        windowDeliveries,
        cpuNanos,
        seconds,
        idle);
  }

  private List<GroupReport> groupReports(double seconds) {
    Map<Group, Double> predicted = new EnumMap<>(Group.class);
    Map<Group, Set<Role>> from = new EnumMap<>(Group.class);
    for (Message m : Workload.MESSAGES) {
      if (only == 0 || m.interaction() == only) {
        predicted.merge(
            m.group(), w.rate(m.interaction()) * w.receivedPerExecution(m) * seconds, Double::sum);
        from.computeIfAbsent(m.group(), g -> java.util.EnumSet.noneOf(Role.class)).add(m.from());
      }
    }
    List<GroupReport> out = new ArrayList<>();
    for (Group g : Group.values()) {
      if (!predicted.containsKey(g)) {
        continue;
      }
      ConcurrentHistogram h = latencyByGroup.get(g);
      List<String> how = new ArrayList<>();
      for (Role r : from.get(g)) {
        String all = honoured.getOrDefault(r, "");
        for (String part : all.split("; ")) {
          if (part.startsWith(g + ": ")) {
            how.add(r + " " + part.substring(3));
          }
        }
      }
      out.add(
          new GroupReport(
              g,
              sentByGroup.get(g).sum(),
              predicted.get(g),
              receivedByGroup.get(g).sum(),
              h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(90) / 1000.0,
              String.join("; ", how)));
    }
    return out;
  }

  private long expectedDeliveries() {
    long n = 0;
    for (Sent s : sent.values()) {
      n += s.copies();
    }
    return n;
  }

  /**
   * The open-loop driver of one interaction: executions every 1/rate, never waiting for replies.
   */
  private void pace(int interaction, double rate, long start) {
    long period = (long) (1e9 / rate);
    // Spread the interactions' phases so they do not all fire at once.
    long next = start + ThreadLocalRandom.current().nextLong(period);
    while (next < measureTo) {
      long wait = next - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
      boolean measured = next >= measureFrom && next < measureTo;
      if (measured) {
        executions[interaction].increment();
        if (System.nanoTime() - next > MISS_NANOS) {
          misses[interaction].increment();
        }
      }
      try {
        execute(interaction, next, measured);
      } catch (RuntimeException e) {
        // counted as missing deliveries by the audit
      }
      next += period;
    }
  }

  /**
   * Sends the first message of one execution of an interaction on the driver's thread and hands the
   * rest to the agents.
   */
  private void execute(int interaction, long intended, boolean measured) {
    List<Runnable> sends = new ArrayList<>();
    followUps.set(sends);
    try {
      compose(interaction, intended, measured);
    } finally {
      followUps.remove();
    }
    if (!sends.isEmpty()) {
      sends.get(0).run();
    }
    if (sends.size() > 1) {
      List<Runnable> rest = sends.subList(1, sends.size());
      agents.execute(() -> rest.forEach(Runnable::run));
    }
  }

  /** The messages of one execution of an interaction, in the order the chain sends them. */
  private void compose(int interaction, long intended, boolean measured) {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    int sm = r.nextInt(w.supermarkets());
    int dc = sm * w.distributionCentres() / w.supermarkets();
    int hq = r.nextInt(w.headquarters());
    switch (interaction) {
      case 1 -> {
        send("order", Role.SM, sm, Role.DC, dc, -1, intended, measured);
        send("orderConf", Role.DC, dc, Role.SM, sm, -1, intended, measured);
        send("shipDep", Role.DC, dc, Role.DC, dc, -1, intended, measured);
        send("statInfoOrderDC", Role.DC, dc, Role.HQ, hq, -1, intended, measured);
        send("shipInfo", Role.DC, dc, Role.SM, sm, -1, intended, measured);
        send("shipConf", Role.SM, sm, Role.DC, dc, -1, intended, measured);
      }
      case 2 -> {
        int d = r.nextInt(w.distributionCentres());
        // Families in turn, not at random: the offers per execution then average ζ over every Π
        // executions, so a short measurement meets the ±5 % count rule.
        int family = (int) (families.getAndIncrement() % w.productFamilies());
        List<Integer> offering = new ArrayList<>();
        for (int p = 0; p < w.suppliers(); p++) {
          if (w.familiesOfSupplier().get(p).contains(family)) {
            offering.add(p);
          }
        }
        send("callForOffers", Role.DC, d, Role.SP, -1, family, intended, measured, offering.size());
        for (int p : offering) {
          send("offer", Role.SP, p, Role.DC, d, family, intended, measured);
        }
        if (!offering.isEmpty()) {
          int p = offering.get(r.nextInt(offering.size()));
          send("pOrder", Role.DC, d, Role.SP, p, family, intended, measured);
          send("pOrderConf", Role.SP, p, Role.DC, d, family, intended, measured);
          send("invoice", Role.SP, p, Role.HQ, hq, family, intended, measured);
          send("pShipInfo", Role.SP, p, Role.DC, d, family, intended, measured);
          send("pShipConf", Role.DC, d, Role.SP, p, family, intended, measured);
        }
        send("statInfoShipDC", Role.DC, d, Role.HQ, hq, -1, intended, measured);
      }
      case 3 -> topic("priceUpdate", hq, intended, measured);
      case 4 -> send("inventoryInfo", Role.SM, sm, Role.SM, sm, -1, intended, measured);
      case 5 -> send("statInfoSM", Role.SM, sm, Role.HQ, hq, -1, intended, measured);
      case 6 -> topic("productAnnouncement", hq, intended, measured);
      case 7 -> topic("creditCardHL", hq, intended, measured);
      default -> throw new IllegalArgumentException("interaction " + interaction);
    }
  }

  private void topic(String name, int hq, long intended, boolean measured) {
    send(name, Role.HQ, hq, Role.SM, -1, -1, intended, measured, w.supermarkets());
  }

  private void send(
      String name,
      Role from,
      int fromIndex,
      Role to,
      int toIndex,
      int family,
      long intended,
      boolean measured) {
    send(name, from, fromIndex, to, toIndex, family, intended, measured, 1);
  }

  private static final Map<String, Message> BY_NAME = new LinkedHashMap<>();

  static {
    for (Message m : Workload.MESSAGES) {
      BY_NAME.put(m.name(), m);
    }
  }

  private void send(
      String name,
      Role from,
      int fromIndex,
      Role to,
      int toIndex,
      int family,
      long intended,
      boolean measured,
      int copies) {
    Message m = BY_NAME.get(name);
    String id = prefix + "-" + seq.incrementAndGet();
    int bytes = m.bytes(ThreadLocalRandom.current().nextDouble());
    String head = "{\"family\":" + family + ",\"payload\":\"";
    int fill = Math.max(1, bytes - head.length() - 2);
    byte[] data = (head + "x".repeat(fill) + "\"}").getBytes(StandardCharsets.UTF_8);
    CloudEventBuilder b =
        CloudEventBuilder.v1()
            .withId(id)
            .withSource(URI.create("/specjms/" + id(from, fromIndex)))
            .withType("specjms." + name)
            .withDataContentType("application/json")
            .withData(data);
    if (toIndex >= 0) {
      b.withSubject(id(to, toIndex));
    }
    CloudEvent event = b.build();
    sent.put(id, new Sent(m.interaction(), m.group(), intended, measured, copies));
    if (measured) {
      sentMeasured[m.interaction()].increment();
      sentByGroup.get(m.group()).increment();
    }
    EventSender sender = senders.get(from + "/" + m.group());
    followUps.get().add(() -> sender.send(event));
  }

  private void close() {
    agents.shutdownNow();
    for (EventSender s : new java.util.HashSet<>(senders.values())) {
      s.close();
    }
    for (Listener l : listeners) {
      l.close();
    }
    if (webhooks != null) {
      webhooks.stop(0);
      ((java.util.concurrent.ExecutorService) webhooks.getExecutor()).shutdownNow();
    }
    api.cleanUp();
  }
}
