package io.activityservice.app.abuse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import io.activityservice.app.support.Api;
import io.activityservice.app.support.Api.Response;
import io.activityservice.app.support.SseClient;
import io.activityservice.app.support.WebhookReceiver;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.OutboundEvent;
import io.activityservice.events.channel.ChannelRegistry;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * Issue 19's abuse corpus for the API side (event-service and activity-service), run against the
 * real service over real HTTP. Every case is one request an attacker holding a low-privilege key
 * could send, with the answer it must get (status and the field named) and a check that its effect
 * is absent: no request reached a canary HTTP server on loopback, no subscriber of another scope
 * received anything (Awaitility {@code during}), no file, nothing stored, the server did not read
 * the body or stayed within a latency bound, no forged log line. The corpus is the list built in
 * {@link #corpus()}; its size per class is printed and asserted.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"activity.outbound.allowed-networks=127.0.0.1/32"})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AbuseCorpusApiTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** How long the absence of an effect is watched after a refused request. */
  private static final Duration WINDOW = Duration.ofMillis(500);

  private static final long MB = 1024 * 1024;

  @LocalServerPort int port;
  @Autowired ChannelRegistry channels;

  private final WebhookReceiver canary = new WebhookReceiver();
  private HttpServer slow;
  private final AtomicInteger slowRequests = new AtomicInteger();
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private Api admin;
  private Api subA;
  private Api pubA;
  private Api authA;
  private Api subAll;
  private String slowBase;
  private Path secretFile;
  private Path dir;
  private final Map<String, Integer> sizes = new LinkedHashMap<>();

  /**
   * One abuse attempt: the request, the answer it must get, and the check that its effect is
   * absent.
   */
  record Case(
      String cls,
      String name,
      Callable<Response> attempt,
      int status,
      String field,
      Effect effect) {}

  /** The absence of a case's effect, checked after its answer. */
  @FunctionalInterface
  interface Effect {
    void check(Response answer, long millis) throws Exception;
  }

  @BeforeAll
  void setUp() throws Exception {
    admin = new Api(port);
    subA =
        admin.withKey(admin.createKey("corpus-sub-a", List.of("subscriber"), List.of("com.a.*")));
    pubA = admin.withKey(admin.createKey("corpus-pub-a", List.of("publisher"), List.of("com.a.*")));
    authA =
        admin.withKey(admin.createKey("corpus-author-a", List.of("author"), List.of("com.a.*")));
    subAll = admin.withKey(admin.createKey("corpus-sub-all", List.of("subscriber"), List.of("*")));
    slow = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    slow.createContext(
        "/",
        exchange -> {
          slowRequests.incrementAndGet();
          try {
            Thread.sleep(30_000);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          exchange.close();
        });
    slow.setExecutor(
        java.util.concurrent.Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "corpus-slow-server");
              t.setDaemon(true);
              return t;
            }));
    slow.start();
    slowBase = "http://127.0.0.1:" + slow.getAddress().getPort();
    dir = Files.createTempDirectory("corpus");
    secretFile = Files.writeString(dir.resolve("secret.json"), "{\"type\": \"string\"}");
    assertThat(
            admin
                .postJson(
                    "/api/v1/event-types",
                    "{\"type\": \"com.b.existing\", \"owner\": \"team-b\","
                        + " \"schema\": {\"type\": \"object\"}}")
                .status())
        .isEqualTo(201);
    assertThat(
            admin
                .postJson(
                    "/api/v1/event-types",
                    "{\"type\": \"com.a.strict\", \"schema\": {\"type\": \"object\","
                        + " \"additionalProperties\": false, \"properties\": {\"n\": {\"type\": \"integer\"}}}}")
                .status())
        .isEqualTo(201);
    // Subscribers of another scope: everything com.b.* goes to /b-sink.
    assertThat(
            admin
                .postJson(
                    "/api/v1/subscriptions",
                    subscription(
                        "b-sink", "{\"type\": [{\"prefix\": \"com.b.\"}]}", canary.url("/b-sink")))
                .status())
        .isEqualTo(201);
    // Positive control: an in-scope subscription of subA receives its event well within the window.
    assertThat(
            subA.postJson(
                    "/api/v1/subscriptions",
                    subscription("control", "{\"type\": [\"com.a.x\"]}", canary.url("/control")))
                .status())
        .isEqualTo(201);
    String id = "control-" + UUID.randomUUID();
    long t0 = System.nanoTime();
    assertThat(pubA.publish(event(id, "com.a.x", "/control")).status()).isEqualTo(202);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> canary.calls("/control").stream().anyMatch(c -> c.body().contains(id)));
    assertThat((System.nanoTime() - t0) / 1_000_000)
        .as("delivery latency of the control")
        .isLessThan(WINDOW.toMillis());
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    logs.start();
    root.addAppender(logs);
  }

  @AfterAll
  void tearDown() {
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(logs);
    canary.close();
    slow.stop(0);
  }

  @TestFactory
  Stream<DynamicNode> corpus() {
    List<Case> all = new ArrayList<>();
    all.addAll(scopeWideningViaPatterns());
    all.addAll(eventTypeScope());
    all.addAll(definitionBorneFetches());
    all.addAll(streamedBodies());
    all.addAll(explosionAndLongAttributes());
    all.addAll(parsingDifferentials());
    all.addAll(logInjection());
    all.addAll(internalClassNames());
    Map<String, List<Case>> byClass = new LinkedHashMap<>();
    all.forEach(c -> byClass.computeIfAbsent(c.cls(), k -> new ArrayList<>()).add(c));
    byClass.forEach((k, v) -> sizes.put(k, v.size()));
    System.out.println("abuse corpus (API): " + all.size() + " cases " + sizes);
    assertThat(all).hasSizeGreaterThanOrEqualTo(100);
    return byClass.entrySet().stream()
        .map(
            e ->
                DynamicContainer.dynamicContainer(
                    e.getKey(),
                    e.getValue().stream()
                        .map(c -> DynamicTest.dynamicTest(c.name(), () -> run(c)))));
  }

  private void run(Case c) throws Exception {
    long t0 = System.nanoTime();
    Response r = c.attempt().call();
    long millis = (System.nanoTime() - t0) / 1_000_000;
    assertThat(r.status()).as(c.name() + ": " + r.body()).isEqualTo(c.status());
    if (c.field() != null) {
      assertThat(r.json()).as(c.name() + ": " + r.body()).isNotNull();
      assertThat(r.json().path("field").asText())
          .as(c.name() + ": " + r.body())
          .isEqualTo(c.field());
      assertThat(r.contentType()).startsWith("application/problem+json");
    }
    assertThat(r.body())
        .as("no internal names in the answer")
        .doesNotContain(
            "java.",
            "io.activityservice",
            "tools.jackson",
            "com.fasterxml",
            "software.amazon",
            "com.networknt",
            "Exception",
            "$Retry");
    c.effect().check(r, millis);
  }

  /**
   * Cost per tenant: one tenant holds as many wildcard subscriptions as it may, each as complex as
   * allowed, on {@code source} (which Event Ruler reads before {@code type}, so they run on every
   * event); another tenant's publish with the longest {@code source} ingest accepts stays fast.
   * Before issue 19, 20 subscriptions with 25-star wildcards made such a publish (2,000 characters)
   * take 11.7 s. The bound asserted is generous (the figures are for perf-tests); that it holds at
   * all is the point.
   */
  @org.junit.jupiter.api.Test
  void aSlowTenantsWildcardsDoNotSlowAnotherTenantsPublish() throws Exception {
    int allowed = 20;
    for (int i = 0; i < allowed; i++) {
      Response r =
          subAll.postJson(
              "/api/v1/subscriptions",
              subscription(
                  "slow-" + i,
                  "{\"source\": [{\"wildcard\": \"*a*a*a*a" + (char) ('b' + i) + "\"}]}",
                  canary.url("/slow-tenant")));
      assertThat(r.status()).as(r.body()).isEqualTo(201);
    }
    Response refused =
        subAll.postJson(
            "/api/v1/subscriptions",
            subscription(
                "slow-over",
                "{\"source\": [{\"wildcard\": \"*a*a*a*az\"}]}",
                canary.url("/slow-tenant")));
    assertThat(refused.status()).isEqualTo(400);
    assertThat(refused.json().get("field").asText()).isEqualTo("pattern");
    assertThat(refused.json().get("detail").asText())
        .contains("max-wildcard-subscriptions-per-owner");
    assertThat(
            subAll
                .postJson(
                    "/api/v1/subscriptions",
                    subscription(
                        "slow-25",
                        "{\"source\": [{\"wildcard\": \"" + "*a".repeat(25) + "\"}]}",
                        canary.url("/slow-tenant")))
                .status())
        .isEqualTo(400);
    long worst = 0;
    for (int i = 0; i < 5; i++) {
      String id = "long-source-" + i + "-" + UUID.randomUUID();
      long t0 = System.nanoTime();
      Response r = pubA.publish(event(id, "com.a.x", "a".repeat(1_024)));
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertThat(r.status()).as(r.body()).isEqualTo(202);
      worst = Math.max(worst, ms);
    }
    System.out.println(
        "publish with a 1,024-character source beside 20 wildcard subscriptions: worst "
            + worst
            + " ms");
    assertThat(worst).as("another tenant's publish, ms").isLessThan(2_000);
    Response tooLong = pubA.publish(event("too-long", "com.a.x", "a".repeat(1_025)));
    assertThat(tooLong.status()).isEqualTo(400);
    assertThat(tooLong.json().get("field").asText()).isEqualTo("source");
    await()
        .during(WINDOW)
        .atMost(WINDOW.plusSeconds(2))
        .until(() -> canary.calls("/slow-tenant").isEmpty());
    for (JsonNode sub : subAll.get("/api/v1/subscriptions").json()) {
      subAll.delete("/api/v1/subscriptions/" + sub.get("id").asText());
    }
  }

  // ---- effects
  // ----------------------------------------------------------------------------------------------

  /** No request reached the canary on {@code path}, watched for the window. */
  private Effect noCall(String path) {
    return (r, ms) ->
        await()
            .during(WINDOW)
            .atMost(WINDOW.plusSeconds(2))
            .until(() -> canary.calls(path).isEmpty());
  }

  /** Nothing reached the canary's fetch paths ({@code /f...}) or the slow server. */
  private Effect nothingFetched() {
    return (r, ms) ->
        await()
            .during(Duration.ofMillis(300))
            .atMost(Duration.ofSeconds(3))
            .until(
                () ->
                    canary.calls().stream().noneMatch(c -> c.path().startsWith("/f"))
                        && slowRequests.get() == 0);
  }

  /**
   * After publishing probe events of other scopes, the refused subscription's path receives
   * nothing.
   */
  private Effect noDeliveryAfterProbes(String path) {
    return (r, ms) -> {
      for (String[] probe :
          new String[][] {
            {"com.b.y", "x"},
            {"com.b.z", "/s"},
            {"COM.A.X", "x"},
            {"10.0.0.5", "x"},
            {"com.bx", "x"}
          }) {
        assertThat(admin.publish(event("probe-" + UUID.randomUUID(), probe[0], probe[1])).status())
            .isEqualTo(202);
      }
      noCall(path).check(r, ms);
      assertThat(admin.get("/api/v1/subscriptions").body())
          .as("nothing stored")
          .doesNotContain(path);
    };
  }

  /** The event {@code id} reached no subscriber of another scope (b-sink). */
  private Effect notDelivered(String id) {
    return (r, ms) ->
        await()
            .during(WINDOW)
            .atMost(WINDOW.plusSeconds(2))
            .until(() -> canary.calls("/b-sink").stream().noneMatch(c -> c.body().contains(id)));
  }

  private Effect fasterThan(long millis) {
    return (r, ms) -> assertThat(ms).as("answered within the bound").isLessThan(millis);
  }

  private static Effect all(Effect... effects) {
    return (r, ms) -> {
      for (Effect e : effects) {
        e.check(r, ms);
      }
    };
  }

  private Effect typeUnchanged(String type, int version) {
    return (r, ms) -> {
      Response t = admin.get("/api/v1/event-types/" + type);
      assertThat(t.status()).isEqualTo(200);
      assertThat(t.json().get("version").asInt()).isEqualTo(version);
      assertThat(t.json().get("owner").asText()).isEqualTo("team-b");
    };
  }

  private Effect typeAbsent(String type) {
    return (r, ms) ->
        assertThat(
                admin
                    .get("/api/v1/event-types/" + URLEncoder.encode(type, StandardCharsets.UTF_8))
                    .status())
            .isEqualTo(404);
  }

  private Effect noSubscriptionNamed(String name) {
    return (r, ms) ->
        assertThat(admin.get("/api/v1/subscriptions").json())
            .noneSatisfy(s -> assertThat(s.get("name").asText()).isEqualTo(name));
  }

  // ---- helpers
  // ----------------------------------------------------------------------------------------------

  static String subscription(String name, String pattern, String target) {
    return "{\"name\": "
        + quote(name)
        + ", \"pattern\": "
        + pattern
        + ", \"target\": "
        + quote(target)
        + "}";
  }

  static String event(String id, String type, String source) {
    ObjectNode e = JSON.createObjectNode();
    e.put("specversion", "1.0").put("id", id).put("source", source).put("type", type);
    e.putObject("data").put("n", 1);
    return e.toString();
  }

  static String quote(String s) {
    return JSON.getNodeFactory().textNode(s).toString();
  }

  private static String slug(String s) {
    return s.replaceAll("[^A-Za-z0-9]+", "-").replaceAll("^-|-$", "");
  }

  private Response stream(Api as, String pattern, String filter) throws Exception {
    try (SseClient sse = SseClient.open(port, as.key(), pattern, filter)) {
      String body = sse.status() == 200 ? "" : sse.body();
      JsonNode json = body.isEmpty() ? null : JSON.readTree(body);
      return new Response(sse.status(), sse.contentType(), json, body, null);
    }
  }

  // ---- 1. scope widening via patterns
  // -----------------------------------------------------------------------

  private List<Case> scopeWideningViaPatterns() {
    String[][] widening = {
      {
        "{\"type\": [\"com.a.x\"], \"$or\": [{\"type\": [\"com.b.y\"]}, {\"source\": [\"x\"]}]}",
        "400"
      },
      {
        "{\"$or\": [{\"type\": [\"com.b.y\"]}, {\"source\": [\"x\"]}], \"type\": [\"com.a.x\"]}",
        "400"
      },
      {
        "{\"type\": [\"com.a.x\"], \"$or\": [{\"source\": [\"x\"]}, {\"$or\": [{\"type\": [\"com.b.y\"]}, {\"id\": [\"1\"]}]}]}",
        "400"
      },
      {"{\"$or\": [{\"type\": [\"com.a.x\"]}, {\"type\": [\"com.b.y\"]}]}", "403"},
      {"{\"$or\": [{\"type\": [\"com.a.x\"]}, {\"source\": [\"x\"]}]}", "403"},
      {
        "{\"$or\": [{\"type\": [\"com.a.x\"]}, {\"$or\": [{\"type\": [\"com.a.y\"]}, {\"type\": [\"com.b.z\"]}]}]}",
        "403"
      },
      {
        "{\"$or\": [{\"type\": [\"com.a.x\"], \"source\": [\"s\"]}, {\"subject\": [\"x\"]}]}", "403"
      },
      {"{\"type\": [{\"anything-but\": \"com.a.x\"}]}", "403"},
      {"{\"type\": [{\"anything-but\": {\"prefix\": \"com.a.\"}}]}", "403"},
      {"{\"type\": [{\"anything-but\": [\"com.a.x\", \"com.a.y\"]}]}", "403"},
      {"{\"type\": [{\"wildcard\": \"*\"}]}", "403"},
      {"{\"type\": [{\"wildcard\": \"com.*\"}]}", "403"},
      {"{\"type\": [{\"wildcard\": \"com.b.*\"}]}", "403"},
      {"{\"type\": [{\"wildcard\": \"*.a.*\"}]}", "403"},
      {"{\"type\": [{\"equals-ignore-case\": \"COM.A.X\"}]}", "403"},
      {"{\"type\": [{\"prefix\": {\"equals-ignore-case\": \"com.a.\"}}]}", "403"},
      {"{\"type\": [{\"suffix\": \".y\"}]}", "403"},
      {"{\"type\": [{\"suffix\": {\"equals-ignore-case\": \".Y\"}}]}", "403"},
      {"{\"type\": [{\"exists\": true}]}", "403"},
      {"{\"type\": [\"com.a.x\", {\"exists\": true}]}", "403"},
      {"{\"type\": [\"10.0.0.0/24\"]}", "403"},
      {"{\"type\": [{\"cidr\": \"10.0.0.0/8\"}]}", "403"},
      {"{\"type\": [{\"numeric\": [\">\", 0]}]}", "403"},
      {"{\"type\": [{\"prefix\": \"com.\"}]}", "403"},
      {"{\"type\": [{\"prefix\": \"com.a\"}]}", "403"},
      {"{\"type\": [\"com.b.y\"]}", "403"},
      {"{\"source\": [\"x\"]}", "403"},
      {"{\"type \": [\"com.a.x\"]}", "403"},
      {"{\"data\": {\"type\": [\"com.a.x\"]}}", "403"},
      {"{}", "403"}
    };
    List<Case> cases = new ArrayList<>();
    for (String[] w : widening) {
      String name = "subscribe " + w[0];
      String path = "/w/" + UUID.randomUUID();
      cases.add(
          new Case(
              "scope widening via patterns",
              name,
              () ->
                  subA.postJson(
                      "/api/v1/subscriptions", subscription("w " + path, w[0], canary.url(path))),
              Integer.parseInt(w[1]),
              "pattern",
              noDeliveryAfterProbes(path)));
    }
    // The live tail: type matchers beyond the scope are refused too; every event is filtered by
    // type anyway.
    for (String p :
        new String[] {
          "{\"type\": [\"com.b.y\"]}",
          "{\"$or\": [{\"type\": [\"com.a.x\"]}, {\"type\": [\"com.b.y\"]}]}",
          "{\"type\": [{\"anything-but\": \"com.a.x\"}]}",
          "{\"type\": [{\"wildcard\": \"com.b.*\"}]}",
          "{\"type\": [\"com.a.x\"], \"$or\": [{\"type\": [\"com.b.y\"]}, {\"source\": [\"x\"]}]}"
        }) {
      cases.add(
          new Case(
              "scope widening via patterns",
              "live tail " + p,
              () -> stream(subA, p, null),
              p.contains("\"$or\": [{\"type\": [\"com.b.y\"]}, {\"source\"") ? 400 : 403,
              "pattern",
              (r, ms) -> {
                // A stream that was allowed (no pattern) still shows nothing of com.b.*.
                try (SseClient sse = SseClient.open(port, subA.key(), null, null).start()) {
                  String id = "tail-" + UUID.randomUUID();
                  assertThat(admin.publish(event(id, "com.b.y", "x")).status()).isEqualTo(202);
                  long end = System.nanoTime() + WINDOW.toNanos();
                  while (System.nanoTime() < end) {
                    SseClient.Event ev = sse.next(Duration.ofMillis(100));
                    if (ev != null && "cloudevent".equals(ev.name())) {
                      assertThat(ev.data()).doesNotContain(id);
                    }
                  }
                }
              }));
    }
    return cases;
  }

  // ---- 2. event-type scope
  // ----------------------------------------------------------------------------------

  private List<Case> eventTypeScope() {
    List<Case> cases = new ArrayList<>();
    String cls = "event-type scope";
    for (String type :
        new String[] {
          "com.b.new", "com.a", "com.ab.x", "com.a\u2024x", "COM.A.X", "com.b.existing"
        }) {
      cases.add(
          new Case(
              cls,
              "author creates " + type,
              () ->
                  authA.postJson(
                      "/api/v1/event-types",
                      "{\"type\": " + quote(type) + ", \"owner\": \"team-b\"}"),
              403,
              "type",
              type.equals("com.b.existing") ? typeUnchanged(type, 1) : typeAbsent(type)));
    }
    cases.add(
        new Case(
            cls,
            "author replaces com.b.existing",
            () ->
                authA.put(
                    "/api/v1/event-types/com.b.existing",
                    "{\"owner\": \"team-a\", \"schema\": {\"type\": \"string\"}}"),
            403,
            "type",
            typeUnchanged("com.b.existing", 1)));
    cases.add(
        new Case(
            cls,
            "author creates com.b.other with PUT",
            () -> authA.put("/api/v1/event-types/com.b.other", "{\"owner\": \"team-a\"}"),
            403,
            "type",
            typeAbsent("com.b.other")));
    cases.add(
        new Case(
            cls,
            "author replaces with a body type in scope",
            () ->
                authA.put(
                    "/api/v1/event-types/com.b.existing",
                    "{\"type\": \"com.a.x\", \"owner\": \"team-a\"}"),
            403,
            "type",
            typeUnchanged("com.b.existing", 1)));
    cases.add(
        new Case(
            cls,
            "author deletes com.b.existing",
            () -> authA.delete("/api/v1/event-types/com.b.existing"),
            403,
            "type",
            typeUnchanged("com.b.existing", 1)));
    // The firewall refuses encoded dots in paths before any controller: what is checked is what is
    // routed.
    cases.add(
        new Case(
            cls,
            "author deletes percent-encoded",
            () -> authA.delete("/api/v1/event-types/com.b%2Eexisting"),
            400,
            "path",
            typeUnchanged("com.b.existing", 1)));
    cases.add(
        new Case(
            cls,
            "subscriber creates a type",
            () -> subA.postJson("/api/v1/event-types", "{\"type\": \"com.a.sub\"}"),
            403,
            null,
            typeAbsent("com.a.sub")));
    cases.add(
        new Case(
            cls,
            "admin key with a scope",
            () ->
                admin.postJson(
                    "/api/v1/api-keys",
                    "{\"name\": \"scoped admin\", \"roles\": [\"admin\"], \"eventTypes\": [\"com.a.*\"]}"),
            400,
            "eventTypes",
            (r, ms) ->
                assertThat(admin.get("/api/v1/api-keys").body()).doesNotContain("scoped admin")));
    cases.add(
        new Case(
            cls,
            "author key without a scope",
            () ->
                admin.postJson(
                    "/api/v1/api-keys", "{\"name\": \"unscoped author\", \"roles\": [\"author\"]}"),
            400,
            "eventTypes",
            (r, ms) ->
                assertThat(admin.get("/api/v1/api-keys").body())
                    .doesNotContain("unscoped author")));
    cases.add(
        new Case(
            cls,
            "author reads an archive",
            () -> authA.get("/api/v1/archives"),
            403,
            null,
            (r, ms) ->
                assertThat(r.json().path("requiredRoles").toString()).isEqualTo("[\"admin\"]")));
    cases.add(
        new Case(
            cls,
            "subscriber starts a replay",
            () ->
                subA.postJson(
                    "/api/v1/replays",
                    "{\"name\": \"r\","
                        + " \"archive\": \"a\", \"from\": \"2026-01-01T00:00:00Z\", \"to\": \"2026-01-02T00:00:00Z\"}"),
            403,
            null,
            (r, ms) -> assertThat(admin.get("/api/v1/replays/r").status()).isEqualTo(404)));
    return cases;
  }

  // ---- 3. definition-borne fetches
  // --------------------------------------------------------------------------

  private List<Case> definitionBorneFetches() {
    String c = canary.url("/f");
    String v6 = c.replace("127.0.0.1", "[::1]");
    String[][] schemas = {
      {"{\"$ref\": \"" + c + "/a.json\"}", "schema/$ref"},
      {
        "{\"properties\": {\"a\": {\"$ref\": \"" + c + "/a.json#/x\"}}}", "schema/properties/a/$ref"
      },
      {"{\"$schema\": \"" + c + "/meta\"}", "schema/$schema"},
      {
        "{\"$id\": \"" + c + "/root.json\", \"properties\": {\"a\": {\"$ref\": \"other.json\"}}}",
        "schema/properties/a/$ref"
      },
      {"{\"$id\": \"" + c + "/dir/\", \"$ref\": \"../up.json\"}", "schema/$ref"},
      {"{\"$dynamicRef\": \"" + c + "/d.json#meta\"}", "schema/$dynamicRef"},
      {
        "{\"$defs\": {\"x\": {\"$dynamicRef\": \"" + c + "/d2.json\"}}}",
        "schema/$defs/x/$dynamicRef"
      },
      {"{\"$ref\": \"" + v6 + "/v6.json\"}", "schema/$ref"},
      {"{\"$ref\": \"http://169.254.169.254/latest/meta-data/\"}", "schema/$ref"},
      {"{\"$ref\": \"http://2130706433:" + URI.create(c).getPort() + "/dec.json\"}", "schema/$ref"},
      {"{\"$ref\": \"classpath:application.yml\"}", "schema/$ref"},
      {"{\"$ref\": \"classpath:draft/2020-12/schema\"}", "schema/$ref"},
      {"{\"$ref\": \"resource:application.yml\"}", "schema/$ref"},
      {"{\"$ref\": \"https://json-schema.org/application.yml\"}", "schema/$ref"},
      {"{\"$ref\": \"file:///etc/passwd\"}", "schema/$ref"},
      {"{\"$ref\": \"" + "SECRET" + "\"}", "schema/$ref"},
      {"{\"$ref\": \"jar:file:/tmp/x.jar!/schema.json\"}", "schema/$ref"},
      {"{\"$ref\": \"relative.json\"}", "schema/$ref"},
      {"{\"$ref\": \"//127.0.0.1:" + URI.create(c).getPort() + "/net-path.json\"}", "schema/$ref"},
      {"{\"allOf\": [{\"$ref\": \"" + c + "/all.json\"}]}", "schema/allOf/0/$ref"},
      {"{\"$ref\": \"" + slowBase + "/slow.json\"}", "schema/$ref"},
      {"{\"$schema\": \"" + slowBase + "/meta\"}", "schema/$schema"},
      {"{\"$schema\": \"http://json-schema.org/draft-03/schema#\"}", "schema/$schema"}
    };
    List<Case> cases = new ArrayList<>();
    String cls = "definition-borne fetches";
    for (String[] s : schemas) {
      String schema = s[0].replace("SECRET", secretFile.toUri().toString());
      String type = "com.a.fetch-" + UUID.randomUUID();
      cases.add(
          new Case(
              cls,
              "create with " + schema,
              () ->
                  authA.postJson(
                      "/api/v1/event-types",
                      "{\"type\": " + quote(type) + ", \"schema\": " + schema + "}"),
              400,
              s[1],
              all(nothingFetched(), typeAbsent(type), fasterThan(10_000))));
    }
    for (String[] s :
        new String[][] {schemas[0], schemas[2], schemas[5], schemas[10], schemas[20]}) {
      cases.add(
          new Case(
              cls,
              "replace com.a.strict with " + s[0],
              () -> admin.put("/api/v1/event-types/com.a.strict", "{\"schema\": " + s[0] + "}"),
              400,
              s[1],
              all(
                  nothingFetched(),
                  (r, ms) ->
                      assertThat(
                              admin
                                  .get("/api/v1/event-types/com.a.strict")
                                  .json()
                                  .get("version")
                                  .asInt())
                          .isEqualTo(1))));
    }
    // dataschema is an attribute the service never dereferences: accepted or refused by its form,
    // never fetched.
    for (String ds :
        new String[] {
          c + "/dataschema.json", slowBase + "/ds", "file:///etc/passwd", "classpath:x"
        }) {
      cases.add(
          new Case(
              cls,
              "publish with dataschema " + ds,
              () ->
                  pubA.publish(
                      event("ds-" + UUID.randomUUID(), "com.a.ds", "/s")
                          .replace("\"data\"", "\"dataschema\": " + quote(ds) + ", \"data\"")),
              202,
              null,
              all(nothingFetched(), fasterThan(10_000))));
    }
    cases.add(
        new Case(
            cls,
            "publish with an over-long dataschema",
            () ->
                pubA.publish(
                    event("ds-long", "com.a.ds", "/s")
                        .replace(
                            "\"data\"",
                            "\"dataschema\": " + quote(c + "/" + "x".repeat(2000)) + ", \"data\"")),
            400,
            "dataschema",
            nothingFetched()));
    cases.add(
        new Case(
            cls,
            "publish binary with a bad ce-dataschema",
            () ->
                pubA.post(
                    "/api/v1/events",
                    "application/json",
                    "{}",
                    Map.of(
                        "ce-specversion",
                        "1.0",
                        "ce-id",
                        "ds-bad",
                        "ce-source",
                        "/s",
                        "ce-type",
                        "com.a.ds",
                        "ce-dataschema",
                        "http://[x")),
            400,
            "ce-dataschema",
            nothingFetched()));
    return cases;
  }

  // ---- 4. streamed and chunked bodies
  // ------------------------------------------------------------------------

  private List<Case> streamedBodies() {
    String cls = "streamed and chunked bodies";
    Object[][] targets = {
      {"POST", "/api/v1/patterns/test", "application/json", "{\"pattern\": {\"type\": [\"", subA},
      {"POST", "/api/v1/subscriptions", "application/json", "{\"name\": \"", subA},
      {
        "POST",
        "/api/v1/events",
        "application/cloudevents+json",
        "{\"specversion\": \"1.0\", \"id\": \"",
        pubA
      },
      {"POST", "/api/v1/events", "application/cloudevents-batch+json", "[{\"id\": \"", pubA},
      {"POST", "/api/v1/events", "application/json", "{\"x\": \"", pubA},
      {
        "POST",
        "/api/v1/event-types",
        "application/json",
        "{\"type\": \"com.a.big\", \"description\": \"",
        authA
      },
      {"PUT", "/api/v1/event-types/com.a.big", "application/json", "{\"description\": \"", authA},
      {"POST", "/api/v1/api-keys", "application/json", "{\"name\": \"", admin},
      {"POST", "/api/v1/channels", "application/json", "{\"uri\": \"", admin},
      {"POST", "/api/v1/dead-letters/redrive", "application/json", "{\"subscription\": \"", subA}
    };
    List<Case> cases = new ArrayList<>();
    for (Object[] t : targets) {
      for (boolean chunked : new boolean[] {true, false}) {
        if (!chunked
            && !t[1].equals("/api/v1/patterns/test")
            && !t[1].equals("/api/v1/subscriptions")
            && !t[1].equals("/api/v1/events")) {
          continue;
        }
        Api as = (Api) t[4];
        String name =
            (chunked ? "chunked 20 MB " : "declared 20 MB ")
                + t[0]
                + " "
                + t[1]
                + " ("
                + t[2]
                + ")";
        long[] sent = new long[1];
        cases.add(
            new Case(
                cls,
                name,
                () -> {
                  ChunkedRequest r =
                      ChunkedRequest.send(
                          port,
                          (String) t[0],
                          (String) t[1],
                          as.key(),
                          (String) t[2],
                          (String) t[3],
                          20 * MB,
                          chunked);
                  sent[0] = r.bytesSent();
                  return new Response(
                      r.status(), "application/problem+json", r.json(), r.body(), null);
                },
                413,
                "body",
                all(
                    fasterThan(15_000),
                    (r, ms) -> {
                      assertThat(sent[0])
                          .as("body bytes the server took before answering")
                          .isLessThan(10 * MB);
                      assertThat(admin.get("/api/v1/event-types/com.a.big").status())
                          .isEqualTo(404);
                    })));
      }
    }
    return cases;
  }

  // ---- 5. pattern / CESQL explosion, wildcards and long attributes
  // -------------------------------------------

  static String orBomb(int groups) {
    StringBuilder sb = new StringBuilder("{\"type\": [\"com.a.x\"]");
    for (int i = 0; i < groups; i++) {
      sb.append(", \"f").append(i).append("\": {\"$or\": [{\"a\": [\"1\"]}, {\"b\": [\"2\"]}]}");
    }
    return sb.append('}').toString();
  }

  private List<Case> explosionAndLongAttributes() {
    String cls = "pattern/CESQL explosion and long attributes";
    String deep =
        "{\"type\": [\"com.a.x\"], "
            + "\"data\": {".repeat(20)
            + "\"v\": [1]"
            + "}".repeat(20)
            + "}";
    String stars =
        "{\"type\": [\"com.a.x\"], \"source\": [{\"wildcard\": \"" + "*a".repeat(25) + "\"}]}";
    String dataWildcard = "{\"type\": [\"com.a.x\"], \"data\": {\"t\": [{\"wildcard\": \"*a*\"}]}}";
    StringBuilder many = new StringBuilder("{\"type\": [\"com.a.x\"], \"source\": [");
    for (int i = 0; i < 9; i++) {
      many.append(i == 0 ? "" : ", ").append("{\"wildcard\": \"/s").append(i).append("/*\"}");
    }
    String manyWildcards = many.append("]}").toString();
    Object[][] patterns = {
      {"$or bomb of 15 groups", orBomb(15), "max-sub-rules"},
      {"$or bomb of 60 groups", orBomb(60), "max-sub-rules"},
      {"nested 22 deep", deep, "max-depth"},
      {"25-star wildcard", stars, "max-wildcard-complexity"},
      {"wildcard on data", dataWildcard, "only on CloudEvents"},
      {"9 wildcards", manyWildcards, "max-wildcards"}
    };
    String[][] filters = {
      {"parentheses 2,500 deep", "(".repeat(2_500) + "true" + ")".repeat(2_500), "max-filter-"},
      {"parentheses 200 deep", "(".repeat(200) + "true" + ")".repeat(200), "max-filter-depth"},
      {"NOT 1,000 times", "NOT ".repeat(1_000) + "true", "max-filter-operators"},
      {"AND 1,000 times", "true" + " AND true".repeat(1_000), "max-filter-"},
      {
        "functions 600 deep",
        "ABS(".repeat(600) + "1" + ")".repeat(600) + " = 1",
        "max-filter-depth"
      },
      {"unary minus 1,000", "-".repeat(1_000) + "1 = 1", "max-filter-operators"}
    };
    List<Case> cases = new ArrayList<>();
    String ev = event("t-1", "com.a.x", "/s");
    for (Object[] p : patterns) {
      String pattern = (String) p[1];
      cases.add(
          new Case(
              cls,
              "pattern tester: " + p[0],
              () ->
                  subA.postJson(
                      "/api/v1/patterns/test",
                      "{\"pattern\": " + pattern + ", \"event\": " + ev + "}"),
              400,
              "pattern",
              all(
                  fasterThan(3_000),
                  (r, ms) -> assertThat(r.json().get("detail").asText()).contains((String) p[2]))));
      String name = "bomb " + p[0];
      cases.add(
          new Case(
              cls,
              "subscription: " + p[0],
              () ->
                  subA.postJson(
                      "/api/v1/subscriptions", subscription(name, pattern, canary.url("/bomb"))),
              400,
              "pattern",
              all(fasterThan(3_000), noSubscriptionNamed(name))));
      if (pattern.length() < 2_000) {
        cases.add(
            new Case(
                cls,
                "live tail: " + p[0],
                () -> stream(subA, pattern, null),
                400,
                "pattern",
                fasterThan(3_000)));
      }
    }
    for (String[] f : filters) {
      cases.add(
          new Case(
              cls,
              "pattern tester filter: " + f[0],
              () ->
                  subA.postJson(
                      "/api/v1/patterns/test",
                      "{\"filter\": " + quote(f[1]) + ", \"event\": " + ev + "}"),
              400,
              "filter",
              all(
                  fasterThan(3_000),
                  (r, ms) -> assertThat(r.json().get("detail").asText()).contains(f[2]))));
      String name = "filter " + f[0];
      cases.add(
          new Case(
              cls,
              "subscription filter: " + f[0],
              () ->
                  subA.postJson(
                      "/api/v1/subscriptions",
                      "{\"name\": "
                          + quote(name)
                          + ", \"pattern\": {\"type\": [\"com.a.x\"]}, \"filter\": "
                          + quote(f[1])
                          + ", \"target\": "
                          + quote(canary.url("/bomb"))
                          + "}"),
              400,
              "filter",
              all(fasterThan(3_000), noSubscriptionNamed(name))));
    }
    cases.add(
        new Case(
            cls,
            "live tail filter: parentheses 600 deep",
            () -> stream(subA, null, "(".repeat(600) + "true" + ")".repeat(600)),
            400,
            "filter",
            fasterThan(3_000)));
    // Long attributes: refused at ingest, before routing, whatever the subscriptions.
    String longText = "a".repeat(2_000);
    for (String attribute : new String[] {"id", "source", "subject", "type"}) {
      String id = "long-" + attribute + "-" + UUID.randomUUID();
      cases.add(
          new Case(
              cls,
              "structured " + attribute + " of 2,000 characters",
              () -> {
                ObjectNode e = (ObjectNode) JSON.readTree(event(id, "com.a.x", "/s"));
                e.put(attribute, attribute.equals("type") ? "com.a." + longText : longText);
                return pubA.publish(e.toString());
              },
              400,
              attribute,
              all(notDelivered(id), fasterThan(3_000))));
    }
    cases.add(
        new Case(
            cls,
            "extension of 2,000 characters",
            () ->
                pubA.publish(
                    event("long-ext", "com.a.x", "/s")
                        .replace("\"data\"", "\"myext\": " + quote(longText) + ", \"data\"")),
            400,
            "myext",
            fasterThan(3_000)));
    cases.add(
        new Case(
            cls,
            "binary ce-source of 2,000 characters",
            () ->
                pubA.post(
                    "/api/v1/events",
                    "application/json",
                    "{}",
                    Map.of(
                        "ce-specversion",
                        "1.0",
                        "ce-id",
                        "long-bin",
                        "ce-source",
                        longText,
                        "ce-type",
                        "com.a.x")),
            400,
            "source",
            fasterThan(3_000)));
    cases.add(
        new Case(
            cls,
            "batch entry with a 2,000-character source",
            () ->
                pubA.post(
                    "/api/v1/events",
                    "application/cloudevents-batch+json",
                    "["
                        + event("ok-1", "com.a.x", "/s")
                        + ", "
                        + event("long-batch", "com.a.x", longText)
                        + "]"),
            400,
            "[1].source",
            all(
                fasterThan(3_000),
                (r, ms) ->
                    await()
                        .during(WINDOW)
                        .atMost(WINDOW.plusSeconds(2))
                        .until(
                            () ->
                                canary.calls("/control").stream()
                                    .noneMatch(call -> call.body().contains("\"ok-1\""))))));
    return cases;
  }

  // ---- 6. parsing differentials between what is checked and what is routed
  // ---------------------------------

  private List<Case> parsingDifferentials() {
    String cls = "parsing differentials";
    List<Case> cases = new ArrayList<>();
    String id1 = "dup-" + UUID.randomUUID();
    cases.add(
        new Case(
            cls,
            "duplicate type keys, last outside the scope",
            () ->
                pubA.publish(
                    "{\"specversion\": \"1.0\", \"id\": \""
                        + id1
                        + "\", \"source\": \"/s\", \"type\": \"com.a.x\","
                        + " \"type\": \"com.b.y\"}"),
            403,
            "type",
            notDelivered(id1)));
    String id2 = "esc-" + UUID.randomUUID();
    cases.add(
        new Case(
            cls,
            "unicode-escaped type outside the scope",
            () ->
                pubA.publish(
                    "{\"specversion\": \"1.0\", \"id\": \""
                        + id2
                        + "\", \"source\": \"/s\", \"type\": \"com.\\u0062.y\"}"),
            403,
            "type",
            notDelivered(id2)));
    String id3 = "batch-" + UUID.randomUUID();
    cases.add(
        new Case(
            cls,
            "batch with one type outside the scope",
            () ->
                pubA.post(
                    "/api/v1/events",
                    "application/cloudevents-batch+json",
                    "["
                        + event(id3 + "-ok", "com.a.x", "/s")
                        + ", "
                        + event(id3, "com.b.y", "/s")
                        + "]"),
            403,
            "[1].type",
            all(
                notDelivered(id3),
                (r, ms) ->
                    await()
                        .during(WINDOW)
                        .atMost(WINDOW.plusSeconds(2))
                        .until(
                            () ->
                                canary.calls("/control").stream()
                                    .noneMatch(c -> c.body().contains(id3 + "-ok"))))));
    String id4 = "bin-" + UUID.randomUUID();
    cases.add(
        new Case(
            cls,
            "binary ce-type outside the scope",
            () ->
                pubA.post(
                    "/api/v1/events",
                    "application/json",
                    "{}",
                    Map.of(
                        "ce-specversion",
                        "1.0",
                        "ce-id",
                        id4,
                        "ce-source",
                        "/s",
                        "ce-type",
                        "com.b.y")),
            403,
            "ce-type",
            notDelivered(id4)));
    String id5 = "structured-vs-header-" + UUID.randomUUID();
    cases.add(
        new Case(
            cls,
            "structured body outside the scope with an in-scope ce-type header",
            () ->
                pubA.post(
                    "/api/v1/events",
                    "application/cloudevents+json",
                    event(id5, "com.b.y", "/s"),
                    Map.of("ce-type", "com.a.x")),
            403,
            "type",
            notDelivered(id5)));
    for (String ext : new String[] {"datacontenttype", "data", "type", "specversion"}) {
      String id = "shadow-" + ext + "-" + UUID.randomUUID();
      cases.add(
          new Case(
              cls,
              "binary extension header ce-" + ext + " shadowing an attribute",
              () -> {
                Map<String, String> h =
                    new LinkedHashMap<>(
                        Map.of(
                            "ce-specversion",
                            "1.0",
                            "ce-id",
                            id,
                            "ce-source",
                            "/s",
                            "ce-type",
                            "com.a.x"));
                h.put("ce-" + ext, ext.equals("type") ? "com.b.y" : "forged");
                return pubA.post("/api/v1/events", "application/json", "{\"n\": 1}", h);
              },
              ext.equals("type") ? 403 : 400,
              ext.equals("type") || ext.equals("specversion") ? "ce-" + ext : ext,
              all(
                  notDelivered(id),
                  (r, ms) ->
                      await()
                          .during(WINDOW)
                          .atMost(WINDOW.plusSeconds(2))
                          .until(
                              () ->
                                  canary.calls("/control").stream()
                                      .filter(c -> c.body().contains(id))
                                      .allMatch(
                                          c ->
                                              !c.body().contains("forged")
                                                  && c.body().contains("\"type\":\"com.a.x\""))))));
    }
    String pd1 = "/pd/" + UUID.randomUUID();
    cases.add(
        new Case(
            cls,
            "subscription pattern with duplicate type keys",
            () ->
                subA.postJson(
                    "/api/v1/subscriptions",
                    "{\"name\": \"pd\", \"pattern\": {\"type\": [\"com.a.x\"], \"type\": [\"com.b.y\"]},"
                        + " \"target\": "
                        + quote(canary.url(pd1))
                        + "}"),
            403,
            "pattern",
            noDeliveryAfterProbes(pd1)));
    String pd2 = "/pd/" + UUID.randomUUID();
    cases.add(
        new Case(
            cls,
            "subscription pattern with a unicode-escaped key",
            () ->
                subA.postJson(
                    "/api/v1/subscriptions",
                    "{\"name\": \"pd2\", \"pattern\": {\"\\u0074ype\": [\"com.b.y\"]},"
                        + " \"target\": "
                        + quote(canary.url(pd2))
                        + "}"),
            403,
            "pattern",
            noDeliveryAfterProbes(pd2)));
    String id6 = "type-case-" + UUID.randomUUID();
    cases.add(
        new Case(
            cls,
            "publisher type differing only in case",
            () -> pubA.publish(event(id6, "COM.A.X", "/s")),
            403,
            "type",
            notDelivered(id6)));
    return cases;
  }

  // ---- 7. log injection through ingest
  // ----------------------------------------------------------------------

  private List<Case> logInjection() {
    String cls = "log injection through ingest";
    String[] forged = {
      "\n2026-11-25 17:00:00.000 ERROR 1 --- [main] o.s.Fake : FORGED-%s",
      "\r\n2026-11-25 17:00:00.000 ERROR FORGED-%s",
      "\u2028ERROR FORGED-%s",
      "\u0085ERROR FORGED-%s",
      "\u001b[2K\rERROR FORGED-%s"
    };
    List<Case> cases = new ArrayList<>();
    int i = 0;
    for (String f : forged) {
      for (String where : new String[] {"id", "data key"}) {
        String marker = "m" + (i++) + "x" + UUID.randomUUID().toString().substring(0, 6);
        String text = f.formatted(marker);
        String id = where.equals("id") ? "log" + text : "log-" + marker;
        cases.add(
            new Case(
                cls,
                where
                    + " with "
                    + slug(f.substring(0, Math.min(12, f.length())))
                    + " over JMS inbound",
                () -> {
                  var builder =
                      CloudEventBuilder.v1()
                          .withId(id)
                          .withSource(URI.create("/jms"))
                          .withType("com.a.strict")
                          .withDataContentType("application/json");
                  byte[] data =
                      where.equals("id")
                          ? "{\"n\": \"not a number\"}".getBytes(StandardCharsets.UTF_8)
                          : ("{" + quote(text) + ": 1}").getBytes(StandardCharsets.UTF_8);
                  channels
                      .outbound(ChannelUri.parse("jms:topic:activity.events.in"))
                      .send(OutboundEvent.of(builder.withData(data).build()))
                      .get();
                  // Refused at ingest: it becomes a dead letter with the reason, and is routed to
                  // nobody.
                  await()
                      .atMost(Duration.ofSeconds(10))
                      .until(
                          () ->
                              admin
                                  .get("/api/v1/dead-letters?limit=1000")
                                  .json()
                                  .get("items")
                                  .toString()
                                  .contains(marker));
                  JsonNode letter = null;
                  for (JsonNode item :
                      admin.get("/api/v1/dead-letters?limit=1000").json().get("items")) {
                    if (item.toString().contains(marker)) {
                      letter = item;
                    }
                  }
                  return new Response(
                      400,
                      "application/problem+json",
                      JSON.createObjectNode()
                          .put(
                              "field",
                              letter
                                  .get("reason")
                                  .asText()
                                  .replaceFirst("(?s)^invalid: ([^:]+):.*$", "$1")),
                      "{}",
                      null);
                },
                400,
                where.equals("id") ? "data.n" : "data",
                (r, ms) -> {
                  await()
                      .atMost(Duration.ofSeconds(5))
                      .until(
                          () ->
                              logs.list.stream()
                                  .anyMatch(e -> e.getFormattedMessage().contains(marker)));
                  for (ILoggingEvent e : List.copyOf(logs.list)) {
                    String line = e.getFormattedMessage();
                    if (line.contains(marker)) {
                      assertThat(line)
                          .as("one line, no control characters")
                          .doesNotContain("\n", "\r", "\u2028", "\u0085", "\u001b");
                      assertThat(line).doesNotStartWith("ERROR");
                    }
                  }
                  notDelivered(id).check(r, ms);
                }));
      }
    }
    return cases;
  }

  // ---- 8. internal class names in errors
  // --------------------------------------------------------------------

  private List<Case> internalClassNames() {
    String cls = "internal class names in errors";
    String[][] bodies = {
      {
        "/api/v1/subscriptions",
        "{\"name\": \"n\", \"pattern\": {\"type\": [\"com.a.x\"]}, \"target\": \"x\", \"retry\": \"fast\"}",
        "retry"
      },
      {
        "/api/v1/subscriptions",
        "{\"name\": \"n\", \"pattern\": {\"type\": [\"com.a.x\"]}, \"target\": \"x\", \"retry\": [1]}",
        "retry"
      },
      {
        "/api/v1/subscriptions",
        "{\"name\": \"n\", \"pattern\": {\"type\": [\"com.a.x\"]}, \"target\": \"x\", \"retry\": {\"maxAttempts\": \"5\"}}",
        "retry.maxAttempts"
      },
      {
        "/api/v1/subscriptions",
        "{\"name\": \"n\", \"pattern\": {\"type\": [\"com.a.x\"]}, \"target\": \"x\", \"retry\": {\"maxBackoff\": true}}",
        "retry.maxBackoff"
      },
      {
        "/api/v1/subscriptions",
        "{\"name\": {\"a\": 1}, \"pattern\": {\"type\": [\"com.a.x\"]}, \"target\": \"x\"}",
        "name"
      },
      {
        "/api/v1/subscriptions",
        "{\"name\": \"n\", \"pattern\": {\"type\": [\"com.a.x\"]}, \"target\": [\"x\"]}",
        "target"
      },
      {"/api/v1/api-keys", "{\"name\": \"k\", \"roles\": \"admin\"}", "roles"},
      {
        "/api/v1/api-keys",
        "{\"name\": \"k\", \"roles\": [\"publisher\"], \"eventTypes\": {\"a\": 1}}",
        "eventTypes"
      },
      {"/api/v1/api-keys", "{\"name\": \"k\", \"roles\": [5]}", "roles[0]"},
      {"/api/v1/event-types", "{\"type\": [\"com.a.x\"]}", "type"},
      {"/api/v1/event-types", "{\"type\": \"com.a.x\", \"owner\": 5}", "owner"},
      {"/api/v1/patterns/test", "{\"filter\": {\"a\": 1}, \"event\": {}}", "filter"},
      {"/api/v1/dead-letters/redrive", "{\"subscription\": \"s\", \"ids\": \"a\"}", "ids"},
      {"/api/v1/channels", "{\"uri\": \"jms:queue:x\", \"properties\": [1]}", "properties"},
      {
        "/api/v1/replays",
        "{\"name\": \"r\", \"archive\": \"a\", \"from\": 5, \"to\": \"2026-01-02T00:00:00Z\"}",
        "from"
      }
    };
    List<Case> cases = new ArrayList<>();
    for (String[] b : bodies) {
      cases.add(
          new Case(
              cls,
              b[0] + " " + b[1],
              () -> admin.postJson(b[0], b[1]),
              400,
              b[2],
              (r, ms) -> {
                assertThat(r.json().get("detail").asText())
                    .doesNotContainPattern("[a-z]+\\.[a-z]+\\.[A-Z]")
                    .doesNotContain("<", "`");
                assertThat(admin.get("/api/v1/api-keys").body()).doesNotContain("\"name\":\"k\"");
                assertThat(admin.get("/api/v1/subscriptions").json())
                    .noneSatisfy(s -> assertThat(s.get("name").asText()).isEqualTo("n"));
              }));
    }
    for (String query :
        new String[] {
          "/api/v1/dead-letters?limit=x",
          "/api/v1/dead-letters?limit=1e3",
          "/api/v1/audit?limit=ten"
        }) {
      cases.add(
          new Case(
              cls,
              "query " + query,
              () -> admin.get(query),
              400,
              "limit",
              (r, ms) ->
                  assertThat(r.json().get("detail").asText())
                      .startsWith("limit: expected an integer")));
    }
    cases.add(
        new Case(
            cls,
            "malformed JSON",
            () -> admin.postJson("/api/v1/subscriptions", "{\"name\": "),
            400,
            "body",
            (r, ms) -> assertThat(r.json().get("detail").asText()).doesNotContain("`", "<")));
    cases.add(
        new Case(
            cls,
            "unknown role",
            () -> admin.postJson("/api/v1/api-keys", "{\"name\": \"k\", \"roles\": [\"root\"]}"),
            400,
            "roles[0]",
            (r, ms) ->
                assertThat(r.json().get("detail").asText()).contains("roles are admin, author")));
    return cases;
  }
}
