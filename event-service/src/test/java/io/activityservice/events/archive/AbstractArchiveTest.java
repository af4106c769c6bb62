package io.activityservice.events.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.activityservice.channel.ChannelUri;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.cluster.ConfigChanges;
import io.activityservice.events.delivery.DeliveryMetrics;
import io.activityservice.events.delivery.DeliverySettings;
import io.activityservice.events.delivery.DeliveryStore;
import io.activityservice.events.delivery.DurableDelivery;
import io.activityservice.events.json.Json;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.routing.DuplicateFilter;
import io.activityservice.events.routing.EventRouter;
import io.activityservice.events.routing.RoutingMetrics;
import io.activityservice.events.subscription.RetryPolicy;
import io.activityservice.events.subscription.Subscription;
import io.activityservice.events.subscription.SubscriptionIndex;
import io.activityservice.events.support.Events;
import io.activityservice.events.support.FakeChannelAdapter;
import io.activityservice.events.support.TestDatabases;
import io.cloudevents.CloudEvent;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Archives and replays on a real database (H2, PostgreSQL): archiving by pattern, replays to a
 * subscription created after the events, replayed events not archived again, archives and replays
 * surviving a restart, and retention dropping old storage (whole partitions on PostgreSQL).
 */
abstract class AbstractArchiveTest {

  /** A clock tests move. */
  static final class MovableClock extends Clock {
    volatile Instant now = Instant.parse("2026-11-01T12:00:00Z");

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  protected abstract DataSource dataSource();

  final FakeChannelAdapter fake = new FakeChannelAdapter("fake");
  final ChannelRegistry channels = new ChannelRegistry(List.of(fake));
  final SubscriptionIndex index = new SubscriptionIndex();
  final MovableClock clock = new MovableClock();
  final List<AutoCloseable> open = new ArrayList<>();
  DataSource db;
  EventRouter router;
  ArchiveService archives;
  ReplayService replays;

  @BeforeEach
  void setUp() {
    db = dataSource();
    TestDatabases.clean(db);
    DurableDelivery delivery =
        new DurableDelivery(
                new DeliveryStore(db),
                channels,
                null,
                index::get,
                new DeliveryMetrics(new SimpleMeterRegistry(), 100),
                Clock.systemUTC(),
                DeliverySettings.defaults("t")
                    .withLease(Duration.ofSeconds(5), Duration.ofMillis(20)))
            .start();
    open.add(delivery);
    router =
        new EventRouter(
            index,
            delivery,
            new DuplicateFilter(Duration.ofMinutes(5), 10_000),
            new RoutingMetrics(new SimpleMeterRegistry(), type -> true),
            1000);
    startServices();
  }

  /** (Re)starts the archive and replay services, as a restarted replica would. */
  void startServices() {
    archives =
        new ArchiveService(
            db,
            ConfigChanges.unrecorded(),
            clock,
            new SimpleMeterRegistry(),
            new ArchiveService.Settings(10_000, Duration.ofHours(1)));
    open.add(archives);
    router.addRecordingForwarder(archives::archive);
    replays =
        new ReplayService(
                db,
                archives,
                (e, d) ->
                    router
                        .replay(e, d.subscriptions() == null ? null : Set.copyOf(d.subscriptions()))
                        .thenApply(o -> null),
                Clock.systemUTC(),
                "t",
                new ReplayService.Settings(Duration.ofSeconds(2), Duration.ofMillis(50), 7, 16))
            .start();
    open.add(replays);
  }

  @AfterEach
  void tearDown() throws Exception {
    for (Archive a : new ArchiveRepository(JdbcClient.create(db)).findAll()) {
      archives.delete(a.name());
    }
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  RoutableEvent event(String type, int n, Instant time) {
    return RoutableEvent.of(
        Events.builder(type, Map.of("n", n))
            .withId(type + "-" + n)
            .withTime(OffsetDateTime.ofInstant(time, ZoneOffset.UTC))
            .build());
  }

  void route(RoutableEvent e) throws Exception {
    router.route(e).get(10, TimeUnit.SECONDS);
  }

  void awaitArchived(String archive, long n) {
    await().atMost(Duration.ofSeconds(10)).until(() -> archives.get(archive).eventCount() >= n);
  }

  Subscription subscribe(String type, String target) {
    Subscription s =
        new Subscription(
            "sub-" + target,
            "s",
            Json.parse("{\"type\": [\"" + type + "\"]}", "p"),
            null,
            target,
            RetryPolicy.DEFAULT,
            null,
            OffsetDateTime.now());
    JdbcClient.create(db)
        .sql(
            "insert into subscription (id, name, target, max_attempts, initial_backoff_ms,"
                + " max_backoff_ms, max_age_ms, created_at) values (?, ?, ?, 1, 1, 1, 1, ?)")
        .params(s.id(), s.name(), target, OffsetDateTime.now())
        .update();
    index.add(new SubscriptionIndex.Entry(s, null, ChannelUri.parse(target), null));
    return s;
  }

  @Test
  void archivesByPatternAndReplaysToASubscriptionCreatedAfterTheEvents() throws Exception {
    archives.create(
        "meters", Json.parse("{\"type\": [\"com.example.meter\"]}", "p"), Duration.ofDays(7));
    Instant t0 = Instant.parse("2026-10-31T10:00:00Z");
    for (int i = 0; i < 30; i++) {
      route(event("com.example.meter", i, t0.plusSeconds(30 - i))); // event times in reverse order
      route(event("com.example.other", i, t0.plusSeconds(i)));
    }
    awaitArchived("meters", 30);
    assertThat(archives.get("meters").eventCount()).isEqualTo(30);
    assertThat(archives.get("meters").sizeBytes()).isPositive();

    // Looking back: paged, in event-time order, filtered.
    ArchiveService.EventPage first =
        archives.events("meters", new ArchivedEventStore.Filter(null, null, null, null), null, 20);
    ArchiveService.EventPage second =
        archives.events(
            "meters",
            new ArchivedEventStore.Filter(null, null, null, null),
            first.nextCursor(),
            20);
    assertThat(first.items()).hasSize(20);
    assertThat(second.items()).hasSize(10);
    assertThat(second.nextCursor()).isNull();
    List<Long> times = new ArrayList<>();
    first.items().forEach(e -> times.add(e.eventTime()));
    second.items().forEach(e -> times.add(e.eventTime()));
    assertThat(times).isSorted();

    Subscription late = subscribe("com.example.meter", "fake:late");
    Replay r =
        replays.create(
            "r1",
            "meters",
            t0.toEpochMilli(),
            t0.plusSeconds(3600).toEpochMilli(),
            new Replay.Destinations(List.of(late.id()), List.of(), List.of()));
    assertThat(r.total()).isEqualTo(30);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> replays.get("r1").state() == Replay.State.COMPLETED);

    List<CloudEvent> got = fake.outbound("fake:late").accepted();
    assertThat(got).hasSize(30);
    assertThat(got).extracting(CloudEvent::getId).doesNotHaveDuplicates();
    assertThat(got).allSatisfy(e -> assertThat(e.getExtension("replayname")).isEqualTo("r1"));
    List<OffsetDateTime> order = got.stream().map(CloudEvent::getTime).toList();
    assertThat(replays.get("r1").replayed()).isEqualTo(30);
    assertThat(replays.get("r1").progress()).isEqualTo(1.0);
    // Replayed events are not archived again.
    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(2))
        .until(() -> archives.get("meters").eventCount() == 30);
    assertThat(order).as("handed over in event-time order").isSorted();
  }

  @Test
  void archivesAndARunningReplaySurviveARestart() throws Exception {
    archives.create("all", null, Duration.ofDays(1));
    Instant t0 = Instant.parse("2026-10-31T10:00:00Z");
    for (int i = 0; i < 40; i++) {
      route(event("com.example.any", i, t0.plusSeconds(i)));
    }
    awaitArchived("all", 40);
    Subscription slow = subscribe("com.example.any", "fake:slow");
    FakeChannelAdapter.FakeOutbound out = fake.outbound("fake:slow").hold(true);
    replays.create(
        "resume",
        "all",
        t0.toEpochMilli(),
        t0.plusSeconds(40).toEpochMilli(),
        new Replay.Destinations(List.of(slow.id()), null, null));
    await().atMost(Duration.ofSeconds(10)).until(() -> out.sent().size() >= 7);

    // The replica stops mid-replay (its runner and archive service go away), a new one starts on
    // the same database.
    replays.close();
    archives.close();
    out.hold(false);
    out.releaseAll();
    startServices();

    assertThat(archives.get("all").eventCount()).isEqualTo(40);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> replays.get("resume").state() != Replay.State.RUNNING);
    assertThat(replays.get("resume").state())
        .as(String.valueOf(replays.get("resume").error()))
        .isEqualTo(Replay.State.COMPLETED);
    assertThat(out.accepted())
        .extracting(CloudEvent::getId)
        .containsAll(
            java.util.stream.IntStream.range(0, 40).mapToObj(i -> "com.example.any-" + i).toList());
    System.out.printf(
        "archive restart test: %d deliveries for 40 replayed events (resumed at the last recorded"
            + " page)%n",
        out.accepted().size());
  }

  @Test
  void retentionDropsOldStorage() throws Exception {
    Archive a = archives.create("short", null, Duration.ofDays(2));
    Instant start = clock.now;
    for (int day = 0; day < 5; day++) {
      clock.now = start.plus(Duration.ofDays(day));
      for (int i = 0; i < 5; i++) {
        route(event("com.example.r", day * 10 + i, clock.now));
      }
      awaitArchived("short", (day + 1) * 5L);
    }
    List<String> before = archives.partitions("short");
    archives.maintain(); // now = day 4: days 0, 1 are older than 2 days

    assertThat(archives.get("short").eventCount()).isEqualTo(15);
    List<ArchivedEvent> left =
        archives
            .events("short", new ArchivedEventStore.Filter(null, null, null, null), null, 100)
            .items();
    assertThat(left)
        .hasSize(15)
        .allSatisfy(
            e ->
                assertThat(e.archivedAt())
                    .isGreaterThanOrEqualTo(start.plus(Duration.ofDays(2)).toEpochMilli()));
    checkPartitionsDropped(before, archives.partitions("short"), a);
  }

  /** PostgreSQL: whole daily partitions were dropped; H2 has none. */
  abstract void checkPartitionsDropped(List<String> before, List<String> after, Archive archive);
}
