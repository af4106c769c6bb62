package io.activityservice.app.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.app.support.Api;
import io.activityservice.app.support.PackagedService;
import io.activityservice.app.support.ServiceCluster;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.jms.JmsChannelAdapter;
import io.activityservice.testsupport.ServiceProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Definitions in force on every replica before they are acknowledged (issue 21 item 1), with three
 * packaged replicas on one PostgreSQL and one ActiveMQ broker as {@link ReplicasIT} runs them, on a
 * machine kept busy by two spinning threads: a detector created through one replica pairs every
 * event posted round-robin right after its 201; a write while a replica is SIGSTOPped answers 202
 * naming it, and the poll says in force once it runs again; a subscription created while the other
 * replicas compile a rule set does not wait behind the compile.
 *
 * <p>Replica {@code a} waits at most 2 s for the others ({@code activity.cluster.apply-wait=2s}),
 * {@code b} and {@code c} 120 s (a compile on a loaded 2-core machine takes seconds). {@code
 * -Dit.replicas.jar=...} runs it against another build (the lag measurement, {@link
 * #aSubscriptionDoesNotWaitBehindARuleSetCompileElsewhere}, needs nothing new from the service: it
 * is how the figures before this change were taken).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConfigInForceIT {

  static final String OPEN = "com.example.force.open";
  static final String CLOSE = "com.example.force.close";
  static final String PAIR = "com.example.force.pair";

  static ServiceCluster cluster;
  static JdbcClient db;
  static JmsChannelAdapter client;
  static List<ServiceProcess> replicas;
  static List<Api> apis;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster =
        ServiceCluster.start(
            "config-in-force-it",
            PackagedService.jar("it.replicas.jar"),
            List.of("a", "b", "c"),
            name -> List.of("--activity.cluster.apply-wait=" + (name.equals("a") ? "2s" : "120s")));
    db = JdbcClient.create(cluster.postgres().getPostgresDatabase());
    client = cluster.client();
    replicas = cluster.replicas();
    apis = cluster.apis();
    // Every replica has beaten once, so each counts the others as live.
    await().atMost(Duration.ofSeconds(30)).until(() -> liveReplicas() == 3);
  }

  @AfterAll
  static void stopCluster() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Order(1)
  void aDetectorCreatedThroughOneReplicaPairsEveryEventPostedRoundRobinRightAfterItsAnswer()
      throws Exception {
    Map<String, AtomicInteger> pairs = new ConcurrentHashMap<>();
    try (InboundChannel out = receive("jms:queue:force.pairs", pairs);
        CpuLoad load = new CpuLoad(2)) {
      Api.Response sub =
          apis.get(2)
              .postJson(
                  "/api/v1/subscriptions",
                  """
          {"name": "pairs", "pattern": {"type": ["%s"]}, "target": "jms:queue:force.pairs"}"""
                      .formatted(PAIR));
      assertThat(sub.status()).as(sub.body()).isEqualTo(201);
      assertThat(sub.header(ConfigApplyFilter.VERSION))
          .as("every definition write says its version")
          .isNotBlank();
      for (String type : List.of(OPEN, CLOSE)) {
        assertThat(
                apis.get(1)
                    .postJson(
                        "/api/v1/event-types",
                        """
            {"type": "%s", "schema": {"type": "object", "properties": {"id": {"type": "string"}}}}"""
                            .formatted(type))
                    .status())
            .isEqualTo(201);
      }

      long start = System.nanoTime();
      Api.Response d =
          apis.get(1)
              .postJson(
                  "/api/v1/detectors",
                  """
          {"name": "force-pairing", "inputs": {"O": "%s", "C": "%s"}, "partitionBy": "data.id", "emits": "%s",
           "epl": "select o.data.id as id from pattern [every o=O -> c=C(data.id = o.data.id)]"}"""
                      .formatted(OPEN, CLOSE, PAIR));
      long answeredMillis = (System.nanoTime() - start) / 1_000_000;
      assertThat(d.status()).as(d.body()).isEqualTo(201);
      long version = Long.parseLong(d.header(ConfigApplyFilter.VERSION));

      // Immediately: no waiting for the other replicas here, the answer did.
      for (int i = 0; i < 150; i++) {
        String id = "p" + i;
        assertThat(
                apis.get(i % 3)
                    .publish(event("open-" + i, OPEN, "{\"id\":\"" + id + "\"}"))
                    .status())
            .isEqualTo(202);
        assertThat(
                apis.get((i + 1) % 3)
                    .publish(event("close-" + i, CLOSE, "{\"id\":\"" + id + "\"}"))
                    .status())
            .isEqualTo(202);
      }
      await().atMost(Duration.ofSeconds(90)).until(() -> pairs.size() >= 150);
      await()
          .during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(10))
          .until(() -> pairs.values().stream().mapToInt(AtomicInteger::get).sum() == 150);
      System.out.printf(
          "config-in-force: detector created through b answered 201 after %d ms (in force on all 3,"
              + " 2 busy threads); commit to applied on a: %s ms, on c: %s ms; %d of 150 open/close pairs posted"
              + " round-robin right after the answer were found%n",
          answeredMillis, lagOf(apis.get(0), version), lagOf(apis.get(2), version), pairs.size());
      assertThat(pairs).hasSize(150);
    }
  }

  @Test
  @Order(2)
  void aSubscriptionDoesNotWaitBehindARuleSetCompileElsewhere() throws Exception {
    try (CpuLoad load = new CpuLoad(2)) {
      awaitSameVersionEverywhere();
      // A rule set through b (Drools compiles it on every replica: seconds on a loaded machine);
      // once it is committed
      // and the others are compiling it, a subscription through a.
      String drl =
          """
          rule "count per key"
          when
            $last : Event( type == "com.example.force.lag", $k : text("key") )
            not Event( type == "com.example.force.lag", text("key") == $k, this after $last )
            $n : Number() from accumulate( $f : Event( type == "com.example.force.lag", text("key") == $k ),
                count( $f ) )
          then
            actions.run("publish", Map.of("type", "com.example.force.lagged", "data", Map.of("key", $k, "n", $n)));
          end""";
      CompletableFuture<Api.Response> rules =
          CompletableFuture.supplyAsync(
              () ->
                  apis.get(1)
                      .postJson(
                          "/api/v1/rules",
                          "{\"name\": \"force-lag\", \"partitionBy\": \"data.key\", \"drl\": "
                              + quote(drl)
                              + "}"));
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(5))
          .until(() -> versionOf("rules", "force-lag") > 0);
      Api.Response sub =
          apis.get(0)
              .postJson(
                  "/api/v1/subscriptions",
                  """
          {"name": "lag", "pattern": {"type": ["com.example.force.lag"]}, "target": "jms:queue:force.lag.out"}""");
      assertThat(sub.status()).as(sub.body()).isIn(201, 202);
      Api.Response r = rules.get(180, TimeUnit.SECONDS);
      assertThat(r.status()).as(r.body()).isIn(201, 202);
      awaitSameVersionEverywhere();

      long rulesVersion = versionOf("rules", "force-lag");
      long subVersion =
          db.sql("select max(version) from config_change where kind = 'subscription'")
              .query(Long.class)
              .single();
      System.out.printf(
          "config-in-force: commit to applied (2 busy threads) — rule set created through b: on a %s ms,"
              + " on c %s ms; subscription created through a while they compiled it: on b %s ms, on c %s ms%n",
          lagOf(apis.get(0), rulesVersion),
          lagOf(apis.get(2), rulesVersion),
          lagOf(apis.get(1), subVersion),
          lagOf(apis.get(2), subVersion));
      // On c, the subscription (committed after the rule set) was applied before the rule set's
      // compile ended.
      long subAppliedOnC = changedAt(subVersion) + lagOf(apis.get(2), subVersion);
      long rulesAppliedOnC = changedAt(rulesVersion) + lagOf(apis.get(2), rulesVersion);
      assertThat(subAppliedOnC)
          .as("the subscription did not queue behind c's rule-set compile")
          .isLessThan(rulesAppliedOnC);
    }
  }

  @Test
  @Order(3)
  void aWriteWhileAReplicaIsPausedAnswers202NamingItAndThePollSaysInForceOnceItRuns() {
    awaitSameVersionEverywhere();
    ServiceProcess c = replicas.get(2);
    c.pause();
    try {
      long start = System.nanoTime();
      Api.Response r =
          apis.get(0)
              .postJson(
                  "/api/v1/subscriptions",
                  """
          {"name": "paused", "pattern": {"type": ["com.example.force.paused"]}, "target": "jms:queue:force.p.out"}""");
      long waitedMillis = (System.nanoTime() - start) / 1_000_000;
      assertThat(r.status()).as(r.body()).isEqualTo(202);
      assertThat(r.json().get("id").asText()).as("the same body as a 201").isNotBlank();
      assertThat(r.header(ConfigApplyFilter.LAGGING)).isEqualTo("c");
      long version = Long.parseLong(r.header(ConfigApplyFilter.VERSION));
      assertThat(r.header("Link"))
          .isEqualTo("</api/v1/cluster/versions/" + version + ">; rel=\"monitor\"");
      assertThat(waitedMillis)
          .as("answered at the bound (2s), not before")
          .isGreaterThanOrEqualTo(2000);

      JsonNode poll = apis.get(1).get("/api/v1/cluster/versions/" + version).json();
      assertThat(poll.get("inForce").asBoolean()).as("%s", poll).isFalse();
      assertThat(poll.get("lagging")).extracting(JsonNode::asText).containsExactly("c");
      System.out.printf(
          "config-in-force: c SIGSTOPped; subscription through a answered %d after %d ms, lagging %s;"
              + " poll: %s%n",
          r.status(), waitedMillis, r.header(ConfigApplyFilter.LAGGING), poll);

      c.resume();
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(50))
          .until(
              () ->
                  apis.get(0)
                      .get("/api/v1/cluster/versions/" + version)
                      .json()
                      .get("inForce")
                      .asBoolean());
      assertThat(selfVersion(apis.get(2))).as("c applied it").isGreaterThanOrEqualTo(version);
      assertThat(liveReplicas())
          .as("c is live: in force because it applied it, not because it was skipped")
          .isEqualTo(3);
    } finally {
      c.resume();
    }
  }

  @Test
  @Order(4)
  void thePollRefusesAVersionNotYetRecorded() {
    long current = apis.get(0).get("/api/v1/cluster").json().get("configVersion").asLong();
    Api.Response r = apis.get(0).get("/api/v1/cluster/versions/" + (current + 1000));
    assertThat(r.status()).isEqualTo(404);
    Api.Response bad = apis.get(0).get("/api/v1/cluster/versions/x");
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.json().get("field").asText()).isEqualTo("version");
  }

  // ------------------------------------------------------------------ helpers

  /** Threads spinning on the CPU for as long as it is open: the loaded machine of issue 21. */
  static final class CpuLoad implements AutoCloseable {
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();

    CpuLoad(int n) {
      for (int i = 0; i < n; i++) {
        Thread t =
            new Thread(
                () -> {
                  long x = 0;
                  while (running.get()) {
                    x += Long.numberOfTrailingZeros(x * 31 + 7);
                  }
                  if (x == 42) {
                    System.out.print("");
                  }
                },
                "cpu-load-" + i);
        t.setDaemon(true);
        t.start();
        threads.add(t);
      }
    }

    @Override
    public void close() throws InterruptedException {
      running.set(false);
      for (Thread t : threads) {
        t.join();
      }
    }
  }

  private static long changedAt(long version) {
    return db.sql("select changed_at from config_change where version = ?")
        .param(version)
        .query(Long.class)
        .single();
  }

  private static String quote(String s) {
    return io.activityservice.events.json.Json.MAPPER.valueToTree(s).toString();
  }

  private static long versionOf(String kind, String key) {
    return db.sql(
            "select coalesce(max(version), 0) from config_change where kind = ? and change_key = ?")
        .params(kind, key)
        .query(Long.class)
        .single();
  }

  /**
   * Milliseconds from the commit of {@code version} to applied on that replica, as it reports; null
   * if absent.
   */
  private static Long lagOf(Api api, long version) {
    for (JsonNode l : api.get("/api/v1/cluster/self/lags").json()) {
      if (l.get("version").asLong() == version) {
        return l.get("lagMillis").asLong();
      }
    }
    return null;
  }

  private static int liveReplicas() {
    JsonNode cluster = apis.get(0).get("/api/v1/cluster").json();
    int live = 0;
    for (JsonNode r : cluster.get("replicas")) {
      live += r.get("live").asBoolean() ? 1 : 0;
    }
    return live;
  }

  private static long selfVersion(Api api) {
    try {
      return api.get("/api/v1/cluster/self").json().get("configVersion").asLong();
    } catch (RuntimeException e) {
      return -1;
    }
  }

  private static void awaitSameVersionEverywhere() {
    long version = apis.get(0).get("/api/v1/cluster").json().get("configVersion").asLong();
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> apis.stream().allMatch(a -> selfVersion(a) >= version));
  }

  private static InboundChannel receive(String uri, Map<String, AtomicInteger> into) {
    ChannelUri u = ChannelUri.parse(uri);
    return client.openInbound(
        u,
        InboundSettings.strict(),
        (e, ack) -> {
          into.computeIfAbsent(e.getId(), k -> new AtomicInteger()).incrementAndGet();
          ack.ack();
        });
  }

  private static String event(String id, String type, String data) {
    return """
        {"specversion": "1.0", "id": "%s", "source": "/force", "type": "%s", "datacontenttype": "application/json",
         "data": %s}"""
        .formatted(id, type, data);
  }
}
