package io.activityservice.app.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.activityservice.app.support.Api;
import io.activityservice.app.support.Api.Response;
import io.activityservice.app.support.WebhookReceiver;
import io.activityservice.events.cluster.ConfigChanges;
import io.activityservice.events.secret.SecretCipher;
import io.activityservice.events.webhook.Connections;
import io.activityservice.events.webhook.TokenClient;
import io.activityservice.rules.action.ActionContext;
import io.activityservice.rules.action.ActionResult;
import io.activityservice.rules.action.WebhookAction;
import io.activityservice.rules.action.WebhookPoster;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Connections over real HTTP: a receiver that requires basic authentication gets it, one that
 * requires an API key header gets it, and an OAuth 2 client-credentials token endpoint (a real
 * local server that counts its requests) issues a token that is fetched once, cached, shared
 * through the database (a second {@link Connections}, as another replica, uses it without asking
 * the endpoint) and refreshed before it expires. Secrets never appear in answers.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ConnectionsApiTest extends WebhookApiTestBase {

  static final TokenEndpoint tokens = new TokenEndpoint();

  static final String PASSWORD = "b4sic-PASSWORD-" + UUID.randomUUID();
  static final String API_KEY = "apikey-VALUE-" + UUID.randomUUID();
  static final String CLIENT_SECRET = "client-SECRET-" + UUID.randomUUID();

  /** A client-credentials token endpoint issuing tokens valid for 2 s. */
  static final class TokenEndpoint implements AutoCloseable {
    final HttpServer server;
    final AtomicInteger issued = new AtomicInteger();
    final List<String> forms = new CopyOnWriteArrayList<>();

    TokenEndpoint() {
      try {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      server.createContext(
          "/oauth/token",
          exchange -> {
            String form =
                new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            forms.add(form);
            String expected =
                "Basic "
                    + Base64.getEncoder()
                        .encodeToString(
                            ("client-1:" + CLIENT_SECRET).getBytes(StandardCharsets.UTF_8));
            boolean ok =
                expected.equals(exchange.getRequestHeaders().getFirst("Authorization"))
                    && form.contains("grant_type=client_credentials");
            byte[] body =
                ok
                    ? ("{\"access_token\": \"tok-"
                            + issued.incrementAndGet()
                            + "\", \"token_type\": \"Bearer\", \"expires_in\": 2}")
                        .getBytes(StandardCharsets.UTF_8)
                    : "{\"error\": \"invalid_client\"}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(ok ? 200 : 401, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
          });
      server.start();
    }

    String url() {
      return "http://127.0.0.1:" + server.getAddress().getPort() + "/oauth/token";
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }

  @Autowired DataSource dataSource;
  @Autowired SecretCipher cipher;
  @Autowired TokenClient tokenClient;
  @Autowired WebhookPoster poster;

  @AfterAll
  static void stop() {
    tokens.close();
  }

  Response connection(String json) {
    return api.postJson("/api/v1/connections", json);
  }

  String subscribe(String type, String path, String connection) {
    Response r =
        api.postJson(
            "/api/v1/subscriptions",
            """
            {"name": "%s", "pattern": {"type": ["%s"]}, "target": "%s", "connection": "%s",
             "retry": {"maxAttempts": 3, "initialBackoff": "PT0.1S", "maxBackoff": "PT0.2S"}}"""
                .formatted(unique("conn"), type, receiver.url(path), connection));
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    assertThat(r.json().get("connection").asText()).isEqualTo(connection);
    return r.json().get("id").asText();
  }

  void publish(String id, String type) {
    Response r =
        api.publish(
            """
            {"specversion": "1.0", "id": "%s", "source": "/tests/connections", "type": "%s"}"""
                .formatted(id, type));
    assertThat(r.status()).as(r.body()).isIn(200, 202);
  }

  WebhookReceiver.Call received(String path, String eventId) {
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> receiver.calls(path).stream().anyMatch(c -> c.body().contains(eventId)));
    return receiver.calls(path).stream()
        .filter(c -> c.body().contains(eventId))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void aReceiverRequiringBasicAuthenticationGetsIt() {
    String name = unique("basic");
    Response created =
        connection(
            """
            {"name": "%s", "type": "basic", "username": "hooks", "password": "%s"}"""
                .formatted(name, PASSWORD));
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    assertThat(created.body()).doesNotContain(PASSWORD);
    assertThat(created.json().get("username").asText()).isEqualTo("hooks");
    assertThat(api.get("/api/v1/connections/" + name).body()).doesNotContain(PASSWORD);
    assertThat(api.get("/api/v1/connections").body()).contains(name).doesNotContain(PASSWORD);

    String path = "/" + unique("basic");
    String expected =
        "Basic "
            + Base64.getEncoder()
                .encodeToString(("hooks:" + PASSWORD).getBytes(StandardCharsets.UTF_8));
    receiver.respond(
        path, (call, headers) -> expected.equals(call.header("Authorization")) ? 204 : 401);
    String type = unique("com.example.basic");
    subscribe(type, path, name);
    String eventId = unique("evt");
    publish(eventId, type);
    assertThat(received(path, eventId).header("Authorization")).isEqualTo(expected);
  }

  @Test
  void aReceiverRequiringAnApiKeyHeaderGetsIt() {
    String name = unique("key");
    Response created =
        connection(
            """
            {"name": "%s", "type": "api-key", "header": "X-Api-Key", "value": "%s"}"""
                .formatted(name, API_KEY));
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    assertThat(created.body()).doesNotContain(API_KEY);
    String path = "/" + unique("apikey");
    receiver.respond(path, (call, headers) -> API_KEY.equals(call.header("X-Api-Key")) ? 204 : 403);
    String type = unique("com.example.apikey");
    subscribe(type, path, name);
    String eventId = unique("evt");
    publish(eventId, type);
    assertThat(received(path, eventId).header("X-Api-Key")).isEqualTo(API_KEY);
  }

  @Test
  void anOAuth2TokenIsFetchedOnceCachedSharedThroughTheDatabaseAndRefreshedBeforeExpiry() {
    String name = unique("oauth");
    Response created =
        connection(
            """
            {"name": "%s", "type": "oauth2-client-credentials", "tokenUrl": "%s",
             "clientId": "client-1", "clientSecret": "%s", "scope": "events:write"}"""
                .formatted(name, tokens.url(), CLIENT_SECRET));
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    assertThat(created.body()).doesNotContain(CLIENT_SECRET);
    String path = "/" + unique("oauth");
    receiver.respond(
        path,
        (call, headers) ->
            String.valueOf(call.header("Authorization")).startsWith("Bearer tok-") ? 204 : 401);
    String type = unique("com.example.oauth");
    subscribe(type, path, name);

    int before = tokens.issued.get();
    List<String> first = List.of(unique("evt"), unique("evt"), unique("evt"));
    for (String id : first) {
      publish(id, type);
    }
    String token = received(path, first.get(0)).header("Authorization");
    for (String id : first) {
      assertThat(received(path, id).header("Authorization")).isEqualTo(token);
    }
    assertThat(tokens.issued.get() - before).as("one token for three deliveries").isEqualTo(1);
    assertThat(tokens.forms.get(tokens.forms.size() - 1))
        .contains("grant_type=client_credentials")
        .contains("scope=events%3Awrite")
        .doesNotContain(CLIENT_SECRET);

    // Stored for the other replicas, encrypted: another Connections on the same database uses it
    // without asking the endpoint.
    String stored =
        JdbcClient.create(dataSource)
            .sql("select token_enc from webhook_connection_token where connection_name = ?")
            .param(name)
            .query(String.class)
            .single();
    assertThat(stored).doesNotContain(token.substring("Bearer ".length()));
    try (Connections otherReplica =
        new Connections(
            JdbcClient.create(dataSource),
            cipher,
            Clock.systemUTC(),
            ConfigChanges.unrecorded(),
            tokenClient)) {
      Map<String, String> headers = otherReplica.headers(name).get(5, TimeUnit.SECONDS);
      assertThat(headers).containsEntry("Authorization", token);
      assertThat(tokens.issued.get() - before).isEqualTo(1);
    } catch (Exception e) {
      throw new AssertionError(e);
    }

    // The token lives 2 s and is refreshed 0.4 s before it expires.
    await().pollDelay(Duration.ofMillis(1800)).atMost(Duration.ofSeconds(3)).until(() -> true);
    String later = unique("evt");
    publish(later, type);
    String refreshed = received(path, later).header("Authorization");
    assertThat(refreshed).startsWith("Bearer tok-").isNotEqualTo(token);
    assertThat(tokens.issued.get() - before).isEqualTo(2);
  }

  @Test
  void theRulesWebhookActionUsesAConnectionOnlyForItsAllowedTargets() throws Exception {
    String name = unique("rules");
    String path = "/" + unique("rule-hook");
    Response created =
        connection(
            """
            {"name": "%s", "type": "api-key", "header": "X-Api-Key", "value": "%s",
             "allowedTargets": ["%s"]}"""
                .formatted(name, API_KEY, receiver.url(path)));
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    assertThat(created.json().get("allowedTargets").get(0).asText()).isEqualTo(receiver.url(path));
    receiver.respond(path, (call, headers) -> API_KEY.equals(call.header("X-Api-Key")) ? 204 : 403);
    WebhookAction action =
        new WebhookAction(
            poster, Duration.ofSeconds(10), 1, Duration.ofMillis(10), Duration.ofMillis(10));
    ActionContext ctx = new ActionContext("rule", "r", null);

    ActionResult ok =
        action
            .execute(
                Map.of("url", receiver.url(path), "body", Map.of("n", 1), "connection", name), ctx)
            .get(20, TimeUnit.SECONDS);
    assertThat(ok.succeeded()).as(String.valueOf(ok.error())).isTrue();
    assertThat(receiver.calls(path)).hasSize(1);
    assertThat(receiver.calls(path).get(0).header("X-Api-Key")).isEqualTo(API_KEY);

    // Not to a URL outside its allowedTargets, and not with a connection that lists none.
    ActionResult elsewhere =
        action
            .execute(
                Map.of(
                    "url", receiver.url("/elsewhere"), "body", Map.of("n", 1), "connection", name),
                ctx)
            .get(20, TimeUnit.SECONDS);
    assertThat(elsewhere.succeeded()).isFalse();
    assertThat(elsewhere.error()).contains("allowedTargets").doesNotContain(API_KEY);
    String open = unique("open");
    connection(
        "{\"name\": \"%s\", \"type\": \"api-key\", \"header\": \"X-K\", \"value\": \"v\"}"
            .formatted(open));
    ActionResult unrestricted =
        action
            .execute(
                Map.of("url", receiver.url(path), "body", Map.of("n", 1), "connection", open), ctx)
            .get(20, TimeUnit.SECONDS);
    assertThat(unrestricted.succeeded()).isFalse();
    assertThat(unrestricted.error()).contains("allowedTargets");
    assertThat(receiver.attempts("/elsewhere")).isEmpty();
    assertThat(receiver.calls(path)).hasSize(1);
  }

  @Test
  void badConnectionsAreRefusedNamingTheFieldAndOthersConnectionsCannotBeUsed() {
    Response noPassword =
        connection(
            "{\"name\": \"%s\", \"type\": \"basic\", \"username\": \"u\"}".formatted(unique("c")));
    assertThat(noPassword.status()).isEqualTo(400);
    assertThat(noPassword.json().get("field").asText()).isEqualTo("password");
    Response badType =
        connection("{\"name\": \"%s\", \"type\": \"digest\"}".formatted(unique("c")));
    assertThat(badType.status()).isEqualTo(400);
    assertThat(badType.json().get("field").asText()).isEqualTo("type");
    Response hostHeader =
        connection(
            "{\"name\": \"%s\", \"type\": \"api-key\", \"header\": \"Host\", \"value\": \"v\"}"
                .formatted(unique("c")));
    assertThat(hostHeader.status()).isEqualTo(400);
    assertThat(hostHeader.json().get("field").asText()).isEqualTo("header");
    Response internalToken =
        connection(
            """
            {"name": "%s", "type": "oauth2-client-credentials", "tokenUrl": "ftp://x/",
             "clientId": "c", "clientSecret": "s"}"""
                .formatted(unique("c")));
    assertThat(internalToken.status()).isEqualTo(400);
    assertThat(internalToken.json().get("field").asText()).isEqualTo("tokenUrl");

    String name = unique("admins");
    assertThat(
            connection(
                    "{\"name\": \"%s\", \"type\": \"api-key\", \"header\": \"X-K\", \"value\": \"%s\"}"
                        .formatted(name, API_KEY))
                .status())
        .isEqualTo(201);
    Response again =
        connection(
            "{\"name\": \"%s\", \"type\": \"api-key\", \"header\": \"X-K\", \"value\": \"v\"}"
                .formatted(name));
    assertThat(again.status()).isEqualTo(409);

    // A subscriber neither sees nor uses the admin's connection.
    Api subscriber =
        api.withKey(api.createKey(unique("sub"), List.of("subscriber"), List.of("com.example.*")));
    assertThat(subscriber.get("/api/v1/connections/" + name).status()).isEqualTo(404);
    assertThat(subscriber.get("/api/v1/connections").body()).doesNotContain(name);
    Response borrowed =
        subscriber.postJson(
            "/api/v1/subscriptions",
            """
            {"name": "b", "pattern": {"type": ["com.example.x"]}, "target": "%s", "connection": "%s"}"""
                .formatted(receiver.url("/borrowed"), name));
    assertThat(borrowed.status()).isEqualTo(400);
    assertThat(borrowed.json().get("field").asText()).isEqualTo("connection");

    // A connection in use is not deleted; once unused it is.
    String id = subscribe(unique("com.example.del"), "/" + unique("del"), name);
    assertThat(api.delete("/api/v1/connections/" + name).status()).isEqualTo(409);
    assertThat(api.delete("/api/v1/subscriptions/" + id).status()).isEqualTo(204);
    assertThat(api.delete("/api/v1/connections/" + name).status()).isEqualTo(204);
    assertThat(api.get("/api/v1/connections/" + name).status()).isEqualTo(404);
    JsonNode none =
        api.postJson(
                "/api/v1/subscriptions",
                """
                {"name": "n", "pattern": {"type": ["x"]}, "target": "%s", "connection": "%s"}"""
                    .formatted(receiver.url("/n"), name))
            .json();
    assertThat(none.get("field").asText()).isEqualTo("connection");
  }
}
