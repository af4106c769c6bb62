package io.activityservice.events.support;

import io.activityservice.channel.ChannelUri;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.delivery.DeadLetterRecord;
import io.activityservice.events.delivery.DeliveryMetrics;
import io.activityservice.events.delivery.DeliverySettings;
import io.activityservice.events.delivery.DeliveryStore;
import io.activityservice.events.delivery.DurableDelivery;
import io.activityservice.events.routing.DuplicateFilter;
import io.activityservice.events.routing.EventRouter;
import io.activityservice.events.routing.RoutingMetrics;
import io.activityservice.events.subscription.RetryPolicy;
import io.activityservice.events.subscription.Subscription;
import io.activityservice.events.subscription.SubscriptionIndex;
import io.activityservice.events.transform.CompiledTransform;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The router with durable delivery on a fresh H2 database and a {@link FakeChannelAdapter} of
 * scheme {@code fake}: what the routing and delivery tests share. Close it after each test.
 */
public final class RoutingFixture implements AutoCloseable {

  /** How long a first attempt may take before its delivery is parked in the store. */
  public static final Duration PARK_AFTER = Duration.ofMillis(300);

  /** Three attempts, 5–20 ms apart. */
  public static final RetryPolicy FAST_RETRY =
      new RetryPolicy(3, Duration.ofMillis(5), Duration.ofMillis(20), Duration.ofMinutes(1));

  private final FakeChannelAdapter fake = new FakeChannelAdapter("fake");
  private final ChannelRegistry channels = new ChannelRegistry(List.of(fake));
  private final SubscriptionIndex index = new SubscriptionIndex();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final DataSource db = TestDatabases.newH2();
  private final JdbcClient jdbc = JdbcClient.create(db);
  private DurableDelivery delivery;

  /**
   * A new router (closing the previous one's delivery) on this fixture's database and index.
   *
   * @param fallbackDeadLetter the service-wide dead-letter channel, or null
   * @param poll how often the store is polled for due retries
   */
  public EventRouter router(
      String fallbackDeadLetter, Duration dedupWindow, int maxInFlight, Duration poll) {
    close();
    DeliverySettings settings =
        DeliverySettings.defaults("test-replica")
            .withParkAfter(PARK_AFTER)
            .withLease(Duration.ofSeconds(5), poll);
    delivery =
        new DurableDelivery(
                new DeliveryStore(db),
                channels,
                fallbackDeadLetter == null ? null : ChannelUri.parse(fallbackDeadLetter),
                index::get,
                new DeliveryMetrics(meters, 100),
                Clock.systemUTC(),
                settings)
            .start();
    return new EventRouter(
        index,
        delivery,
        new DuplicateFilter(dedupWindow, 10_000),
        new RoutingMetrics(meters, type -> true),
        maxInFlight);
  }

  /** {@link #router(String, Duration, int, Duration)} polling every 20 ms. */
  public EventRouter router(String fallbackDeadLetter, Duration dedupWindow, int maxInFlight) {
    return router(fallbackDeadLetter, dedupWindow, maxInFlight, Duration.ofMillis(20));
  }

  /** A router without a fallback dead-letter channel, deduplicating over 5 minutes. */
  public EventRouter router() {
    return router(null, Duration.ofMinutes(5), 100);
  }

  /**
   * Registers a subscription in the index and in the table (the store drops parked deliveries of
   * subscriptions that no longer exist, so they exist there too).
   */
  public Subscription subscribe(Subscription s, CompiledTransform transform) {
    jdbc.sql(
            "insert into subscription (id, name, target, max_attempts, initial_backoff_ms,"
                + " max_backoff_ms, max_age_ms, created_at) values (?, ?, ?, 1, 1, 1, 1, ?)")
        .params(s.id(), s.name(), s.target(), OffsetDateTime.now())
        .update();
    index.add(
        new SubscriptionIndex.Entry(
            s,
            null,
            ChannelUri.parse(s.target()),
            s.deadLetter() == null ? null : ChannelUri.parse(s.deadLetter()),
            transform));
    return s;
  }

  /** Deliveries parked in the store now. */
  public long parked() {
    return jdbc.sql("select count(*) from parked_delivery").query(Long.class).single();
  }

  /** The dead letters in the store, oldest first. */
  public List<DeadLetterRecord> deadLetters() {
    return new DeliveryStore(db).deadLetters().page(null, null, 1000);
  }

  public FakeChannelAdapter fake() {
    return fake;
  }

  public ChannelRegistry channels() {
    return channels;
  }

  public SubscriptionIndex index() {
    return index;
  }

  public SimpleMeterRegistry meters() {
    return meters;
  }

  public DataSource db() {
    return db;
  }

  public JdbcClient jdbc() {
    return jdbc;
  }

  /** The current router's delivery. */
  public DurableDelivery delivery() {
    return delivery;
  }

  @Override
  public void close() {
    if (delivery != null) {
      delivery.close();
      delivery = null;
    }
  }
}
