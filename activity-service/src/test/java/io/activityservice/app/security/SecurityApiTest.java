package io.activityservice.app.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.activityservice.app.support.Api;
import io.activityservice.app.support.Api.Response;
import io.activityservice.app.support.TestJwtIssuer;
import io.activityservice.app.support.WebhookReceiver;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * Security by default over real HTTP: API keys and JWTs (signed by a local issuer's RSA key,
 * fetched over HTTP through OIDC discovery; two trusted issuers), roles, event-type scopes,
 * subscription ownership, redaction and the audit log. Roles and scopes of JWTs come from
 * non-default claims, to show the claims are configurable.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "activity.security.jwt.roles-claim=realm_access.roles",
      "activity.security.jwt.event-types-claim=activity_types"
    })
class SecurityApiTest {

  static final ObjectMapper MAPPER = new ObjectMapper();
  static final TestJwtIssuer issuer = new TestJwtIssuer();
  static final TestJwtIssuer secondIssuer = new TestJwtIssuer();
  static final TestJwtIssuer untrustedIssuer = new TestJwtIssuer();
  static final WebhookReceiver webhook = new WebhookReceiver();

  @DynamicPropertySource
  static void trustedIssuers(DynamicPropertyRegistry registry) {
    registry.add(
        "activity.security.jwt.issuer-uri", () -> issuer.issuer() + "," + secondIssuer.issuer());
  }

  @AfterAll
  static void stopServers() {
    issuer.close();
    secondIssuer.close();
    untrustedIssuer.close();
    webhook.close();
  }

  @LocalServerPort int port;
  Api admin;

  @BeforeEach
  void client() {
    admin = new Api(port);
  }

  private static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  private static String run() {
    return "r" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  }

  private Api as(String role, String... eventTypes) {
    return admin.withKey(admin.createKey(unique(role), List.of(role), List.of(eventTypes)));
  }

  private Response send(Api api, String method, String path) {
    return switch (method) {
      case "GET" -> api.get(path);
      case "DELETE" -> api.delete(path);
      case "PUT" -> api.put(path, "{}");
      default -> api.postJson(path, "{}");
    };
  }

  private static String event(String id, String type) {
    return """
        {"specversion": "1.0", "id": "%s", "source": "/security", "type": "%s", "data": {"n": 1}}"""
        .formatted(id, type);
  }

  static void assertProblem(Response r, int status) {
    assertThat(r.status()).as(r.body()).isEqualTo(status);
    assertThat(r.contentType()).startsWith("application/problem+json");
    assertThat(r.json().get("status").asInt()).isEqualTo(status);
  }

  // ---- authentication
  // ------------------------------------------------------------------------------------------

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({
    "POST, /api/v1/events",
    "GET, /api/v1/event-types",
    "DELETE, /api/v1/event-types/x",
    "GET, /api/v1/subscriptions",
    "GET, /api/v1/subscriptions/x/deliveries",
    "POST, /api/v1/subscriptions/x/signing-secrets",
    "GET, /api/v1/connections",
    "DELETE, /api/v1/connections/x",
    "GET, /api/v1/channels",
    "GET, /api/v1/detectors",
    "GET, /api/v1/rules",
    "PUT, /api/v1/rules/x",
    "GET, /api/v1/rules/x/executions",
    "GET, /api/v1/dead-letters",
    "POST, /api/v1/dead-letters/redrive",
    "GET, /api/v1/api-keys",
    "GET, /api/v1/audit",
    "GET, /actuator/prometheus",
    "GET, /actuator/metrics",
    "GET, /actuator/info",
    "GET, /v3/api-docs",
    "GET, /swagger-ui.html",
    "GET, /no/such/path"
  })
  void withoutCredentialsEveryProtectedEndpointIs401Problem(String method, String path) {
    Response r = send(admin.anonymous(), method, path);
    assertProblem(r, 401);
    assertThat(r.json().get("detail").asText()).contains("send Authorization: Bearer");
    assertThat(r.header("WWW-Authenticate")).startsWith("Bearer");
  }

  @Test
  void healthAndProbesStayOpen() {
    for (String path :
        List.of("/actuator/health", "/actuator/health/liveness", "/actuator/health/readiness")) {
      Response r = admin.anonymous().get(path);
      assertThat(r.status()).as(path).isEqualTo(200);
      assertThat(r.json().get("status").asText()).isEqualTo("UP");
    }
  }

  @Test
  void refusedTokensAre401SayingWhyWithoutEchoingSecrets() {
    String key = admin.createKey(unique("valid"), List.of("publisher"), List.of("*"));
    String id = key.substring(4, 20);
    String wrongSecret =
        key.substring(0, 21) + (key.charAt(21) == 'A' ? 'B' : 'A') + key.substring(22);

    Response malformed = admin.withKey("ask_short").get("/api/v1/event-types");
    assertProblem(malformed, 401);
    assertThat(malformed.json().get("detail").asText()).contains("malformed API key");
    Response unknown =
        admin.withKey("ask_aaaaaaaaaaaaaaaa_" + key.substring(21)).get("/api/v1/event-types");
    assertProblem(unknown, 401);
    assertThat(unknown.json().get("detail").asText()).contains("unknown API key aaaaaaaaaaaaaaaa");
    Response wrong = admin.withKey(wrongSecret).get("/api/v1/event-types");
    assertProblem(wrong, 401);
    assertThat(wrong.json().get("detail").asText()).contains("API key " + id + ": wrong secret");
    assertThat(wrong.header("WWW-Authenticate")).contains("invalid_token");
    for (Response r : List.of(malformed, unknown, wrong)) {
      assertThat(r.body())
          .doesNotContain(key.substring(21))
          .doesNotContain(wrongSecret.substring(21));
    }
    assertProblem(admin.withKey("not-a-key-and-not-a-jwt").get("/api/v1/event-types"), 401);
    assertThat(admin.withKey(key).get("/api/v1/event-types").status()).isEqualTo(200);
  }

  // ---- roles
  // -------------------------------------------------------------------------------------------------

  @Test
  void aWrongRoleIs403SayingWhatTheEndpointNeedsAndWhatTheKeyHas() {
    Api publisher = as("publisher", "*");
    Response r = publisher.get("/api/v1/detectors");
    assertProblem(r, 403);
    assertThat(r.json().get("detail").asText())
        .isEqualTo("this endpoint needs role admin or author; your key has publisher");
    assertThat(r.json().get("requiredRoles"))
        .extracting(JsonNode::asText)
        .containsExactly("admin", "author");

    Api author = as("author", "com.example.*");
    assertThat(
            author
                .postJson("/api/v1/channels", "{\"uri\": \"jms:queue:x\"}")
                .json()
                .get("detail")
                .asText())
        .isEqualTo("this endpoint needs role admin; your key has author");
    assertProblem(author.get("/api/v1/api-keys"), 403);
    assertProblem(author.get("/api/v1/audit"), 403);
    assertProblem(author.publish(event(unique("e"), "com.example.any")), 403);
    assertThat(author.get("/api/v1/rules").status()).isEqualTo(200);
    assertThat(author.get("/api/v1/detectors").status()).isEqualTo(200);
    assertThat(
            author
                .postJson(
                    "/api/v1/event-types", "{\"type\": \"" + unique("com.example.authored") + "\"}")
                .status())
        .isEqualTo(201);

    Api subscriber = as("subscriber", "*");
    assertProblem(subscriber.publish(event(unique("e"), "com.example.any")), 403);
    assertProblem(
        subscriber.postJson("/api/v1/event-types", "{\"type\": \"com.example.nope\"}"), 403);
    assertThat(subscriber.get("/api/v1/event-types").status()).isEqualTo(200);
    assertProblem(publisher.get("/api/v1/subscriptions"), 403);
    assertProblem(publisher.get("/api/v1/connections"), 403);
    assertThat(publisher.get("/api/v1/event-types").status()).isEqualTo(200);
    assertProblem(publisher.get("/actuator/prometheus"), 403);

    Api metrics = as("metrics");
    assertThat(metrics.get("/actuator/prometheus").status()).isEqualTo(200);
    assertThat(metrics.get("/actuator/metrics").status()).isEqualTo(200);
    assertProblem(metrics.get("/actuator/info"), 403);
    assertProblem(metrics.get("/api/v1/event-types"), 403);
    assertThat(admin.get("/actuator/info").status()).isEqualTo(200);
  }

  @Test
  void openApiDocsAndSwaggerUiNeedAKeyOfAnyRole() {
    Api metrics = as("metrics");
    Response docs = metrics.get("/v3/api-docs");
    assertThat(docs.status()).isEqualTo(200);
    assertThat(docs.json().at("/components/securitySchemes/bearer/scheme").asText())
        .isEqualTo("bearer");
    assertThat(docs.body()).contains("/api/v1/api-keys").contains("/api/v1/audit");
    assertThat(metrics.get("/swagger-ui/index.html").status()).isEqualTo(200);
    assertProblem(admin.anonymous().get("/swagger-ui/index.html"), 401);
  }

  /**
   * Every endpoint of every controller has its own row in the table: none falls through to the
   * admin default.
   */
  @Test
  void everyApiEndpointIsInTheRoleTable(
      @Autowired @Qualifier("requestMappingHandlerMapping") RequestMappingHandlerMapping mappings) {
    List<String> endpoints = new ArrayList<>();
    for (RequestMappingInfo info : mappings.getHandlerMethods().keySet()) {
      for (String pattern : info.getPatternValues()) {
        if (pattern.equals("/error")) {
          continue; // Spring Boot's error page: reached by error dispatches, which continue an
          // authorized request
        }
        var methods = info.getMethodsCondition().getMethods();
        for (var method :
            methods.isEmpty()
                ? List.of(org.springframework.web.bind.annotation.RequestMethod.GET)
                : methods) {
          MockHttpServletRequest request =
              new MockHttpServletRequest(method.name(), pattern.replaceAll("\\{[^}]+}", "x"));
          if (EndpointRoles.ruleFor(request) == EndpointRoles.OTHERWISE) {
            endpoints.add(method + " " + pattern);
          }
        }
      }
    }
    assertThat(endpoints).as("endpoints without a row in EndpointRoles").isEmpty();
  }

  // ---- scopes
  // ------------------------------------------------------------------------------------------------

  @Test
  void aScopedPublisherIsRefusedOutsideItsTypesAndAMixedBatchIsRefusedWhole() {
    String run = run();
    String allowed = "com.example." + run + ".meter.reading";
    String other = "com.example." + run + ".billing.invoice";
    String allowedPath = "/" + unique("allowed");
    String otherPath = "/" + unique("other");
    admin.postJson(
        "/api/v1/subscriptions",
        """
        {"name": "allowed", "pattern": {"type": ["%s"]}, "target": "%s"}"""
            .formatted(allowed, webhook.url(allowedPath)));
    admin.postJson(
        "/api/v1/subscriptions",
        """
        {"name": "other", "pattern": {"type": ["%s"]}, "target": "%s"}"""
            .formatted(other, webhook.url(otherPath)));
    Api publisher = as("publisher", "com.example." + run + ".meter.*");

    assertThat(publisher.publish(event("ok-1", allowed)).status()).isEqualTo(202);
    Response single = publisher.publish(event("no-1", other));
    assertProblem(single, 403);
    assertThat(single.json().get("field").asText()).isEqualTo("type");
    assertThat(single.json().get("detail").asText())
        .contains("com.example." + run + ".meter.*")
        .contains(other);
    Response binary =
        publisher.post(
            "/api/v1/events",
            "application/json",
            "{}",
            Map.of(
                "ce-specversion",
                "1.0",
                "ce-id",
                "no-2",
                "ce-source",
                "/security",
                "ce-type",
                other));
    assertProblem(binary, 403);
    assertThat(binary.json().get("field").asText()).isEqualTo("ce-type");
    Response batch =
        publisher.post(
            "/api/v1/events",
            "application/cloudevents-batch+json",
            "[" + event("batch-ok", allowed) + "," + event("batch-no", other) + "]");
    assertProblem(batch, 403);
    assertThat(batch.json().get("field").asText()).isEqualTo("[1].type");
    assertThat(batch.json().get("detail").asText())
        .contains("nothing of this request was published");

    await().atMost(Duration.ofSeconds(10)).until(() -> webhook.calls(allowedPath).size() == 1);
    // Nothing of the refused requests is routed: not the forbidden events, not the allowed half of
    // the batch.
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(5))
        .until(() -> webhook.calls(allowedPath).size() == 1 && webhook.calls(otherPath).isEmpty());
    assertThat(webhook.calls(allowedPath).get(0).body()).contains("\"id\":\"ok-1\"");
    assertThat(admin.publish(event("admin-1", other)).status())
        .as("admins publish every type")
        .isEqualTo(202);
    await().atMost(Duration.ofSeconds(10)).until(() -> webhook.calls(otherPath).size() == 1);
  }

  @Test
  void subscriptionsBelongToTheirOwnerAndStayWithinItsScope() {
    String run = run();
    String scope = "com.example." + run + ".grid.";
    Api alice = as("subscriber", scope + "*");
    Api bob = as("subscriber", "*");
    String target = webhook.url("/" + unique("own"));

    Response created =
        alice.postJson(
            "/api/v1/subscriptions",
            """
        {"name": "mine", "pattern": {"type": ["%s"]}, "target": "%s"}"""
                .formatted(scope + "load", target));
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    String id = created.json().get("id").asText();
    String aliceId = created.json().get("owner").asText();
    assertThat(aliceId).startsWith("key:");
    Response byPrefix =
        alice.postJson(
            "/api/v1/subscriptions",
            """
        {"name": "prefix", "pattern": {"type": [{"prefix": "%s"}], "source": ["/x"]}, "target": "%s"}"""
                .formatted(scope + "sub.", target));
    assertThat(byPrefix.status()).as(byPrefix.body()).isEqualTo(201);

    // Patterns that do not pin type to the scope are refused, naming the pattern; nothing is
    // stored.
    for (String pattern :
        List.of(
            "null",
            "{}",
            "{\"source\": [\"/x\"]}",
            "{\"type\": [\"com.example.elsewhere\"]}",
            "{\"type\": [\"" + scope + "a\", \"com.example.elsewhere\"]}",
            "{\"type\": [{\"prefix\": \"com.example.\"}]}",
            "{\"type\": [{\"anything-but\": [\"x\"]}]}",
            "{\"type\": [{\"wildcard\": \"com.example.*\"}]}",
            "{\"$or\": [{\"type\": [\"" + scope + "a\"]}, {\"source\": [\"/x\"]}]}")) {
      Response r =
          alice.postJson(
              "/api/v1/subscriptions",
              """
          {"name": "x", "pattern": %s, "target": "%s"}"""
                  .formatted(pattern, target));
      assertProblem(r, 403);
      assertThat(r.json().get("field").asText()).as(pattern).isEqualTo("pattern");
    }
    // Patterns Event Ruler does not take, or that constrain type inside and outside a $or: 400
    // naming the pattern.
    for (String pattern :
        List.of(
            "{\"type\": []}",
            "{\"type\": \"" + scope + "a\"}",
            "{\"type\": [\""
                + scope
                + "a\"], \"$or\": [{\"type\": [\"com.example.elsewhere\"]}, {\"source\": [\"/x\"]}]}")) {
      Response r =
          alice.postJson(
              "/api/v1/subscriptions",
              """
          {"name": "x", "pattern": %s, "target": "%s"}"""
                  .formatted(pattern, target));
      assertProblem(r, 400);
      assertThat(r.json().get("field").asText()).as(pattern).isEqualTo("pattern");
    }
    assertThat(alice.get("/api/v1/subscriptions").json())
        .extracting(s -> s.get("id").asText())
        .containsExactlyInAnyOrder(id, byPrefix.json().get("id").asText());

    // Another subscriber cannot see it: 404, as if it did not exist.
    assertProblem(bob.get("/api/v1/subscriptions/" + id), 404);
    assertProblem(bob.get("/api/v1/subscriptions/" + id + "/deliveries"), 404);
    assertProblem(bob.delete("/api/v1/subscriptions/" + id), 404);
    assertProblem(bob.get("/api/v1/dead-letters?subscription=" + id), 404);
    assertProblem(
        bob.postJson("/api/v1/dead-letters/redrive", "{\"subscription\": \"" + id + "\"}"), 404);
    Response everyDeadLetter = bob.get("/api/v1/dead-letters");
    assertProblem(everyDeadLetter, 403);
    assertThat(everyDeadLetter.json().get("field").asText()).isEqualTo("subscription");
    assertThat(bob.get("/api/v1/subscriptions").json())
        .extracting(s -> s.get("id").asText())
        .doesNotContain(id);

    // The owner sees its own, its deliveries and dead letters; an admin sees all.
    assertThat(alice.get("/api/v1/subscriptions/" + id).status()).isEqualTo(200);
    assertThat(alice.get("/api/v1/subscriptions/" + id + "/deliveries").status()).isEqualTo(200);
    assertThat(alice.get("/api/v1/dead-letters?subscription=" + id).status()).isEqualTo(200);
    assertThat(
            alice
                .postJson("/api/v1/dead-letters/redrive", "{\"subscription\": \"" + id + "\"}")
                .status())
        .isEqualTo(200);
    assertThat(admin.get("/api/v1/subscriptions").json())
        .extracting(s -> s.get("id").asText())
        .contains(id);
    assertThat(admin.get("/api/v1/subscriptions/" + id).json().get("owner").asText())
        .isEqualTo(aliceId);
    assertThat(admin.get("/api/v1/dead-letters").status()).isEqualTo(200);
    assertThat(alice.delete("/api/v1/subscriptions/" + id).status()).isEqualTo(204);
    assertProblem(admin.get("/api/v1/subscriptions/" + id), 404);
  }

  // ---- API keys
  // ----------------------------------------------------------------------------------------------

  @Test
  void secretsAreShownOnceAndNeverListed() {
    Response created =
        admin.postJson(
            "/api/v1/api-keys",
            """
        {"name": "meter gateway", "roles": ["publisher"], "eventTypes": ["com.example.meter.*"]}""");
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    String key = created.json().get("key").asText();
    String id = created.json().get("id").asText();
    assertThat(key).matches("ask_[a-z0-9]{16}_[A-Za-z0-9_-]{43}").startsWith("ask_" + id + "_");
    assertThat(created.header("Location")).isEqualTo("/api/v1/api-keys/" + id);
    String secret = key.substring(21);
    String hash =
        HexFormat.of().formatHex(io.activityservice.app.security.ApiKeyToken.sha256(secret));

    Response list = admin.get("/api/v1/api-keys");
    JsonNode listed = null;
    for (JsonNode k : list.json()) {
      if (k.get("id").asText().equals(id)) {
        listed = k;
      }
    }
    assertThat(listed).isNotNull();
    List<String> fields = new ArrayList<>();
    listed.fieldNames().forEachRemaining(fields::add);
    assertThat(fields)
        .containsExactlyInAnyOrder(
            "id", "name", "roles", "eventTypes", "createdAt", "createdBy", "lastUsedAt");
    assertThat(listed.get("roles")).extracting(JsonNode::asText).containsExactly("publisher");
    assertThat(listed.get("eventTypes"))
        .extracting(JsonNode::asText)
        .containsExactly("com.example.meter.*");
    assertThat(listed.get("createdBy").asText()).isEqualTo("key:bootstrap");
    Response one = admin.get("/api/v1/api-keys/" + id);
    for (Response r : List.of(list, one)) {
      assertThat(r.body()).doesNotContain(secret).doesNotContain(hash).doesNotContain("\"key\"");
    }

    assertThat(one.json().get("lastUsedAt").isNull()).isTrue();
    assertThat(admin.withKey(key).get("/api/v1/event-types").status()).isEqualTo(200);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> !admin.get("/api/v1/api-keys/" + id).json().get("lastUsedAt").isNull());
  }

  @Test
  void badKeyRequestsAre400NamingTheField() {
    assertThat(admin.postJson("/api/v1/api-keys", "{\"name\": \"x\"}").json().get("field").asText())
        .isEqualTo("roles");
    assertThat(
            admin
                .postJson("/api/v1/api-keys", "{\"name\": \"x\", \"roles\": [\"root\"]}")
                .json()
                .get("field")
                .asText())
        .isEqualTo("roles[0]");
    Response noScope =
        admin.postJson("/api/v1/api-keys", "{\"name\": \"x\", \"roles\": [\"publisher\"]}");
    assertProblem(noScope, 400);
    assertThat(noScope.json().get("field").asText()).isEqualTo("eventTypes");
    assertThat(
            admin
                .postJson(
                    "/api/v1/api-keys",
                    """
        {"name": "x", "roles": ["subscriber"], "eventTypes": ["com.*.reading"]}""")
                .json()
                .get("field")
                .asText())
        .isEqualTo("eventTypes[0]");
    assertThat(
            admin
                .postJson("/api/v1/api-keys", "{\"roles\": [\"admin\"]}")
                .json()
                .get("field")
                .asText())
        .isEqualTo("name");
  }

  @Test
  void aRevokedKeyIs401AtOnce() {
    Response created =
        admin.postJson(
            "/api/v1/api-keys",
            """
        {"name": "to revoke", "roles": ["publisher"], "eventTypes": ["*"]}""");
    String key = created.json().get("key").asText();
    String id = created.json().get("id").asText();
    Api publisher = admin.withKey(key);
    assertThat(publisher.publish(event(unique("before"), "com.example.revoke")).status())
        .isEqualTo(202);

    assertThat(admin.delete("/api/v1/api-keys/" + id).status()).isEqualTo(204);
    Response after = publisher.publish(event(unique("after"), "com.example.revoke"));
    assertProblem(after, 401);
    assertThat(after.json().get("detail").asText()).contains("API key " + id + " was revoked");
    assertProblem(admin.get("/api/v1/api-keys/" + id), 404);
    assertThat(admin.get("/api/v1/api-keys").json())
        .extracting(k -> k.get("id").asText())
        .doesNotContain(id);
    assertProblem(admin.delete("/api/v1/api-keys/" + id), 404);
  }

  // ---- JWT
  // ---------------------------------------------------------------------------------------------------

  private Api jwt(TestJwtIssuer from, String subject, List<String> roles, List<String> types) {
    return admin.withKey(
        from.token(
            subject, Map.of("realm_access", Map.of("roles", roles), "activity_types", types)));
  }

  @Test
  void jwtBearerTokensCarryRolesAndScopesFromTheConfiguredClaims() {
    String run = run();
    String allowed = "com.example." + run + ".jwt.reading";
    String path = "/" + unique("jwt");
    Api publisher =
        jwt(
            issuer,
            "meter-gateway",
            List.of("publisher", "not-a-role"),
            List.of("com.example." + run + ".jwt.*"));
    assertThat(publisher.publish(event("jwt-1", allowed)).status()).isEqualTo(202);
    Response outside = publisher.publish(event("jwt-2", "com.example." + run + ".other"));
    assertProblem(outside, 403);
    assertThat(outside.json().get("detail").asText())
        .startsWith("your token may publish only event types");
    Response wrongRole = publisher.get("/api/v1/detectors");
    assertProblem(wrongRole, 403);
    assertThat(wrongRole.json().get("detail").asText())
        .isEqualTo("this endpoint needs role admin or author; your token has publisher");

    // A subscriber from the second trusted issuer: it owns what it creates, under its subject.
    Api subscriber =
        jwt(secondIssuer, "alice", List.of("subscriber"), List.of("com.example." + run + ".*"));
    Response sub =
        subscriber.postJson(
            "/api/v1/subscriptions",
            """
        {"name": "jwt", "pattern": {"type": ["%s"]}, "target": "%s"}"""
                .formatted(allowed, webhook.url(path)));
    assertThat(sub.status()).as(sub.body()).isEqualTo(201);
    assertThat(sub.json().get("owner").asText()).isEqualTo("jwt:alice");
    Api sameSubjectNewToken =
        jwt(secondIssuer, "alice", List.of("subscriber"), List.of("com.example." + run + ".*"));
    assertThat(sameSubjectNewToken.get("/api/v1/subscriptions").json())
        .extracting(s -> s.get("id").asText())
        .containsExactly(sub.json().get("id").asText());
    assertProblem(
        jwt(secondIssuer, "bob", List.of("subscriber"), List.of("*"))
            .get("/api/v1/subscriptions/" + sub.json().get("id").asText()),
        404);
    assertThat(publisher.publish(event("jwt-3", allowed)).status()).isEqualTo(202);
    await().atMost(Duration.ofSeconds(10)).until(() -> webhook.calls(path).size() == 1);

    // Roles only count from the configured claim.
    Api rolesElsewhere = admin.withKey(issuer.token("carol", Map.of("roles", List.of("admin"))));
    Response noRole = rolesElsewhere.get("/api/v1/audit");
    assertProblem(noRole, 403);
    assertThat(noRole.json().get("detail").asText()).endsWith("your token has no role");
    assertThat(jwt(issuer, "dora", List.of("admin"), List.of()).get("/api/v1/audit").status())
        .isEqualTo(200);
    assertThat(issuer.jwksRequests()).isPositive();
  }

  @Test
  void expiredForgedAndForeignJwtsAre401() {
    Map<String, Object> claims = Map.of("realm_access", Map.of("roles", List.of("admin")));
    Response expired = admin.withKey(issuer.expiredToken("eve", claims)).get("/api/v1/audit");
    assertProblem(expired, 401);
    assertThat(expired.json().get("detail").asText()).contains("expired");
    assertProblem(admin.withKey(issuer.forgedToken("eve", claims)).get("/api/v1/audit"), 401);
    Response foreign = admin.withKey(untrustedIssuer.token("eve", claims)).get("/api/v1/audit");
    assertProblem(foreign, 401);
    assertThat(foreign.json().get("detail").asText()).contains("issuer");
  }

  // ---- channels and audit
  // ------------------------------------------------------------------------------------

  @Test
  void channelCredentialsAreNeverReturned() {
    String uri = "jms:queue:" + unique("secured.in");
    Response added =
        admin.postJson(
            "/api/v1/channels",
            """
        {"uri": "%s", "properties": {"password": "hunter2-secret", "brokerToken": "tok-123", "accessKey": "AK1",
         "maxInFlight": "10"}}"""
                .formatted(uri));
    assertThat(added.status()).as(added.body()).isEqualTo(201);
    Response list = admin.get("/api/v1/channels");
    for (Response r : List.of(added, list)) {
      assertThat(r.body())
          .doesNotContain("hunter2-secret")
          .doesNotContain("tok-123")
          .doesNotContain("AK1");
    }
    JsonNode shown = null;
    for (JsonNode c : list.json()) {
      if (c.get("uri").asText().equals(uri)) {
        shown = c.get("properties");
      }
    }
    assertThat(shown).isNotNull();
    assertThat(shown.get("password").asText()).isEqualTo("(redacted)");
    assertThat(shown.get("brokerToken").asText()).isEqualTo("(redacted)");
    assertThat(shown.get("accessKey").asText()).isEqualTo("(redacted)");
    assertThat(shown.get("maxInFlight").asText()).isEqualTo("10");
    assertThat(admin.delete("/api/v1/channels?uri=" + uri).status()).isEqualTo(204);
  }

  @Test
  void theAuditLogRecordsWhoChangedWhatWithoutSecrets() throws Exception {
    OffsetDateTime start = OffsetDateTime.now().minusSeconds(1);
    String run = run();
    String type = "com.example." + run + ".audited";
    Response keyCreated =
        admin.postJson(
            "/api/v1/api-keys",
            """
        {"name": "audited subscriber", "roles": ["subscriber"], "eventTypes": ["com.example.%s.*"]}"""
                .formatted(run));
    String subscriberKey = keyCreated.json().get("key").asText();
    String subscriberId = keyCreated.json().get("id").asText();
    Api subscriber = admin.withKey(subscriberKey);

    assertThat(admin.postJson("/api/v1/event-types", "{\"type\": \"" + type + "\"}").status())
        .isEqualTo(201);
    assertThat(admin.put("/api/v1/event-types/" + type, "{\"description\": \"v2\"}").status())
        .isEqualTo(200);
    String sub =
        subscriber
            .postJson(
                "/api/v1/subscriptions",
                """
        {"name": "audited", "pattern": {"type": ["%s"]}, "target": "%s"}"""
                    .formatted(type, webhook.url("/a")))
            .json()
            .get("id")
            .asText();
    assertProblem(
        subscriber.postJson(
            "/api/v1/subscriptions",
            """
        {"name": "too wide", "pattern": {"source": ["/x"]}, "target": "%s"}"""
                .formatted(webhook.url("/a"))),
        403);
    assertProblem(subscriber.postJson("/api/v1/channels", "{\"uri\": \"jms:queue:x\"}"), 403);
    assertThat(
            subscriber
                .postJson("/api/v1/dead-letters/redrive", "{\"subscription\": \"" + sub + "\"}")
                .status())
        .isEqualTo(200);
    assertThat(subscriber.delete("/api/v1/subscriptions/" + sub).status()).isEqualTo(204);
    String channel = "jms:queue:" + run + ".in";
    assertThat(
            admin
                .postJson(
                    "/api/v1/channels",
                    """
        {"uri": "%s", "properties": {"password": "channel-pw-%s"}}"""
                        .formatted(channel, run))
                .status())
        .isEqualTo(201);
    assertThat(admin.delete("/api/v1/channels?uri=" + channel).status()).isEqualTo(204);
    String detector = "audited-" + run;
    Response d =
        admin.postJson(
            "/api/v1/detectors",
            """
        {"name": "%s", "inputs": {"R": "%s"}, "epl": "select * from R", "emits": "%s.derived"}"""
                .formatted(detector, type, type));
    assertThat(d.status()).as(d.body()).isEqualTo(201);
    assertThat(admin.delete("/api/v1/detectors/" + detector).status()).isEqualTo(204);
    String rule = "audited-" + run;
    String drl =
        "rule \"audited\"\nwhen\n  $e : Event( type == \""
            + type
            + "\" )\nthen\n"
            + "  actions.run(\"log\", Map.of(\"event\", $e));\nend\n";
    Response r =
        admin.postJson(
            "/api/v1/rules", MAPPER.writeValueAsString(Map.of("name", rule, "drl", drl)));
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    assertThat(
            admin
                .put("/api/v1/rules/" + rule, MAPPER.writeValueAsString(Map.of("drl", drl)))
                .status())
        .isEqualTo(200);
    assertThat(admin.delete("/api/v1/rules/" + rule).status()).isEqualTo(204);
    assertThat(admin.postJson("/api/v1/event-types", "{\"type\": \"has space\"}").status())
        .isEqualTo(400);
    assertThat(admin.delete("/api/v1/event-types/" + type).status()).isEqualTo(204);
    assertThat(admin.delete("/api/v1/api-keys/" + subscriberId).status()).isEqualTo(204);

    // Read the whole log page by page (newest first) down to the start of this test.
    List<JsonNode> entries = new ArrayList<>();
    String cursor = "";
    StringBuilder bodies = new StringBuilder();
    do {
      Response page =
          admin.get("/api/v1/audit?limit=5" + (cursor.isEmpty() ? "" : "&cursor=" + cursor));
      assertThat(page.status()).as(page.body()).isEqualTo(200);
      assertThat(page.json().get("items").size()).isLessThanOrEqualTo(5);
      bodies.append(page.body());
      page.json().get("items").forEach(entries::add);
      cursor = page.json().get("nextCursor").isNull() ? "" : page.json().get("nextCursor").asText();
    } while (!cursor.isEmpty()
        && OffsetDateTime.parse(entries.get(entries.size() - 1).get("time").asText())
            .isAfter(start));
    for (int i = 1; i < entries.size(); i++) {
      assertThat(OffsetDateTime.parse(entries.get(i).get("time").asText()))
          .isBeforeOrEqualTo(OffsetDateTime.parse(entries.get(i - 1).get("time").asText()));
    }
    String admins = "key:bootstrap";
    String subs = "key:" + subscriberId;
    assertThat(entries)
        .extracting(
            e ->
                List.of(
                    e.get("actor").asText(),
                    e.get("action").asText(),
                    e.get("resourceKind").asText(),
                    e.get("resourceId").asText(""),
                    e.get("outcome").asText()))
        .contains(
            List.of(admins, "create", "api-key", subscriberId, "success"),
            List.of(admins, "create", "event-type", type, "success"),
            List.of(admins, "update", "event-type", type, "success"),
            List.of(subs, "create", "subscription", sub, "success"),
            List.of(subs, "create", "subscription", "", "denied"),
            List.of(subs, "create", "channel", "", "denied"),
            List.of(subs, "redrive", "dead-letter", sub, "success"),
            List.of(subs, "delete", "subscription", sub, "success"),
            List.of(admins, "create", "channel", channel, "success"),
            List.of(admins, "delete", "channel", channel, "success"),
            List.of(admins, "create", "detector", detector, "success"),
            List.of(admins, "delete", "detector", detector, "success"),
            List.of(admins, "create", "rule", rule, "success"),
            List.of(admins, "update", "rule", rule, "success"),
            List.of(admins, "delete", "rule", rule, "success"),
            List.of(admins, "create", "event-type", "", "failed"),
            List.of(admins, "delete", "event-type", type, "success"),
            List.of(admins, "revoke", "api-key", subscriberId, "success"));
    assertThat(entries)
        .filteredOn(e -> e.get("outcome").asText().equals("denied"))
        .allSatisfy(e -> assertThat(e.get("status").asInt()).isEqualTo(403));
    assertThat(bodies.toString())
        .doesNotContain(subscriberKey.substring(21))
        .doesNotContain("channel-pw-");
    assertProblem(admin.get("/api/v1/audit?cursor=bogus"), 400);
    assertProblem(admin.get("/api/v1/audit?limit=0"), 400);
  }
}
