package io.activityservice.events.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.json.Json;
import io.activityservice.events.registry.EventRegistry;
import io.activityservice.events.registry.EventTypeRepository;
import io.activityservice.events.registry.UnregisteredTypePolicy;
import io.activityservice.events.subscription.Subscription;
import io.activityservice.events.subscription.SubscriptionIndex;
import io.activityservice.events.subscription.SubscriptionRepository;
import io.activityservice.events.subscription.SubscriptionService;
import io.activityservice.events.support.FakeChannelAdapter;
import io.activityservice.events.support.TestDatabases;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Two replicas in one JVM on one real PostgreSQL, each with its own change log, propagator, index
 * and services: what one changes, the other applies — woken by NOTIFY, or by the version check when
 * it missed the signal.
 */
class ConfigPropagationTest {

  private final List<AutoCloseable> open = new ArrayList<>();

  /** One replica's configuration state. */
  private final class Replica {
    final ConfigChangeLog log;
    final ConfigPropagator propagator;
    final SubscriptionIndex index = new SubscriptionIndex();
    final SubscriptionService subscriptions;
    final EventRegistry registry;

    Replica(DataSource db, String id, Duration poll) {
      log = new ConfigChangeLog(db, id, Clock.systemUTC());
      propagator = new ConfigPropagator(log, db, poll);
      JdbcClient jdbc = JdbcClient.create(db);
      ChannelRegistry channels = new ChannelRegistry(List.of(new FakeChannelAdapter("fake")));
      Consumer<String> noop = x -> {};
      subscriptions =
          new SubscriptionService(
              new SubscriptionRepository(jdbc), index, channels, Clock.systemUTC(), noop, log);
      registry =
          new EventRegistry(
              new EventTypeRepository(jdbc), UnregisteredTypePolicy.ACCEPT, Clock.systemUTC(), log);
      propagator.register(SubscriptionService.CHANGE_KIND, subscriptions::reload);
      propagator.register(EventRegistry.CHANGE_KIND, registry::reload);
      open.add(propagator);
    }
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  @Test
  void aChangeOnOneReplicaIsAppliedOnTheOtherThroughNotify() {
    DataSource db = TestDatabases.postgres();
    TestDatabases.clean(db);
    // A long poll interval: only NOTIFY can make it fast.
    Replica a = new Replica(db, "a", Duration.ofSeconds(30));
    Replica b = new Replica(db, "b", Duration.ofSeconds(30));
    a.propagator.start();
    b.propagator.start();
    await().pollDelay(Duration.ofMillis(300)).until(() -> true); // both are listening

    long start = System.nanoTime();
    Subscription s =
        a.subscriptions.create(
            "s", Json.parse("{\"type\": [\"t\"]}", "p"), null, "fake:x", null, null);
    await()
        .atMost(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(5))
        .until(() -> b.index.get(s.id()) != null);
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertThat(millis).as("applied long before the 30 s version check").isLessThan(2_000);
    assertThat(a.index.get(s.id())).isNotNull();

    a.registry.create("com.example.p", "d", null, Json.parse("{\"type\": \"object\"}", "schema"));
    await().atMost(Duration.ofSeconds(2)).until(() -> b.registry.find("com.example.p").isPresent());

    b.subscriptions.delete(s.id());
    await().atMost(Duration.ofSeconds(2)).until(() -> a.index.get(s.id()) == null);
    await()
        .atMost(Duration.ofSeconds(2))
        .until(
            () ->
                a.propagator.appliedVersion() == a.log.currentVersion()
                    && b.propagator.appliedVersion() == b.log.currentVersion());
  }

  @Test
  void aReplicaThatMissedTheSignalCatchesUpAtTheVersionCheck() {
    DataSource db = TestDatabases.postgres();
    TestDatabases.clean(db);
    Replica a = new Replica(db, "a", Duration.ofMillis(200));
    Replica b = new Replica(db, "b", Duration.ofMillis(200));
    // b is not listening while a changes things (as if its connection was down).
    Subscription s1 = a.subscriptions.create("one", null, null, "fake:1", null, null);
    Subscription s2 = a.subscriptions.create("two", null, null, "fake:2", null, null);
    a.subscriptions.delete(s1.id());
    assertThat(b.index.size()).isZero();

    b.propagator.start();

    await().atMost(Duration.ofSeconds(5)).until(() -> b.index.get(s2.id()) != null);
    assertThat(b.index.get(s1.id())).as("created and deleted while b was away").isNull();
    assertThat(b.propagator.appliedVersion()).isEqualTo(a.log.currentVersion());
  }

  @Test
  void aChangeThatFailsIsNotRecorded() {
    DataSource db = TestDatabases.newH2();
    Replica a = new Replica(db, "a", Duration.ofMillis(50));
    long before = a.log.currentVersion();
    a.registry.create("com.example.dup", null, null, null);
    try {
      a.registry.create("com.example.dup", null, null, null);
    } catch (RuntimeException expectedConflict) {
      // the second create is refused
    }
    assertThat(a.log.currentVersion())
        .as("only the first create is a change")
        .isEqualTo(before + 1);
    assertThat(a.log.since(before, 10))
        .singleElement()
        .satisfies(c -> assertThat(c.key()).isEqualTo("com.example.dup"));
  }
}
