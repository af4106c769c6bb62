package io.activityservice.perf;

import io.activityservice.channel.ChannelAdapter;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundHandler;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.OutboundEvent;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.cluster.PartitionKey;
import io.activityservice.events.delivery.DeliveryMetrics;
import io.activityservice.events.delivery.DeliverySettings;
import io.activityservice.events.delivery.DeliveryStore;
import io.activityservice.events.delivery.DurableDelivery;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.schema.EventsSchema;
import io.activityservice.events.schema.ModuleMigrations;
import io.activityservice.events.subscription.DeliveryOptions;
import io.activityservice.events.subscription.Ordering;
import io.activityservice.events.subscription.RetryPolicy;
import io.activityservice.events.subscription.Subscription;
import io.activityservice.events.subscription.SubscriptionIndex;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The cost of ordering per key (issue 25) on the delivery path: {@value #BATCH} events over {@value
 * #KEYS} keys handed to {@link DurableDelivery} for one subscription, unordered ({@code
 * ordering=off}: each is sent at once) or ordered by {@code data.k} ({@code ordering=on}: each is
 * queued in the store, claimed as the head of its key by the retry worker, sent, and deleted), on
 * H2 in memory, to an in-memory channel that accepts every send at once. One operation is one
 * event; it ends when every event of the batch was sent. {@code cpu.process.norm} ({@link
 * ProcessCpuProfiler}) is the whole JVM's CPU time per event, database included; the difference
 * between the two is what ordering costs per event.
 *
 * <p>Run: {@code java -jar perf-tests/target/benchmarks.jar OrderedDeliveryBenchmark -prof
 * io.activityservice.perf.ProcessCpuProfiler}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms512m", "-Xmx1g"})
@OperationsPerInvocation(OrderedDeliveryBenchmark.BATCH)
public class OrderedDeliveryBenchmark {

  static final int BATCH = 100;
  static final int KEYS = 10;

  @Param({"off", "on"})
  public String ordering;

  private final CountingAdapter adapter = new CountingAdapter();
  private ChannelRegistry channels;
  private DurableDelivery delivery;
  private SubscriptionIndex.Entry entry;
  private CloudEvent[] events;

  @Setup(Level.Trial)
  public void setUp() {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:mem:ordered-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    ds.setUser("sa");
    ModuleMigrations.on(ds, EventsSchema.SCHEMA).migrate();
    DataSource db = ds;
    OffsetDateTime now = OffsetDateTime.now();
    Subscription s =
        new Subscription(
            "ordered",
            "ordered",
            null,
            null,
            "count:out",
            RetryPolicy.DEFAULT,
            null,
            now,
            null,
            new DeliveryOptions(
                null,
                null,
                null,
                ordering.equals("on")
                    ? new Ordering(
                        PartitionKey.parse("data.k", "ordering.key"), Duration.ofMinutes(1))
                    : null));
    JdbcClient.create(db)
        .sql(
            "insert into subscription (id, name, target, max_attempts, initial_backoff_ms, max_backoff_ms,"
                + " max_age_ms, created_at) values (?, ?, ?, 1, 1, 1, 1, ?)")
        .params(s.id(), s.name(), s.target(), now)
        .update();
    entry = new SubscriptionIndex.Entry(s, null, ChannelUri.parse("count:out"), null);
    SubscriptionIndex index = new SubscriptionIndex();
    index.add(entry);
    channels = new ChannelRegistry(List.of(adapter));
    delivery =
        new DurableDelivery(
                new DeliveryStore(db),
                channels,
                null,
                index::get,
                new DeliveryMetrics(new SimpleMeterRegistry(), 100),
                Clock.systemUTC(),
                DeliverySettings.defaults("bench"))
            .start();
    events = new CloudEvent[BATCH];
    for (int i = 0; i < BATCH; i++) {
      events[i] =
          CloudEventBuilder.v1()
              .withId(UUID.randomUUID().toString())
              .withSource(URI.create("/bench"))
              .withType("com.example.perf.ordered")
              .withDataContentType("application/json")
              .withData(
                  ("{\"k\":\"k"
                          + (i % KEYS)
                          + "\",\"n\":"
                          + i
                          + ",\"payload\":\""
                          + "x".repeat(200)
                          + "\"}")
                      .getBytes(StandardCharsets.UTF_8))
              .build();
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    delivery.close();
    channels.close();
  }

  /** One batch: every event handed over, then waits (parked, not spinning) until all were sent. */
  @Benchmark
  public void deliver() {
    long target = adapter.sent.get() + BATCH;
    for (CloudEvent e : events) {
      delivery.deliver(
          entry,
          RoutableEvent.of(e),
          (result, error) -> {
            if (error != null) {
              adapter.failed.incrementAndGet();
            }
          });
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (adapter.sent.get() < target) {
      if (adapter.failed.get() > 0 || System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "delivery broken: " + adapter.sent.get() + " of " + target + " sent");
      }
      LockSupport.parkNanos(100_000);
    }
  }

  /** Outbound channels that accept every send at once and count them. */
  static final class CountingAdapter implements ChannelAdapter {
    private static final CompletableFuture<Void> ACCEPTED = CompletableFuture.completedFuture(null);
    final AtomicLong sent = new AtomicLong();
    final AtomicLong failed = new AtomicLong();

    @Override
    public Set<String> schemes() {
      return Set.of("count");
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
          sent.incrementAndGet();
          return ACCEPTED;
        }

        @Override
        public void close() {}
      };
    }

    @Override
    public InboundChannel openInbound(ChannelUri uri, InboundSettings settings, InboundHandler h) {
      throw new UnsupportedOperationException("outbound only");
    }

    @Override
    public void close() {}
  }
}
