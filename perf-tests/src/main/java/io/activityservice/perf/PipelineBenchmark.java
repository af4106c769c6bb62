package io.activityservice.perf;

import io.activityservice.channel.Acknowledgement;
import io.activityservice.channel.ChannelAdapter;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundHandler;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.OutboundEvent;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.delivery.DeliveryMetrics;
import io.activityservice.events.delivery.DeliverySettings;
import io.activityservice.events.delivery.DeliveryStore;
import io.activityservice.events.delivery.DurableDelivery;
import io.activityservice.events.ingest.EventIngest;
import io.activityservice.events.ingest.InboundChannelDefinition;
import io.activityservice.events.ingest.InboundChannelRepository;
import io.activityservice.events.ingest.InboundChannels;
import io.activityservice.events.json.Json;
import io.activityservice.events.registry.EventRegistry;
import io.activityservice.events.registry.EventTypeRepository;
import io.activityservice.events.registry.UnregisteredTypePolicy;
import io.activityservice.events.routing.DuplicateFilter;
import io.activityservice.events.routing.EventRouter;
import io.activityservice.events.routing.RoutingMetrics;
import io.activityservice.events.schema.EventsSchema;
import io.activityservice.events.schema.ModuleMigrations;
import io.activityservice.events.subscription.DeliveryOptions;
import io.activityservice.events.subscription.RetryPolicy;
import io.activityservice.events.subscription.Subscription;
import io.activityservice.events.subscription.SubscriptionIndex;
import io.activityservice.events.transform.CompiledTransform;
import io.activityservice.events.transform.Transform;
import io.activityservice.events.transform.TransformLimits;
import io.activityservice.perf.transport.PerfEvents;
import io.cloudevents.CloudEvent;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The in-process pipeline of one relayed event, as the service wires it (issue 20): an inbound
 * channel hands a decoded CloudEvent to the core ({@code InboundChannels}' handler) → ingest
 * (attribute bounds, {@code time}, the JSON view, registry check) → dedup → route (Event Ruler
 * match) → durable delivery to a no-op outbound channel → settlement → the inbound acknowledgement.
 * No transport: the adapter is an in-memory one whose outbound {@code send} completes at once, so
 * the figure is the core's own cost per event, on one thread, synchronously.
 *
 * <p>The events are the perf suite's ({@link PerfEvents}: ~1 KiB JSON data as bytes, as a
 * binary-mode Kafka or JMS message arrives, no {@code time}, one extension), each with a distinct
 * id, from a ring larger than the dedup filter's bound (so every event is new and the filter is
 * full, as in a busy service). Subscriptions as the suite creates them: one per scenario on its
 * event type, {@value #OTHER_SUBSCRIPTIONS} others on other types. With {@code pattern=data} the
 * matching subscription also constrains {@code data.value}, so the data must be parsed.
 *
 * <p>Settings are the service's defaults (dedup window 10 min and 200,000 entries, 10,000 events in
 * flight, park-after 1 s). Every iteration checks that each event was sent once and acknowledged
 * once (no duplicate dropped, no nack), so a broken pipeline cannot pass for a fast one.
 *
 * <p>Run: {@code perf-tests/jmh-pipeline.sh} (writes {@code perf-tests/target/jmh/pipeline.json},
 * the file the suite's target table reads); {@code gc.alloc.rate.norm} is bytes allocated per
 * event, {@code cpu.process.norm} ({@link ProcessCpuProfiler}) the process's CPU time per event, GC
 * and JIT threads included.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx2g"})
public class PipelineBenchmark {

  static final String TYPE = "com.example.perf.relay";
  static final int OTHER_SUBSCRIPTIONS = 10;

  /** Distinct events: more than the dedup filter remembers (200,000), so none is a duplicate. */
  static final int RING = 1 << 18;

  /**
   * {@code type}: the relay's subscription selects the event type only; {@code data}: also a data
   * field.
   */
  @Param({"type", "data"})
  public String pattern;

  /**
   * Tracing (issue 23): {@code off} (no tracer: {@code EventTracing.NONE}, the service without an
   * exporter), or the OpenTelemetry SDK with a {@code parentbased_traceidratio} sampler of this
   * ratio ({@code 0}, {@code 0.1}, {@code 1}) and the service's OTLP/HTTP exporter batching to a
   * local sink ({@link TracingSink}), so export and serialization count in {@code
   * cpu.process.norm}. The events carry no {@code traceparent}, so the ratio decides.
   */
  @Param({"off"})
  public String tracing;

  private TracingSink tracingSink;

  /**
   * The per-hop timers ({@code activity.hop.*}, issue 23): {@code on} as the service records them,
   * every inbound message carrying a transport send time (as JMS, SQS and Kafka messages do) so the
   * transport wait is recorded too; {@code off} with the timers denied by a Micrometer {@code
   * MeterFilter} (no-op timers: what remains is the {@code System.nanoTime()} reads around the
   * steps) and no send time. The timers' own cost per event is the difference ({@code -p
   * hops=on,off}). Only {@code on} runs by default.
   */
  @Param({"on"})
  public String hops;

  /**
   * {@code none}: the relay's subscription delivers the event as it is (the suite's figure); {@code
   * jsonata}: it reshapes each event with a typical JSONata transformation ({@value
   * #TRANSFORM_DATA}, and a new {@code type}) before delivery — the transformation's cost per event
   * is the difference. Only {@code none} runs by default; {@code -p transform=none,jsonata} runs
   * both.
   */
  @Param({"none"})
  public String transform;

  /** A typical reshaping: a few fields picked and renamed, one computed. */
  static final String TRANSFORM_DATA =
      "{'reading': data.value, 'size': $length(data.payload), 'unit': 'kWh', 'at': time, 'source': source}";

  private final NoOpAdapter adapter = new NoOpAdapter();
  private final CountingAck ack = new CountingAck();
  private CloudEvent[] events;
  private int next;
  private DurableDelivery delivery;
  private InboundChannels inbound;
  private ChannelRegistry channels;
  private long sentBefore;
  private long ackedBefore;
  private int nextBefore;

  @Setup(Level.Trial)
  public void setUp() {
    DataSource db = h2();
    JdbcClient jdbc = JdbcClient.create(db);
    Clock clock = Clock.systemUTC();
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    if (hops.equals("off")) {
      meters.config().meterFilter(MeterFilter.denyNameStartsWith("activity.hop."));
    } else {
      ack.sentAtMillis = System.currentTimeMillis();
    }
    channels = new ChannelRegistry(List.of(adapter));
    SubscriptionIndex index = new SubscriptionIndex();
    OffsetDateTime now = OffsetDateTime.now();
    String relayPattern =
        pattern.equals("data")
            ? "{\"type\": [\"" + TYPE + "\"], \"data\": {\"value\": [1]}}"
            : "{\"type\": [\"" + TYPE + "\"]}";
    subscribe(
        index,
        jdbc,
        "relay",
        relayPattern,
        "noop:out",
        now,
        transform.equals("jsonata")
            ? new Transform(TRANSFORM_DATA, Map.of("type", "'com.example.perf.reshaped'"))
            : null);
    for (int i = 0; i < OTHER_SUBSCRIPTIONS; i++) {
      subscribe(
          index,
          jdbc,
          "other-" + i,
          "{\"type\": [\"com.example.perf.other" + i + "\"]}",
          "noop:other" + i,
          now,
          null);
    }
    DeliverySettings settings = DeliverySettings.defaults("bench");
    delivery =
        new DurableDelivery(
                new DeliveryStore(db),
                channels,
                null,
                index::get,
                new DeliveryMetrics(meters, 500),
                clock,
                settings)
            .start();
    EventRegistry registry =
        new EventRegistry(new EventTypeRepository(jdbc), UnregisteredTypePolicy.ACCEPT, clock);
    EventRouter router =
        new EventRouter(
            index,
            delivery,
            new DuplicateFilter(Duration.ofMinutes(10), 200_000),
            new RoutingMetrics(meters, type -> registry.find(type).isPresent()),
            10_000);
    EventIngest ingest =
        new EventIngest(registry, router, clock, EventIngest.DEFAULT_MAX_ATTRIBUTE_LENGTH);
    if (!tracing.equals("off")) {
      tracingSink = TracingSink.start(Double.parseDouble(tracing));
      delivery.tracing(tracingSink.tracing());
      router.tracing(tracingSink.tracing());
      ingest.tracing(tracingSink.tracing());
    }
    inbound =
        new InboundChannels(
            channels, new InboundChannelRepository(jdbc), ingest, delivery.deadLetters(), clock);
    inbound.startAll(
        List.of(new InboundChannelDefinition("noop:in", null, null, Map.of(), "config", null)));
    if (adapter.handler == null) {
      throw new IllegalStateException("the inbound channel did not start");
    }
    PerfEvents perfEvents = new PerfEvents(1024);
    PerfEvents.Clock perfClock = new PerfEvents.Clock();
    events = new CloudEvent[RING];
    String run = UUID.randomUUID().toString().substring(0, 8);
    for (int i = 0; i < RING; i++) {
      events[i] = perfEvents.event(run + "-K2-1-" + i, TYPE, System.nanoTime(), perfClock);
    }
  }

  private static void subscribe(
      SubscriptionIndex index,
      JdbcClient jdbc,
      String id,
      String pattern,
      String target,
      OffsetDateTime now,
      Transform transform) {
    Subscription s =
        new Subscription(
            id,
            id,
            Json.parse(pattern, "pattern"),
            null,
            target,
            RetryPolicy.DEFAULT,
            null,
            now,
            null,
            new DeliveryOptions(null, transform, null, null));
    // Parked deliveries refer to their subscription's row; none is parked here, but keep the store
    // consistent.
    jdbc.sql(
            "insert into subscription (id, name, target, max_attempts, initial_backoff_ms, max_backoff_ms,"
                + " max_age_ms, created_at) values (?, ?, ?, 1, 1, 1, 1, ?)")
        .params(id, id, target, now)
        .update();
    index.add(
        new SubscriptionIndex.Entry(
            s,
            null,
            ChannelUri.parse(target),
            null,
            CompiledTransform.compile(transform, TransformLimits.DEFAULT)));
  }

  private static DataSource h2() {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:mem:pipeline-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    ds.setUser("sa");
    ModuleMigrations.on(ds, EventsSchema.SCHEMA).migrate();
    return ds;
  }

  @Setup(Level.Iteration)
  public void mark() {
    sentBefore = adapter.sent;
    ackedBefore = ack.acked;
    nextBefore = next;
  }

  /** Every event of the iteration was sent once and acknowledged once; nothing was refused. */
  @TearDown(Level.Iteration)
  public void check() {
    long events = next - nextBefore;
    long sent = adapter.sent - sentBefore;
    long acked = ack.acked - ackedBefore;
    if (sent != events || acked != events || ack.nacked != 0) {
      throw new IllegalStateException(
          "pipeline broken: "
              + events
              + " events, "
              + sent
              + " sent, "
              + acked
              + " acknowledged, "
              + ack.nacked
              + " refused (last: "
              + ack.lastError
              + ")");
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    inbound.close();
    delivery.close();
    channels.close();
    if (tracingSink != null) {
      tracingSink.close();
    }
  }

  /** One event through the pipeline; it is delivered and acknowledged before the call returns. */
  @Benchmark
  public void relay() {
    adapter.handler.onEvent(events[next++ & (RING - 1)], ack);
  }

  /** Counts acknowledgements (the pipeline settles every event on the calling thread here). */
  static final class CountingAck implements Acknowledgement {
    long acked;
    long nacked;
    Throwable lastError;
    long sentAtMillis = NO_SENT_TIME;

    @Override
    public long sentAtMillis() {
      return sentAtMillis;
    }

    @Override
    public void ack() {
      acked++;
    }

    @Override
    public void nack(Throwable cause) {
      nacked++;
      lastError = cause;
    }
  }

  /**
   * An in-memory transport: inbound hands events in from the benchmark, outbound accepts every send
   * at once.
   */
  static final class NoOpAdapter implements ChannelAdapter {
    private static final CompletableFuture<Void> ACCEPTED = CompletableFuture.completedFuture(null);
    volatile InboundHandler handler;
    long sent;

    @Override
    public Set<String> schemes() {
      return Set.of("noop");
    }

    @Override
    public void validate(ChannelUri uri) {}

    @Override
    public OutboundChannel openOutbound(ChannelUri uri) {
      return new OutboundChannel() {
        @Override
        public ChannelUri uri() {
          return uri;
        }

        @Override
        public CompletableFuture<Void> send(OutboundEvent event) {
          sent++;
          return ACCEPTED;
        }

        @Override
        public void close() {}
      };
    }

    @Override
    public InboundChannel openInbound(ChannelUri uri, InboundSettings settings, InboundHandler h) {
      handler = h;
      return new InboundChannel() {
        @Override
        public ChannelUri uri() {
          return uri;
        }

        @Override
        public void close() {
          handler = null;
        }
      };
    }

    @Override
    public void close() {}
  }
}
