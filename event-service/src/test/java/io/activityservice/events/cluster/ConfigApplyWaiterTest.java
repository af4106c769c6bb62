package io.activityservice.events.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.events.support.TestDatabases;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Two replicas in one JVM on one real PostgreSQL, each with its change log, propagator and
 * heartbeat row: a write through one waits until the other has applied its version (woken by {@code
 * NOTIFY activity_config_applied}), or names it as lagging when the bound passes; a replica that is
 * not live is not waited for. Changes to different things apply in parallel: a slow one does not
 * hold back the others (it holds back only the applied version).
 */
class ConfigApplyWaiterTest {

  private static final Duration HEARTBEAT = Duration.ofMillis(200);
  private final List<AutoCloseable> open = new ArrayList<>();
  private DataSource db;

  /**
   * One replica: "thing" changes are applied into {@code applied}; "slow" ones wait for {@code
   * gate} first.
   */
  private final class Replica {
    final ConfigChangeLog log;
    final ConfigPropagator propagator;
    final ClusterMembers members;
    final ConfigApplyWaiter waiter;
    final Set<String> applied = ConcurrentHashMap.newKeySet();
    volatile CountDownLatch gate = new CountDownLatch(0);

    Replica(String id) {
      log = new ConfigChangeLog(db, id, Clock.systemUTC());
      propagator = new ConfigPropagator(log, db, Duration.ofSeconds(30));
      members = new ClusterMembers(db, id, Clock.systemUTC(), HEARTBEAT, true);
      waiter = new ConfigApplyWaiter(id, propagator::appliedVersion, () -> members);
      propagator.register("thing", applied::add);
      propagator.register(
          "slow",
          key -> {
            try {
              gate.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            applied.add(key);
          });
      propagator.registerBarrier("type", applied::add);
      propagator.onApplied(
          v -> {
            members.reportApplied(v);
            waiter.signal();
          });
      propagator.onOthersApplied(waiter::signal);
      members.start();
      members.report("replica " + id, propagator::appliedVersion, List::of);
      propagator.start();
      open.add(propagator);
      open.add(members);
    }

    long write(String kind, String key) {
      return log.record(kind, key, () -> {});
    }
  }

  @BeforeEach
  void database() {
    db = TestDatabases.postgres();
    TestDatabases.clean(db);
    JdbcClient.create(db).sql("delete from cluster_member").update();
  }

  @AfterEach
  void close() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  @Test
  void aWriteIsInForceOnceTheOtherReplicaAppliedIt() {
    Replica a = new Replica("a");
    Replica b = new Replica("b");
    awaitBothLive(a);

    long v = a.write("thing", "x");
    ConfigApplyWaiter.Status s = a.waiter.await(v, Duration.ofSeconds(10));

    assertThat(s.inForce()).as("%s", s).isTrue();
    assertThat(b.applied).as("b applied it before a's wait ended").contains("x");
    assertThat(
            JdbcClient.create(db)
                .sql("select config_version from cluster_member where replica_id = 'b'")
                .query(Long.class)
                .single())
        .as("b wrote its version")
        .isGreaterThanOrEqualTo(v);
  }

  @Test
  void aReplicaThatHasNotAppliedWhenTheBoundPassesIsNamedAndThePollSaysInForceOnceItHas()
      throws Exception {
    Replica a = new Replica("a");
    Replica b = new Replica("b");
    awaitBothLive(a);
    b.gate = new CountDownLatch(1);

    long v = a.write("slow", "detector-1");
    ConfigApplyWaiter.Status s = a.waiter.await(v, Duration.ofMillis(700));

    assertThat(s).isEqualTo(new ConfigApplyWaiter.Status(v, false, List.of("b")));
    assertThat(a.waiter.status(v).inForce()).isFalse();
    // A writer still waiting when b finishes is woken by b's announcement.
    CompletableFuture<ConfigApplyWaiter.Status> waiting =
        CompletableFuture.supplyAsync(() -> a.waiter.await(v, Duration.ofSeconds(20)));
    b.gate.countDown();
    assertThat(waiting.get(20, TimeUnit.SECONDS).inForce()).isTrue();
    assertThat(a.waiter.status(v)).isEqualTo(new ConfigApplyWaiter.Status(v, true, List.of()));
  }

  @Test
  void aReplicaThatIsNotLiveIsNotWaitedFor() {
    Replica a = new Replica("a");
    // A replica that stopped beating long ago, at an old version.
    JdbcClient.create(db)
        .sql(
            "insert into cluster_member (replica_id, started_at, last_seen, config_version)"
                + " values ('gone', 0, ?, 0)")
        .param(System.currentTimeMillis() - 60_000)
        .update();

    long v = a.write("thing", "y");

    assertThat(a.waiter.await(v, Duration.ofSeconds(10)))
        .isEqualTo(new ConfigApplyWaiter.Status(v, true, List.of()));
  }

  @Test
  void aSlowChangeHoldsBackOnlyTheAppliedVersionNotOtherThings() {
    Replica a = new Replica("a");
    Replica b = new Replica("b");
    awaitBothLive(a);
    b.gate = new CountDownLatch(1);

    long slow = a.write("slow", "detector-2");
    long fast = a.write("thing", "subscription-2");

    await().atMost(Duration.ofSeconds(10)).until(() -> b.applied.contains("subscription-2"));
    assertThat(b.applied).as("the slow change is still being applied").doesNotContain("detector-2");
    assertThat(b.propagator.appliedVersion())
        .as("applied version: every change up to it")
        .isLessThan(slow);
    // a applies both changes on its own thread: once it has, only b (held on the slow one) lags.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(a.waiter.status(fast).lagging()).containsExactly("b"));

    b.gate.countDown();
    assertThat(a.waiter.await(fast, Duration.ofSeconds(10)).inForce()).isTrue();
    assertThat(b.propagator.appliedVersion()).isGreaterThanOrEqualTo(fast);
  }

  @Test
  void aBarrierChangeWaitsForEveryEarlierChangeAndHoldsBackEveryLaterOne() {
    Replica a = new Replica("a");
    Replica b = new Replica("b");
    awaitBothLive(a);
    b.gate = new CountDownLatch(1);

    a.write("slow", "detector-3");
    a.write("type", "com.example.t");
    long after = a.write("thing", "subscription-3");

    // Nothing after the barrier, nor the barrier itself, runs while the slow change before it does.
    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(2))
        .until(() -> !b.applied.contains("com.example.t") && !b.applied.contains("subscription-3"));
    b.gate.countDown();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> b.applied.containsAll(List.of("detector-3", "com.example.t", "subscription-3")));
    assertThat(a.waiter.await(after, Duration.ofSeconds(10)).inForce()).isTrue();
  }

  private void awaitBothLive(Replica a) {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                a.members.appliedVersions().stream().filter(ClusterMembers.Applied::live).count()
                    == 2);
    // Both propagators are listening before the first write (their first catch-up ran).
    await().pollDelay(Duration.ofMillis(300)).until(() -> true);
  }
}
