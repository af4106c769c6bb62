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
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.jms.JmsChannelAdapter;
import io.activityservice.testsupport.ServiceProcess;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Three packaged replicas as separate processes on one PostgreSQL and one external ActiveMQ broker,
 * used as a team would run them: configuration changed through one replica applies on all,
 * detectors and rule sets partitioned by key see every event whichever replica received it, and a
 * replica SIGKILLed mid-stream loses nothing.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplicasIT {

  static final String OPEN = "com.example.rep.open";
  static final String CLOSE = "com.example.rep.close";
  static final String PAIR = "com.example.rep.pair";
  static final String COUNT = "com.example.rep.count";
  static final String COUNTED = "com.example.rep.counted";

  static ServiceCluster cluster;
  static JmsChannelAdapter client;
  static List<ServiceProcess> replicas;
  static List<Api> apis;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster =
        ServiceCluster.start(
            "replicas-it",
            PackagedService.jar(),
            List.of("a", "b", "c"),
            name ->
                List.of(
                    // Writes answer once in force everywhere: a compile on every replica takes
                    // seconds on a loaded machine.
                    "--activity.cluster.apply-wait=120s",
                    "--activity.inbound[0].uri=jms:topic:activity.events.in"));
    client = cluster.client();
    replicas = cluster.replicas();
    apis = cluster.apis();
  }

  @AfterAll
  static void stopCluster() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Order(1)
  void aConfigurationChangeIsVisibleOnEveryReplicaWithinASecond() {
    int changes = 100;
    long[] observed = new long[changes];
    List<String> ids = new ArrayList<>();
    Map<Long, Long> worstLag = new ConcurrentHashMap<>();
    for (int i = 0; i < changes; i++) {
      int w = i % 3;
      Api writer = apis.get(w);
      long start = System.nanoTime();
      Api.Response r =
          writer.postJson(
              "/api/v1/subscriptions",
              """
          {"name": "prop %d", "pattern": {"type": ["com.example.rep.prop.%d"]}, "target": "jms:queue:rep.prop.out"}"""
                  .formatted(i, i));
      assertThat(r.status()).as(r.body()).isEqualTo(201);
      ids.add(r.json().get("id").asText());
      long version = writer.get("/api/v1/cluster").json().get("configVersion").asLong();
      await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(10))
          .until(() -> apis.stream().allMatch(a -> selfVersion(a) >= version));
      observed[i] = (System.nanoTime() - start) / 1_000_000;
      // How long the change took to take effect on the two other replicas, measured there from its
      // commit.
      for (int other = 0; other < 3; other++) {
        if (other != w) {
          for (JsonNode l : apis.get(other).get("/api/v1/cluster/self/lags").json()) {
            if (l.get("version").asLong() == version) {
              worstLag.merge(version, l.get("lagMillis").asLong(), Math::max);
            }
          }
        }
      }
    }
    long[] lags = worstLag.values().stream().mapToLong(Long::longValue).sorted().toArray();
    Arrays.sort(observed);
    assertThat(lags).as("every change was applied on the other replicas").hasSize(changes);
    System.out.printf(
        "replicas: configuration change in effect on all 3 replicas (commit to applied, measured on"
            + " each replica): p50 %d ms, p99 %d ms, max %d ms over %d changes; seen by a client polling every 10 ms:"
            + " p50 %d ms, p99 %d ms%n",
        lags[changes / 2],
        lags[changes - 2],
        lags[changes - 1],
        changes,
        observed[changes / 2],
        observed[changes - 2]);
    assertThat(lags[(int) Math.ceil(changes * 0.99) - 1])
        .as("p99 of commit-to-applied on every replica")
        .isLessThanOrEqualTo(1000);
    for (String id : ids) {
      assertThat(apis.get(1).delete("/api/v1/subscriptions/" + id).status()).isEqualTo(204);
    }
  }

  @Test
  @Order(2)
  void aSubscriptionCreatedThroughOneReplicaRoutesEveryEventConsumedByAll() throws Exception {
    Map<String, AtomicInteger> received = new ConcurrentHashMap<>();
    try (InboundChannel out = receive("jms:queue:rep.sub.out", received)) {
      Api.Response sub =
          apis.get(0)
              .postJson(
                  "/api/v1/subscriptions",
                  """
          {"name": "rep", "pattern": {"type": ["com.example.rep.sub"]}, "target": "jms:queue:rep.sub.out"}""");
      assertThat(sub.status()).isEqualTo(201);
      awaitSameVersionEverywhere();
      List<String> ids = sendToTopic("com.example.rep.sub", "sub", 600);
      await().atMost(Duration.ofSeconds(60)).until(() -> received.size() >= 600);
      assertThat(received.keySet()).containsExactlyInAnyOrderElementsOf(ids);
      System.out.printf(
          "replicas: subscription created through replica a routed %d of 600 events consumed by all"
              + " three; consumed per replica: %s%n",
          received.size(), consumedPerReplica());
    }
  }

  @Test
  @Order(3)
  void aPartitionedDetectorPairsEventsPostedRoundRobinToTheThreeReplicas() throws Exception {
    Map<String, AtomicInteger> pairs = new ConcurrentHashMap<>();
    try (InboundChannel out = receive("jms:queue:rep.pairs", pairs)) {
      assertThat(
              apis.get(2)
                  .postJson(
                      "/api/v1/subscriptions",
                      """
          {"name": "pairs", "pattern": {"type": ["%s"]}, "target": "jms:queue:rep.pairs"}"""
                          .formatted(PAIR))
                  .status())
          .isEqualTo(201);
      for (String type : List.of(OPEN, CLOSE)) {
        assertThat(
                apis.get(0)
                    .postJson(
                        "/api/v1/event-types",
                        """
            {"type": "%s", "schema": {"type": "object", "properties": {"id": {"type": "string"}}}}"""
                            .formatted(type))
                    .status())
            .isEqualTo(201);
      }
      awaitSameVersionEverywhere();
      Api.Response d =
          apis.get(1)
              .postJson(
                  "/api/v1/detectors",
                  """
          {"name": "pairing", "inputs": {"O": "%s", "C": "%s"}, "partitionBy": "data.id", "emits": "%s",
           "epl": "select o.data.id as id from pattern [every o=O -> c=C(data.id = o.data.id)]"}"""
                      .formatted(OPEN, CLOSE, PAIR));
      assertThat(d.status()).as(d.body()).isEqualTo(201);
      awaitSameVersionEverywhere();

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
      await().atMost(Duration.ofSeconds(60)).until(() -> pairs.size() >= 150);
      await()
          .during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(10))
          .until(() -> pairs.values().stream().mapToInt(AtomicInteger::get).sum() == 150);
      assertThat(pairs).hasSize(150);
      JsonNode cluster = apis.get(0).get("/api/v1/cluster").json();
      System.out.printf(
          "replicas: detector paired %d of 150 open/close pairs posted round-robin; partition keys"
              + " per replica: %s%n",
          pairs.size(), ownedKeys(cluster, "pairing"));
      assertThat(cluster.get("replicas")).filteredOn(r -> r.get("live").asBoolean()).hasSize(3);
    }
  }

  @Test
  @Order(4)
  void aPartitionedRuleSetCountsPerKeyWithEventsArrivingThroughAllReplicas() throws Exception {
    List<CloudEvent> counted = new CopyOnWriteArrayList<>();
    ChannelUri uri = ChannelUri.parse("jms:queue:rep.counted");
    try (InboundChannel out =
        client.openInbound(
            uri,
            InboundSettings.strict(),
            (e, ack) -> {
              counted.add(e);
              ack.ack();
            })) {
      assertThat(
              apis.get(0)
                  .postJson(
                      "/api/v1/subscriptions",
                      """
          {"name": "counted", "pattern": {"type": ["%s"]}, "target": "%s"}"""
                          .formatted(COUNTED, uri))
                  .status())
          .isEqualTo(201);
      String drl =
          """
          rule "count per key"
          when
            $last : Event( type == "%s", $k : text("key") )
            not Event( type == "%s", text("key") == $k, this after $last )
            $n : Number() from accumulate( $f : Event( type == "%s", text("key") == $k ), count( $f ) )
          then
            actions.run("publish", Map.of("type", "%s", "data", Map.of("key", $k, "n", $n)));
          end"""
              .formatted(COUNT, COUNT, COUNT, COUNTED);
      Api.Response r =
          apis.get(2)
              .postJson(
                  "/api/v1/rules",
                  "{\"name\": \"counter\", \"partitionBy\": \"data.key\", \"drl\": "
                      + quote(drl)
                      + "}");
      assertThat(r.status()).as(r.body()).isEqualTo(201);
      awaitSameVersionEverywhere();

      int keys = 10;
      int perKey = 12;
      OffsetDateTime t0 = OffsetDateTime.of(2026, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);
      for (int n = 0; n < perKey; n++) {
        for (int k = 0; k < keys; k++) {
          int seq = n * keys + k;
          assertThat(
                  apis.get(seq % 3)
                      .publish(
                          """
              {"specversion": "1.0", "id": "count-%d", "source": "/rep", "type": "%s", "time": "%s",
               "datacontenttype": "application/json", "data": {"key": "k%d"}}"""
                              .formatted(seq, COUNT, t0.plusSeconds(seq), k))
                      .status())
              .isEqualTo(202);
        }
      }
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  maxCounts(counted).size() == keys
                      && maxCounts(counted).values().stream().allMatch(n -> n >= perKey));
      Map<String, Integer> max = maxCounts(counted);
      System.out.printf(
          "replicas: rule set partitioned by data.key counted per key %s (%d events per key, sent"
              + " round-robin through 3 replicas)%n",
          max, perKey);
      assertThat(max.values()).allMatch(n -> n == perKey);
    }
  }

  @Test
  @Order(5)
  void aReplicaKilledWhileEventsStreamInLosesNothing() throws Exception {
    Map<String, AtomicInteger> received = new ConcurrentHashMap<>();
    try (InboundChannel out = receive("jms:queue:rep.kill.out", received)) {
      assertThat(
              apis.get(0)
                  .postJson(
                      "/api/v1/subscriptions",
                      """
          {"name": "kill", "pattern": {"type": ["com.example.rep.kill"]}, "target": "jms:queue:rep.kill.out"}""")
                  .status())
          .isEqualTo(201);
      awaitSameVersionEverywhere();
      CompletableFuture<List<String>> sending =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return sendToTopic("com.example.rep.kill", "kill", 3000);
                } catch (Exception e) {
                  throw new java.util.concurrent.CompletionException(e);
                }
              });
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(10))
          .until(() -> received.size() >= 500);
      replicas.get(2).kill();
      int beforeKill = received.size();
      List<String> ids = sending.get(120, TimeUnit.SECONDS);
      await().atMost(Duration.ofSeconds(120)).until(() -> received.keySet().containsAll(ids));
      long duplicates = received.values().stream().filter(n -> n.get() > 1).count();
      System.out.printf(
          "replicas: SIGKILL of replica c after %d events: %d of 3000 arrived, %d duplicates%n",
          beforeKill, received.size(), duplicates);
      assertThat(received.keySet()).containsExactlyInAnyOrderElementsOf(ids);
    }
  }

  // ------------------------------------------------------------------ helpers

  private static long selfVersion(Api api) {
    try {
      return api.get("/api/v1/cluster/self").json().get("configVersion").asLong();
    } catch (RuntimeException e) {
      return -1;
    }
  }

  private static void awaitSameVersionEverywhere() {
    long version = apis.get(0).get("/api/v1/cluster").json().get("configVersion").asLong();
    // Detectors and rule sets compile on every replica (Drools takes seconds on a busy machine).
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

  private static List<String> sendToTopic(String type, String prefix, int n) throws Exception {
    List<String> ids = new ArrayList<>();
    try (OutboundChannel in =
        client.openOutbound(ChannelUri.parse("jms:topic:activity.events.in"))) {
      List<CompletableFuture<Void>> sends = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        CloudEvent e =
            CloudEventBuilder.v1()
                .withId(prefix + "-" + i)
                .withSource(URI.create("/rep"))
                .withType(type)
                .withDataContentType("application/json")
                .withData(("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8))
                .build();
        ids.add(e.getId());
        sends.add(in.send(e));
        if (sends.size() == 200) {
          CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new))
              .get(60, TimeUnit.SECONDS);
          sends.clear();
        }
      }
      CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    }
    return ids;
  }

  private static String event(String id, String type, String data) {
    return """
        {"specversion": "1.0", "id": "%s", "source": "/rep", "type": "%s", "datacontenttype": "application/json",
         "data": %s}"""
        .formatted(id, type, data);
  }

  private static Map<String, Integer> maxCounts(List<CloudEvent> counted) {
    Map<String, Integer> max = new ConcurrentHashMap<>();
    for (CloudEvent e : counted) {
      JsonNode data =
          io.activityservice.events.json.Json.parse(
              new String(e.getData().toBytes(), StandardCharsets.UTF_8), "data");
      max.merge(data.get("key").asText(), data.get("n").asInt(), Math::max);
    }
    return max;
  }

  private static String consumedPerReplica() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < apis.size(); i++) {
      out.add(
          "abc".charAt(i)
              + "="
              + apis.get(i)
                  .get("/actuator/metrics/activity.events.in")
                  .json()
                  .path("measurements")
                  .path(0)
                  .path("value")
                  .asText("?"));
    }
    return String.join(", ", out);
  }

  private static String ownedKeys(JsonNode cluster, String detector) {
    List<String> out = new ArrayList<>();
    for (JsonNode r : cluster.get("replicas")) {
      for (JsonNode o : r.path("owns")) {
        if (detector.equals(o.path("name").asText())) {
          out.add(r.get("replicaId").asText() + "=" + o.path("keysSeen").asInt());
        }
      }
    }
    return String.join(", ", out);
  }

  private static String quote(String s) {
    return io.activityservice.events.json.Json.MAPPER.valueToTree(s).toString();
  }
}
