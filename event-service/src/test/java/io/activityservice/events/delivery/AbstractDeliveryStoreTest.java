package io.activityservice.events.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.events.delivery.ParkedDelivery.Phase;
import io.activityservice.events.support.TestDatabases;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The delivery store's contract on every supported database: claims that never hand one row to two
 * replicas, leases that expire, fenced writes, retry.maxPending eviction, dead letters and redrive.
 */
abstract class AbstractDeliveryStoreTest {

  private static final long NOW = 1_800_000_000_000L;

  protected abstract DataSource dataSource();

  private DeliveryStore store;
  private JdbcClient jdbc;

  @BeforeEach
  void setUp() {
    TestDatabases.clean(dataSource());
    store = new DeliveryStore(dataSource());
    jdbc = JdbcClient.create(dataSource());
  }

  private static ParkedDelivery row(String subscription, long createdAt, long due) {
    String id = UUID.randomUUID().toString();
    return new ParkedDelivery(
        id,
        subscription,
        Phase.RETRY,
        "e-" + id,
        "/src",
        "com.example.t",
        "{\"specversion\":\"1.0\",\"id\":\"e-"
            + id
            + "\",\"source\":\"/src\",\"type\":\"com.example.t\"}",
        1,
        createdAt,
        due,
        "attempt 1: boom",
        null,
        null,
        createdAt);
  }

  private void park(ParkedDelivery... rows) {
    List<DeliveryStore.Park> parks = new ArrayList<>();
    for (ParkedDelivery r : rows) {
      parks.add(new DeliveryStore.Park(r, null, null));
    }
    store.park(parks);
  }

  private long count(String table) {
    return jdbc.sql("select count(*) from " + table).query(Long.class).single();
  }

  @Test
  void onlyDueUnlockedRowsAreClaimedAndEachCountsItsAttempt() {
    ParkedDelivery due = row("s1", NOW - 10, NOW - 1);
    ParkedDelivery later = row("s1", NOW - 10, NOW + 60_000);
    park(due, later);

    List<ParkedDelivery> claimed = store.claim(10, NOW, "r1", NOW + 30_000, List.of());

    assertThat(claimed).extracting(ParkedDelivery::id).containsExactly(due.id());
    assertThat(claimed.get(0).attempts()).isEqualTo(2);
    assertThat(claimed.get(0).lockToken()).isNotBlank();
    assertThat(store.claim(10, NOW, "r2", NOW + 30_000, List.of()))
        .as("held by r1's lease")
        .isEmpty();
    assertThat(store.claim(10, NOW + 30_001, "r2", NOW + 60_000, List.of()))
        .as("r1's lease ran out (a crashed replica): r2 takes it over")
        .extracting(ParkedDelivery::id)
        .containsExactly(due.id());
  }

  @Test
  void concurrentClaimersNeverGetTheSameRow() throws Exception {
    List<ParkedDelivery> rows = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      rows.add(row("s" + (i % 7), NOW - 1000 + i, NOW - 1000 + i));
    }
    park(rows.toArray(ParkedDelivery[]::new));
    int claimers = 4;
    CyclicBarrier start = new CyclicBarrier(claimers);
    ExecutorService pool = Executors.newFixedThreadPool(claimers);
    try {
      List<Future<List<String>>> results = new ArrayList<>();
      for (int c = 0; c < claimers; c++) {
        String replica = "r" + c;
        Callable<List<String>> claimer =
            () -> {
              start.await();
              List<String> mine = new ArrayList<>();
              List<ParkedDelivery> batch;
              while (!(batch = store.claim(7, NOW, replica, NOW + 60_000, List.of())).isEmpty()) {
                batch.forEach(d -> mine.add(d.id()));
              }
              return mine;
            };
        results.add(pool.submit(claimer));
      }
      List<String> all = new ArrayList<>();
      for (Future<List<String>> f : results) {
        all.addAll(f.get());
      }
      assertThat(all).hasSize(300);
      assertThat(new HashSet<>(all)).hasSize(300);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void writesOfALostLeaseChangeNothing() {
    ParkedDelivery r = row("s1", NOW - 10, NOW - 1);
    park(r);
    ParkedDelivery first = store.claim(1, NOW, "r1", NOW + 10, List.of()).get(0);
    ParkedDelivery second = store.claim(1, NOW + 20, "r2", NOW + 60_000, List.of()).get(0);

    // r1's late result (its lease expired, r2 owns the row now) must not delete or reschedule it.
    assertThat(store.delete(List.of(new DeliveryStore.Claim(first.id(), first.lockToken()))))
        .isZero();
    store.reschedule(
        List.of(
            new DeliveryStore.Reschedule(
                new DeliveryStore.Claim(first.id(), first.lockToken()),
                NOW + 99,
                "late",
                NOW,
                null)));
    assertThat(store.claim(1, NOW + 30, "r3", NOW + 90_000, List.of())).as("still r2's").isEmpty();

    assertThat(store.delete(List.of(new DeliveryStore.Claim(second.id(), second.lockToken()))))
        .isEqualTo(1);
    assertThat(count("parked_delivery")).isZero();
  }

  @Test
  void rescheduleReleasesTheRowUntilItsNextAttempt() {
    park(row("s1", NOW - 10, NOW - 1));
    ParkedDelivery c = store.claim(1, NOW, "r1", NOW + 60_000, List.of()).get(0);

    store.reschedule(
        List.of(
            new DeliveryStore.Reschedule(
                new DeliveryStore.Claim(c.id(), c.lockToken()),
                NOW + 5_000,
                "attempt 2: HTTP 503",
                NOW,
                null)));

    assertThat(store.claim(1, NOW + 4_999, "r2", NOW + 60_000, List.of())).isEmpty();
    ParkedDelivery again = store.claim(1, NOW + 5_000, "r2", NOW + 60_000, List.of()).get(0);
    assertThat(again.attempts()).isEqualTo(3);
    assertThat(again.lastError()).isEqualTo("attempt 2: HTTP 503");
    DeliveryStore.PendingStats stats = store.pending("s1");
    assertThat(stats.pending()).isEqualTo(1);
    assertThat(stats.lastError()).isEqualTo("attempt 2: HTTP 503");
  }

  @Test
  void claimsSkipSaturatedSubscriptions() {
    park(row("busy", NOW - 10, NOW - 5), row("idle", NOW - 10, NOW - 1));

    assertThat(store.claim(10, NOW, "r1", NOW + 60_000, List.of("busy")))
        .extracting(ParkedDelivery::subscriptionId)
        .containsExactly("idle");
  }

  @Test
  void buryMovesTheRowIntoDeadLettersWithTheReason() {
    ParkedDelivery r = row("s1", NOW - 10, NOW - 1);
    park(r);
    ParkedDelivery c = store.claim(1, NOW, "r1", NOW + 60_000, List.of()).get(0);

    store.bury(
        List.of(
            new DeliveryStore.Bury(
                new DeliveryStore.Claim(c.id(), c.lockToken()),
                "https://host/hook",
                "gave up after 2 attempts",
                NOW)));

    assertThat(count("parked_delivery")).isZero();
    assertThat(store.deadLetters().page("s1", null, 10))
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.id()).isEqualTo(r.id());
              assertThat(d.reason()).isEqualTo("gave up after 2 attempts");
              assertThat(d.origin()).isEqualTo("https://host/hook");
              assertThat(d.attempts()).isEqualTo(2);
              assertThat(d.eventJson()).isEqualTo(r.eventJson());
            });
  }

  @Test
  void evictionDeadLettersTheOldestUnclaimedRows() {
    ParkedDelivery oldest = row("s1", NOW - 300, NOW + 60_000);
    ParkedDelivery middle = row("s1", NOW - 200, NOW - 1);
    ParkedDelivery newest = row("s1", NOW - 100, NOW + 60_000);
    park(oldest, middle, newest, row("s2", NOW - 400, NOW + 60_000));
    store.claim(1, NOW, "r1", NOW + 60_000, List.of()); // claims "middle": in flight, not evicted

    assertThat(store.pendingRetries("s1")).isEqualTo(3);
    int evicted = store.evictOldest("s1", 2, "jms:queue:x", "evicted: maxPending", NOW, false);

    assertThat(evicted).isEqualTo(2);
    assertThat(store.deadLetters().page("s1", null, 10))
        .extracting(DeadLetterRecord::id)
        .containsExactlyInAnyOrder(oldest.id(), newest.id());
    assertThat(store.pendingRetries("s1")).isEqualTo(1);
    assertThat(store.pendingRetries("s2")).isEqualTo(1);
  }

  @Test
  void evictionIntoTheDeadLetterPhaseKeepsTheRowsForTheChannel() {
    ParkedDelivery r = row("s1", NOW - 300, NOW + 60_000);
    park(r);

    store.evictOldest("s1", 1, "x", "evicted", NOW, true);

    ParkedDelivery c = store.claim(10, NOW, "r1", NOW + 60_000, List.of()).get(0);
    assertThat(c.phase()).isEqualTo(Phase.DEAD_LETTER);
    assertThat(c.deadLetterReason()).isEqualTo("evicted");
    assertThat(c.attempts())
        .as("no attempt counted for handing to the dead-letter channel")
        .isEqualTo(1);
  }

  @Test
  void deadLettersArePagedOldestFirstAndRedrivenIntoTheRetryCycle() {
    List<DeadLetterRecord> records = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      records.add(
          new DeadLetterRecord(
              "d" + i,
              "s1",
              "https://host",
              "e" + i,
              "/src",
              "t",
              "{}",
              3,
              "why " + i,
              NOW - 100,
              NOW - 50 + (i / 2)));
    }
    records.add(
        new DeadLetterRecord(
            "x", "s2", "https://other", "ex", "/src", "t", "{}", 1, "other", NOW, NOW));
    store.deadLetters().insert(records);

    List<DeadLetterRecord> page1 = store.deadLetters().page("s1", null, 2);
    DeadLetterRecord last = page1.get(1);
    List<DeadLetterRecord> page2 =
        store
            .deadLetters()
            .page("s1", new DeadLetterStore.Cursor(last.deadLetteredAt(), last.id()), 2);
    List<DeadLetterRecord> page3 =
        store
            .deadLetters()
            .page(
                "s1",
                new DeadLetterStore.Cursor(page2.get(1).deadLetteredAt(), page2.get(1).id()),
                2);
    assertThat(page1).extracting(DeadLetterRecord::id).containsExactly("d0", "d1");
    assertThat(page2).extracting(DeadLetterRecord::id).containsExactly("d2", "d3");
    assertThat(page3).extracting(DeadLetterRecord::id).containsExactly("d4");
    assertThat(store.deadLetters().page(null, null, 100)).hasSize(6);

    assertThat(store.deadLetters().redrive("s1", List.of("d1", "d3", "x"), 100, NOW))
        .containsExactlyInAnyOrder("d1", "d3");
    assertThat(store.deadLetters().count("s1")).isEqualTo(3);
    List<ParkedDelivery> due = store.claim(10, NOW, "r1", NOW + 60_000, List.of());
    assertThat(due).extracting(ParkedDelivery::id).containsExactlyInAnyOrder("d1", "d3");
    assertThat(due)
        .allSatisfy(
            d -> {
              assertThat(d.attempts()).as("a fresh attempt count").isEqualTo(1);
              assertThat(d.receivedAt()).as("maxAge counts from the redrive").isEqualTo(NOW);
            });

    assertThat(store.deadLetters().redrive("s1", null, 2, NOW)).containsExactly("d0", "d2");
    assertThat(store.deadLetters().count("s1")).isEqualTo(1);
  }

  @Test
  void retentionPurgesOldDeadLetters() {
    store
        .deadLetters()
        .insert(
            List.of(
                new DeadLetterRecord(
                    "old",
                    null,
                    "inbound:x",
                    "e1",
                    "/s",
                    "t",
                    "{}",
                    0,
                    "invalid",
                    NOW - 10,
                    NOW - 10),
                new DeadLetterRecord(
                    "new", null, "inbound:x", "e2", "/s", "t", "{}", 0, "invalid", NOW, NOW)));

    assertThat(store.deadLetters().purgeOlderThan(NOW - 5)).isEqualTo(1);
    assertThat(store.deadLetters().page(null, null, 10))
        .extracting(DeadLetterRecord::id)
        .containsExactly("new");
  }

  @Test
  void pendingStatsPerSubscription() {
    park(row("s1", NOW - 300, NOW + 10), row("s1", NOW - 200, NOW + 5), row("s2", NOW, NOW));
    DeliveryStore.PendingStats s1 = store.pending("s1");
    assertThat(s1.pending()).isEqualTo(2);
    assertThat(s1.oldestCreatedAt()).isEqualTo(NOW - 300);
    assertThat(s1.nextAttemptAt()).isEqualTo(NOW + 5);
    assertThat(store.pendingBySubscription()).containsEntry("s1", 2L).containsEntry("s2", 1L);
    assertThat(store.pending("none").pending()).isZero();
  }
}
