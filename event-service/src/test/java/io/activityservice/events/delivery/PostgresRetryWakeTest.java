package io.activityservice.events.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.channel.ChannelUri;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.subscription.RetryPolicy;
import io.activityservice.events.subscription.Subscription;
import io.activityservice.events.subscription.SubscriptionIndex;
import io.activityservice.events.support.Events;
import io.activityservice.events.support.FakeChannelAdapter;
import io.activityservice.events.support.TestDatabases;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * On PostgreSQL a replica that parks a delivery wakes the others' retry workers ({@code NOTIFY}):
 * here replica A only parks (its retry worker is not started) and replica B, whose periodic check
 * is 30 s away, retries the delivery within its backoff.
 */
class PostgresRetryWakeTest {

  private static final RetryPolicy FAST =
      new RetryPolicy(3, Duration.ofMillis(5), Duration.ofMillis(20), Duration.ofMinutes(1));

  private final DataSource db = TestDatabases.postgres();
  private final FakeChannelAdapter fakeA = new FakeChannelAdapter("fake");
  private final FakeChannelAdapter fakeB = new FakeChannelAdapter("fake");
  private final SubscriptionIndex index = new SubscriptionIndex();
  private DurableDelivery a;
  private DurableDelivery b;

  @BeforeEach
  void setUp() {
    TestDatabases.clean(db);
    DeliverySettings slowChecks =
        DeliverySettings.defaults("replica")
            .withParkAfter(Duration.ofMillis(300))
            .withLease(Duration.ofSeconds(5), Duration.ofSeconds(30));
    a =
        new DurableDelivery(
            new DeliveryStore(db),
            new ChannelRegistry(List.of(fakeA)),
            null,
            index::get,
            new DeliveryMetrics(new SimpleMeterRegistry(), 100),
            Clock.systemUTC(),
            new DeliverySettings(
                slowChecks.parkAfter(),
                slowChecks.lease(),
                slowChecks.pollInterval(),
                100,
                256,
                64,
                1000,
                Duration.ofDays(1),
                "replica-a"));
    b =
        new DurableDelivery(
                new DeliveryStore(db),
                new ChannelRegistry(List.of(fakeB)),
                null,
                index::get,
                new DeliveryMetrics(new SimpleMeterRegistry(), 100),
                Clock.systemUTC(),
                new DeliverySettings(
                    slowChecks.parkAfter(),
                    slowChecks.lease(),
                    slowChecks.pollInterval(),
                    100,
                    256,
                    64,
                    1000,
                    Duration.ofDays(1),
                    "replica-b"))
            .start();
  }

  @AfterEach
  void tearDown() {
    a.close();
    b.close();
  }

  @Test
  void anotherReplicasParkWakesThisReplicasRetryWorker() throws Exception {
    Subscription s =
        new Subscription(
            "sub-wake", "wake", null, null, "fake:target", FAST, null, OffsetDateTime.now());
    JdbcClient.create(db)
        .sql(
            "insert into subscription (id, name, target, max_attempts, initial_backoff_ms,"
                + " max_backoff_ms, max_age_ms, created_at) values (?, ?, ?, 1, 1, 1, 1, ?)")
        .params(s.id(), s.name(), s.target(), OffsetDateTime.now())
        .update();
    SubscriptionIndex.Entry entry =
        new SubscriptionIndex.Entry(s, null, ChannelUri.parse("fake:target"), null);
    index.add(entry);
    fakeA.outbound("fake:target").failAlways(true);
    // Give B's worker time to fall asleep on its 30 s check (and its listener to connect).
    await().pollDelay(Duration.ofMillis(500)).until(() -> true);

    CompletableFuture<DurableDelivery.Result> parked =
        a.deliver(entry, RoutableEvent.of(Events.event("com.example.wake", Map.of("v", 1))));

    assertThat(parked.get(10, TimeUnit.SECONDS)).isEqualTo(DurableDelivery.Result.PARKED);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> fakeB.outbound("fake:target").accepted().size() == 1);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                JdbcClient.create(db)
                        .sql("select count(*) from parked_delivery")
                        .query(Long.class)
                        .single()
                    == 0);
  }
}
