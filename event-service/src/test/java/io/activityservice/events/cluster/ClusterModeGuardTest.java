package io.activityservice.events.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.activityservice.events.support.TestDatabases;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The cluster-mode guard on PostgreSQL with other replicas' heartbeats written by real {@link
 * ClusterMembers}: a replica refuses to start beside a live replica of the other mode (or any live
 * replica when its own cluster mode is off), and starts beside the fresh row a crashed replica left
 * behind.
 */
class ClusterModeGuardTest {

  private static final Duration BEAT = Duration.ofSeconds(1);

  private final DataSource db = TestDatabases.postgres();
  private final JdbcTemplate jdbc = new JdbcTemplate(db);
  private final ClusterModeGuard guard = new ClusterModeGuard(db, Clock.systemUTC());
  private ClusterMembers other;

  @BeforeEach
  void setUp() {
    jdbc.update("delete from cluster_member");
  }

  @AfterEach
  void tearDown() {
    if (other != null) {
      other.close();
    }
  }

  @Test
  void aLoneReplicaStartsInEitherMode() {
    guard.check("alone", null, false, BEAT);
    jdbc.update("delete from cluster_member");
    guard.check("alone", null, true, BEAT);
    assertThat(
            jdbc.queryForObject(
                "select clustered from cluster_member where replica_id = 'alone'", Boolean.class))
        .isTrue();
  }

  @Test
  void aSecondReplicaWithoutClusterModeIsRefusedWithTheSettingNamed() {
    other = new ClusterMembers(db, "first", Clock.systemUTC(), BEAT, false).start();
    waitForRow("first");

    assertThatThrownBy(() -> guard.check("second", null, false, BEAT))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("first (cluster mode off)")
        .hasMessageContaining("activity.cluster.enabled=true");
    assertThat(
            jdbc.queryForObject(
                "select count(*) from cluster_member where replica_id = 'second'", Integer.class))
        .as("the refused replica leaves no row behind")
        .isZero();
  }

  @Test
  void aClusteredReplicaIsRefusedBesideOneWithoutClusterModeAndTheOtherWayRound() {
    other = new ClusterMembers(db, "single", Clock.systemUTC(), BEAT, false).start();
    waitForRow("single");
    assertThatThrownBy(() -> guard.check("clustered", null, true, BEAT))
        .hasMessageContaining("without cluster mode: single")
        .hasMessageContaining("activity.cluster.enabled=true");
    other.close();

    other = new ClusterMembers(db, "clustered", Clock.systemUTC(), BEAT, true).start();
    waitForRow("clustered");
    assertThatThrownBy(() -> guard.check("single", null, false, BEAT))
        .hasMessageContaining("clustered (cluster mode)");
  }

  @Test
  void clusteredReplicasStartBesideEachOther() {
    other = new ClusterMembers(db, "a", Clock.systemUTC(), BEAT, true).start();
    waitForRow("a");
    guard.check("b", null, true, BEAT);
    assertThat(
            jdbc.queryForObject(
                "select count(*) from cluster_member where clustered", Integer.class))
        .isEqualTo(2);
  }

  @Test
  void theFreshRowOfACrashedReplicaDoesNotStopItsRestart() {
    // A replica SIGKILLed a moment ago: its row is within three heartbeats, but its last_seen no
    // longer moves.
    long now = System.currentTimeMillis();
    ClusterMembers.upsert(
        jdbc, "crashed", null, now - 10_000, now, 7, null, false, BEAT.toMillis());

    long start = System.nanoTime();
    guard.check("restarted", null, false, BEAT);
    long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(waitedMillis)
        .as("waited for the crashed replica's heartbeat")
        .isGreaterThanOrEqualTo(BEAT.toMillis());
  }

  @Test
  void twoReplicasStartingTogetherDoNotBothRunWithoutClusterMode() throws Exception {
    CyclicBarrier together = new CyclicBarrier(2);
    java.util.List<ClusterMembers> started = new java.util.concurrent.CopyOnWriteArrayList<>();
    try {
      CompletableFuture<String> x =
          CompletableFuture.supplyAsync(() -> startAndBeat("x", together, started));
      CompletableFuture<String> y =
          CompletableFuture.supplyAsync(() -> startAndBeat("y", together, started));
      // The advisory lock orders the two checks: the second sees the first's row (and its
      // heartbeat) and refuses.
      assertThat(new String[] {x.get(30, TimeUnit.SECONDS), y.get(30, TimeUnit.SECONDS)})
          .containsExactlyInAnyOrder("started", "refused");
    } finally {
      started.forEach(ClusterMembers::close);
    }
  }

  private String startAndBeat(
      String id, CyclicBarrier together, java.util.List<ClusterMembers> started) {
    try {
      together.await(10, TimeUnit.SECONDS);
      new ClusterModeGuard(db, Clock.systemUTC()).check(id, null, false, BEAT);
    } catch (IllegalStateException e) {
      return "refused";
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    // What the application does right after the check: its heartbeat starts.
    started.add(new ClusterMembers(db, id, Clock.systemUTC(), BEAT, false).start());
    return "started";
  }

  private void waitForRow(String id) {
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                jdbc.queryForObject(
                        "select count(*) from cluster_member where replica_id = ?",
                        Integer.class,
                        id)
                    == 1);
  }
}
