package io.activityservice.app.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.activityservice.app.support.Api;
import io.activityservice.app.support.Api.Response;
import io.activityservice.app.support.TestJwtIssuer;
import io.activityservice.app.support.WebhookReceiver;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Scopes on what rules and detectors emit (issue 19), over real HTTP with real API keys and JWTs.
 * An author scoped to team A's types ({@code com.<run>.a.*}) is refused with a 403 naming the field
 * ({@code drl} with the line, {@code emits}, {@code inputs.<alias>}) for a rule set or detector
 * that would publish, send, emit or read team B's types; nothing is stored, and team B's subscriber
 * receives nothing after events that would have triggered it, while the service still routes.
 * Within its scope the author's rules and detectors run and show the scope they are stored with;
 * admins keep today's behaviour.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class AuthorScopeApiTest {

  static final ObjectMapper MAPPER = new ObjectMapper();
  static final WebhookReceiver webhook = new WebhookReceiver();
  static final TestJwtIssuer issuer = new TestJwtIssuer();

  @DynamicPropertySource
  static void trustedIssuer(DynamicPropertyRegistry registry) {
    registry.add("activity.security.jwt.issuer-uri", issuer::issuer);
  }

  @AfterAll
  static void stopServers() {
    webhook.close();
    issuer.close();
  }

  @LocalServerPort int port;
  Api admin;
  String a;
  String b;
  String bPath;
  String aPath;

  @BeforeEach
  void teams() throws Exception {
    admin = new Api(port);
    String run = "r" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    a = "com." + run + ".a.";
    b = "com." + run + ".b.";
    bPath = "/" + run + "/team-b";
    aPath = "/" + run + "/team-a";
    subscribe("team-b", b, bPath);
    subscribe("team-a", a, aPath);
  }

  private void subscribe(String name, String prefix, String path) throws Exception {
    Response r =
        admin.postJson(
            "/api/v1/subscriptions",
            MAPPER.writeValueAsString(
                Map.of(
                    "name",
                    name,
                    "pattern",
                    Map.of("type", List.of(Map.of("prefix", prefix))),
                    "target",
                    webhook.url(path))));
    assertThat(r.status()).as(r.body()).isEqualTo(201);
  }

  private Api authorOfTeamA() {
    return admin.withKey(
        admin.createKey(
            "author-" + UUID.randomUUID().toString().substring(0, 8),
            List.of("author"),
            List.of(a + "*")));
  }

  private static String event(String id, String type) {
    return """
        {"specversion": "1.0", "id": "%s", "source": "/scope", "type": "%s", "data": {"n": 1, "t": "x"}}"""
        .formatted(id, type);
  }

  private static String rule(String name, String drl) throws Exception {
    return MAPPER.writeValueAsString(Map.of("name", name, "drl", drl));
  }

  private static void assertForbidden(Response r, String field, String... details) {
    assertThat(r.status()).as(r.body()).isEqualTo(403);
    assertThat(r.contentType()).startsWith("application/problem+json");
    assertThat(r.json().get("field").asText()).isEqualTo(field);
    assertThat(r.json().get("detail").asText()).contains(details);
  }

  /**
   * Events that would trigger the refused rule sets and detectors; team B's subscriber must receive
   * none of them.
   */
  private void triggerAndExpectNothingForTeamB() {
    String marker = "marker-" + UUID.randomUUID();
    assertThat(admin.publish(event("trigger-" + UUID.randomUUID(), a + "trigger")).status())
        .isEqualTo(202);
    assertThat(admin.publish(event("reading-" + UUID.randomUUID(), b + "reading")).status())
        .isEqualTo(202);
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(5))
        .until(
            () -> webhook.calls(bPath).stream().noneMatch(c -> !c.body().contains(b + "reading")));
    assertThat(admin.publish(event(marker, b + "marker")).status()).isEqualTo(202);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> webhook.calls(bPath).stream().anyMatch(c -> c.body().contains(marker)));
  }

  @Test
  void aScopedAuthorsRuleSetThatPublishesSendsOrReadsAnotherTeamsTypesIsForbiddenAndEmitsNothing()
      throws Exception {
    Api author = authorOfTeamA();
    String[][] refused = {
      {
        "publish",
        """
            rule "steal"
            when
              $e : Event( type == "%strigger" )
            then
              actions.run("publish", Map.of("type", "%sstolen", "data", Map.of("n", 1)));
            end"""
            .formatted(a, b),
        "line 5: publish of type " + b + "stolen is outside your scope"
      },
      {
        "send-type",
        """
            rule "steal"
            when
              $e : Event( type == "%strigger" )
            then
              actions.run("send", Map.of("uri", "%s", "type", "%sstolen"));
            end"""
            .formatted(a, webhook.url(bPath), b),
        "line 5: send of type " + b + "stolen is outside your scope"
      },
      {
        "send-to-queue",
        """
            rule "steal"
            when
              $e : Event( type == "%strigger" )
            then
              actions.run("send", Map.of("uri", "jms:queue:team-b.inbox", "event", $e));
            end"""
            .formatted(a),
        "line 5: send to jms:queue:team-b.inbox: send may only post to http(s) URLs"
      },
      {
        "computed-type",
        """
            rule "steal"
            when
              $e : Event( type == "%strigger" )
            then
              actions.run("publish", Map.of("type", $e.text("t")));
            end"""
            .formatted(a),
        "line 5: publish with a computed type"
      },
      {
        "reads-every-type",
        """
            rule "exfiltrate"
            when
              $e : Event( )
            then
              actions.run("webhook", Map.of("url", "%s", "event", $e));
            end"""
            .formatted(webhook.url(bPath)),
        "the rule set receives every event type"
      },
      {
        "reads-team-b",
        """
            rule "exfiltrate"
            when
              $e : Event( type == "%sreading" )
            then
              actions.run("webhook", Map.of("url", "%s", "event", $e));
            end"""
            .formatted(b, webhook.url(bPath)),
        "the rule set receives " + b + "reading, outside your scope"
      }
    };
    for (String[] attempt : refused) {
      String name = "scope-" + attempt[0] + "-" + UUID.randomUUID().toString().substring(0, 6);
      assertForbidden(
          author.postJson("/api/v1/rules", rule(name, attempt[1])), "drl", attempt[2], a + "*");
      assertThat(admin.get("/api/v1/rules/" + name).status()).as("nothing stored").isEqualTo(404);
      assertForbidden(
          author.put("/api/v1/rules/" + name, MAPPER.writeValueAsString(Map.of("drl", attempt[1]))),
          "drl",
          attempt[2]);
      assertThat(admin.get("/api/v1/rules/" + name).status()).isEqualTo(404);
    }
    triggerAndExpectNothingForTeamB();
  }

  @Test
  void aScopedAuthorsDetectorThatEmitsOrReadsAnotherTeamsTypesIsForbiddenAndDerivesNothing()
      throws Exception {
    Api author = authorOfTeamA();
    String emitsB =
        MAPPER.writeValueAsString(
            Map.of(
                "name",
                "emits-b",
                "inputs",
                Map.of("R", a + "trigger"),
                "epl",
                "select id as triggerId from R",
                "emits",
                b + "alert",
                "clock",
                "event-time"));
    assertForbidden(
        author.postJson("/api/v1/detectors", emitsB), "emits", b + "alert is outside", a + "*");
    String readsB =
        MAPPER.writeValueAsString(
            Map.of(
                "name",
                "reads-b",
                "inputs",
                Map.of("R", b + "reading"),
                "epl",
                "select id as readingId from R",
                "emits",
                a + "copy",
                "clock",
                "event-time"));
    assertForbidden(
        author.postJson("/api/v1/detectors", readsB), "inputs.R", b + "reading is outside");
    assertThat(admin.get("/api/v1/detectors/emits-b").status()).isEqualTo(404);
    assertThat(admin.get("/api/v1/detectors/reads-b").status()).isEqualTo(404);
    triggerAndExpectNothingForTeamB();
    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(2))
        .until(() -> webhook.calls(aPath).stream().noneMatch(c -> c.body().contains(a + "copy")));
  }

  @Test
  void withinItsScopeAnAuthorsRulesAndDetectorsRunAndAdminsKeepTodaysBehaviour() throws Exception {
    Api author = authorOfTeamA();
    String ruleName = "within-" + UUID.randomUUID().toString().substring(0, 6);
    Response created =
        author.postJson(
            "/api/v1/rules",
            rule(
                ruleName,
                """
        rule "derive"
        when
          $e : Event( type == "%strigger" )
        then
          actions.run("publish", Map.of("type", "%sderived", "data", Map.of("from", $e.getId())));
        end"""
                    .formatted(a, a)));
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    assertThat(created.json().get("authorScope").toString()).isEqualTo("[\"" + a + "*\"]");
    String detector = "within-" + UUID.randomUUID().toString().substring(0, 6);
    Response det =
        author.postJson(
            "/api/v1/detectors",
            MAPPER.writeValueAsString(
                Map.of(
                    "name",
                    detector,
                    "inputs",
                    Map.of("R", a + "trigger"),
                    "epl",
                    "select id as triggerId from R",
                    "emits",
                    a + "alert",
                    "clock",
                    "event-time")));
    assertThat(det.status()).as(det.body()).isEqualTo(201);
    assertThat(det.json().get("authorScope").toString()).isEqualTo("[\"" + a + "*\"]");
    String adminRule = "admin-" + UUID.randomUUID().toString().substring(0, 6);
    Response byAdmin =
        admin.postJson(
            "/api/v1/rules",
            rule(
                adminRule,
                """
        rule "cross teams"
        when
          $e : Event( type == "%strigger" )
        then
          actions.run("publish", Map.of("type", "%sfrom-admin"));
        end"""
                    .formatted(a, b)));
    assertThat(byAdmin.status()).as(byAdmin.body()).isEqualTo(201);
    assertThat(byAdmin.json().get("authorScope").toString()).isEqualTo("[\"*\"]");

    String trigger = "trigger-" + UUID.randomUUID();
    assertThat(admin.publish(event(trigger, a + "trigger")).status()).isEqualTo(202);
    await()
        .atMost(Duration.ofSeconds(15))
        .until(
            () ->
                webhook.calls(aPath).stream()
                        .anyMatch(
                            c -> c.body().contains(a + "derived") && c.body().contains(trigger))
                    && webhook.calls(aPath).stream()
                        .anyMatch(c -> c.body().contains(a + "alert") && c.body().contains(trigger))
                    && webhook.calls(bPath).stream()
                        .anyMatch(c -> c.body().contains(b + "from-admin")));
    assertThat(admin.delete("/api/v1/rules/" + ruleName).status()).isEqualTo(204);
    assertThat(admin.delete("/api/v1/rules/" + adminRule).status()).isEqualTo(204);
    assertThat(admin.delete("/api/v1/detectors/" + detector).status()).isEqualTo(204);
  }

  @Test
  void aScopedAuthorCannotReplaceOrDeleteWhatAnotherTeamOrAnAdminDeployed() throws Exception {
    Api teamA = authorOfTeamA();
    Api teamB =
        admin.withKey(
            admin.createKey(
                "author-b-" + UUID.randomUUID().toString().substring(0, 8),
                List.of("author"),
                List.of(b + "*")));
    String ruleName = "owned-" + UUID.randomUUID().toString().substring(0, 6);
    String drl =
        """
        rule "derive"
        when
          $e : Event( type == "%strigger" )
        then
          actions.run("publish", Map.of("type", "%sderived"));
        end"""
            .formatted(a, a);
    assertThat(teamA.postJson("/api/v1/rules", rule(ruleName, drl)).status()).isEqualTo(201);
    String detector = "owned-" + UUID.randomUUID().toString().substring(0, 6);
    assertThat(
            teamA
                .postJson(
                    "/api/v1/detectors",
                    MAPPER.writeValueAsString(
                        Map.of(
                            "name",
                            detector,
                            "inputs",
                            Map.of("R", a + "trigger"),
                            "epl",
                            "select id as triggerId from R",
                            "emits",
                            a + "alert")))
                .status())
        .isEqualTo(201);
    String adminRule = "admins-" + UUID.randomUUID().toString().substring(0, 6);
    assertThat(admin.postJson("/api/v1/rules", rule(adminRule, drl)).status()).isEqualTo(201);

    // Team B may neither take over nor remove team A's rule set and detector, nor the admin's rule
    // set ...
    String takeover =
        """
        rule "derive"
        when
          $e : Event( type == "%strigger" )
        then
        end"""
            .formatted(b);
    assertForbidden(
        teamB.put("/api/v1/rules/" + ruleName, rule(ruleName, takeover)),
        "name",
        "rule set " + ruleName);
    assertForbidden(teamB.delete("/api/v1/rules/" + ruleName), "name", "reach beyond yours");
    assertForbidden(teamB.delete("/api/v1/detectors/" + detector), "name", "detector " + detector);
    assertForbidden(teamB.delete("/api/v1/rules/" + adminRule), "name", "rule set " + adminRule);
    assertForbidden(teamA.delete("/api/v1/rules/" + adminRule), "name", "rule set " + adminRule);
    // ... and what they tried left everything as it was.
    assertThat(admin.get("/api/v1/rules/" + ruleName).json().get("drl").asText()).isEqualTo(drl);
    assertThat(admin.get("/api/v1/rules/" + ruleName).json().get("authorScope").toString())
        .isEqualTo("[\"" + a + "*\"]");
    assertThat(admin.get("/api/v1/detectors/" + detector).status()).isEqualTo(200);
    // The team that deployed them still manages them.
    assertThat(teamA.put("/api/v1/rules/" + ruleName, rule(ruleName, drl)).status()).isEqualTo(200);
    assertThat(teamA.delete("/api/v1/rules/" + ruleName).status()).isEqualTo(204);
    assertThat(teamA.delete("/api/v1/detectors/" + detector).status()).isEqualTo(204);
    assertThat(admin.delete("/api/v1/rules/" + adminRule).status()).isEqualTo(204);
  }

  @Test
  void aJwtAuthorsEventTypeClaimScopesItsRulesAndDetectorsToo() throws Exception {
    Api jwtAuthor =
        admin.withKey(
            issuer.token(
                "carol", Map.of("roles", List.of("author"), "event_types", List.of(a + "*"))));
    assertForbidden(
        jwtAuthor.postJson(
            "/api/v1/rules",
            rule(
                "jwt-steal-" + UUID.randomUUID().toString().substring(0, 6),
                """
        rule "steal"
        when
          $e : Event( type == "%strigger" )
        then
          actions.run("publish", Map.of("type", "%sstolen"));
        end"""
                    .formatted(a, b))),
        "drl",
        "line 5: publish of type " + b + "stolen is outside your scope");
    assertForbidden(
        jwtAuthor.postJson(
            "/api/v1/detectors",
            MAPPER.writeValueAsString(
                Map.of(
                    "name",
                    "jwt-emits-b",
                    "inputs",
                    Map.of("R", a + "trigger"),
                    "epl",
                    "select id as triggerId from R",
                    "emits",
                    b + "alert"))),
        "emits",
        b + "alert is outside");
    triggerAndExpectNothingForTeamB();
  }

  /**
   * A rule's webhook action and its send action to an http(s) URI go out through the http adapter
   * (its guarded client, and for send its URI check): an address the outbound policy refuses (the
   * cloud metadata address, and IPv6 loopback: the tests' policy allows only 127.0.0.0/8) is
   * refused at once, recorded, never retried.
   */
  @Test
  void aRulesWebhookAndSendAreUnderTheOutboundPolicy() throws Exception {
    String name = "outbound-" + UUID.randomUUID().toString().substring(0, 6);
    Response created =
        admin.postJson(
            "/api/v1/rules",
            rule(
                name,
                """
        rule "reach out"
        when
          $e : Event( type == "%soutbound" )
        then
          actions.run("webhook", Map.of("url", "http://169.254.169.254/latest/meta-data/", "event", $e));
          actions.run("send", Map.of("uri", "http://169.254.169.254/latest/meta-data/", "event", $e));
          actions.run("send", Map.of("uri", "http://[::1]:%d/canary", "event", $e));
        end"""
                    .formatted(a, port)));
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    assertThat(admin.publish(event("outbound-" + UUID.randomUUID(), a + "outbound")).status())
        .isEqualTo(202);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> admin.get("/api/v1/rules/" + name + "/executions").json().size() == 3);
    for (var execution : admin.get("/api/v1/rules/" + name + "/executions").json()) {
      assertThat(execution.get("outcome").asText()).isEqualTo("failed");
      assertThat(execution.get("attempts").asInt()).isEqualTo(1);
      // refused when the webhook is posted, or already when send parses the channel URI (the http
      // adapter's check)
      assertThat(execution.get("error").asText())
          .containsAnyOf(
              "refused by the outbound policy", "allow it with activity.outbound.allowed-networks");
    }
    assertThat(admin.delete("/api/v1/rules/" + name).status()).isEqualTo(204);
  }
}
