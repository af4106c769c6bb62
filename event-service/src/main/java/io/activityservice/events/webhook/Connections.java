package io.activityservice.events.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.activityservice.channel.support.DaemonThreads;
import io.activityservice.events.cluster.ConfigChanges;
import io.activityservice.events.json.Json;
import io.activityservice.events.problem.ConflictException;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.NotFoundException;
import io.activityservice.events.secret.SecretCipher;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Named outbound credentials ({@code webhook_connection}): an API key header, HTTP basic, or OAuth
 * 2 client credentials. The secret part of each is encrypted with the {@link SecretCipher} and
 * never leaves this class except as the request headers of a delivery ({@link #headers}). OAuth 2
 * access tokens are fetched through the {@link TokenClient} (the webhooks' outbound guard), cached
 * in memory and in {@code webhook_connection_token} (encrypted, with their expiry) so that the
 * replicas share one token instead of each fetching its own, and refreshed before they expire: at
 * {@code expiry - min(60 s, lifetime / 5)}. Token refreshes run on this class's own thread, never
 * on a delivery's.
 */
public final class Connections implements AutoCloseable {

  /** Kind of connection changes in the configuration log. */
  public static final String CHANGE_KIND = "connection";

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
  private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
  private static final Set<String> RESERVED_HEADERS =
      Set.of(
          "host",
          "content-length",
          "content-type",
          "transfer-encoding",
          "connection",
          "keep-alive",
          "expect",
          "upgrade",
          "te",
          "trailer",
          "proxy-authorization",
          "proxy-connection",
          StandardWebhooks.ID,
          StandardWebhooks.TIMESTAMP,
          StandardWebhooks.SIGNATURE);
  private static final Duration TOKEN_TIMEOUT = Duration.ofSeconds(10);
  private static final long DEFAULT_TOKEN_LIFETIME_MS = 300_000;

  /**
   * What a client asks to create; secrets in clear (only here, on the way in).
   *
   * @param allowedTargets URL prefixes the credentials may be sent to; empty for any target of its
   *     owner's subscriptions (rule webhook actions need it set)
   */
  public record Draft(
      String name,
      String type,
      String header,
      String value,
      String username,
      String password,
      String tokenUrl,
      String clientId,
      String clientSecret,
      String scope,
      List<String> allowedTargets) {}

  /** A connection with its secret decrypted: in memory only. */
  private record Resolved(Connection connection, List<String> allowedTargets, String secret) {}

  /** An access token, when it was asked for and until when it may be used (epoch ms). */
  private record Token(String value, long fetchedAt, long expiresAt) {

    /** When to fetch the next one: {@code expiry - min(60 s, lifetime / 5)}. */
    long refreshAt() {
      return expiresAt - Math.min(60_000, Math.max(0, expiresAt - fetchedAt) / 5);
    }
  }

  private final JdbcClient jdbc;
  private final SecretCipher cipher;
  private final Clock clock;
  private final ConfigChanges changes;
  private final TokenClient tokens;
  private final Map<String, Resolved> cache = new ConcurrentHashMap<>();
  private final Map<String, Token> tokenCache = new ConcurrentHashMap<>();
  private final Map<String, CompletableFuture<Token>> refreshing = new ConcurrentHashMap<>();
  private final ExecutorService refresher;

  /**
   * @param tokens the way to token endpoints, or {@code null} if there is none (OAuth 2 connections
   *     are then refused)
   */
  public Connections(
      JdbcClient jdbc,
      SecretCipher cipher,
      Clock clock,
      ConfigChanges changes,
      TokenClient tokens) {
    this.jdbc = jdbc;
    this.cipher = cipher;
    this.clock = clock;
    this.changes = changes;
    this.tokens = tokens;
    ThreadPoolExecutor t =
        new ThreadPoolExecutor(
            1,
            1,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(10_000),
            DaemonThreads.factory("connection-token"));
    t.allowCoreThreadTimeOut(true);
    this.refresher = t;
  }

  private static String owner(String name) {
    return "connection:" + name;
  }

  // ------------------------------------------------------------------ management

  /**
   * Validates and stores a connection.
   *
   * @throws InvalidInputException naming the first offending field
   * @throws ConflictException if the name is taken
   */
  public Connection create(Draft d, String owner) {
    String name = d.name() == null ? "" : d.name().trim();
    if (!NAME.matcher(name).matches()) {
      throw new InvalidInputException(
          "name",
          "is required: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit");
    }
    Connection.Type type = Connection.Type.of(d.type());
    if (type == null) {
      throw new InvalidInputException(
          "type", "must be \"api-key\", \"basic\" or \"oauth2-client-credentials\"");
    }
    ObjectNode settings = Json.MAPPER.createObjectNode();
    String secret;
    String header = null;
    String username = null;
    URI tokenUrl = null;
    String clientId = null;
    String scope = null;
    switch (type) {
      case API_KEY -> {
        header = required("header", d.header(), 256);
        if (!TOKEN.matcher(header).matches()
            || RESERVED_HEADERS.contains(header.toLowerCase(Locale.ROOT))) {
          throw new InvalidInputException(
              "header",
              "must be an HTTP header name the service does not set itself, e.g. X-Api-Key");
        }
        secret = requiredSecret("value", d.value());
        settings.put("header", header);
      }
      case BASIC -> {
        username = required("username", d.username(), 256);
        if (username.indexOf(':') >= 0) {
          throw new InvalidInputException("username", "may not contain ':' (RFC 7617)");
        }
        secret = requiredSecret("password", d.password());
        settings.put("username", username);
      }
      default -> {
        String url = required("tokenUrl", d.tokenUrl(), 2048);
        try {
          tokenUrl = new URI(url);
        } catch (java.net.URISyntaxException e) {
          throw new InvalidInputException("tokenUrl", "is not a valid URL: " + e.getReason());
        }
        String scheme =
            tokenUrl.getScheme() == null ? "" : tokenUrl.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("https") && !scheme.equals("http") || tokenUrl.getHost() == null) {
          throw new InvalidInputException(
              "tokenUrl", "must be an http(s) URL, e.g. https://auth.example.com/oauth/token");
        }
        if (tokenUrl.getRawUserInfo() != null) {
          throw new InvalidInputException(
              "tokenUrl", "may not carry user info; give clientId and clientSecret instead");
        }
        clientId = required("clientId", d.clientId(), 512);
        secret = requiredSecret("clientSecret", d.clientSecret());
        scope = d.scope() == null || d.scope().isBlank() ? null : d.scope().trim();
        if (scope != null && scope.length() > 1024) {
          throw new InvalidInputException("scope", "is at most 1024 characters");
        }
        settings.put("tokenUrl", url);
        settings.put("clientId", clientId);
        if (scope != null) {
          settings.put("scope", scope);
        }
      }
    }
    List<String> allowed = allowedTargets(d.allowedTargets());
    if (!allowed.isEmpty()) {
      settings.set("allowedTargets", Json.tree(allowed));
    }
    long now = clock.millis();
    Connection c =
        new Connection(name, type, header, username, tokenUrl, clientId, scope, owner, now);
    String encrypted = cipher.encrypt(secret, owner(name));
    try {
      changes.record(
          CHANGE_KIND,
          name,
          () ->
              jdbc.sql(
                      "insert into webhook_connection (name, type, settings_json, secrets_enc,"
                          + " owner, created_at) values (?, ?, ?, ?, ?, ?)")
                  .params(name, type.text(), Json.write(settings), encrypted, owner, now)
                  .update());
    } catch (DuplicateKeyException e) {
      throw new ConflictException("name", "a connection named '" + name + "' exists already");
    }
    cache.remove(name);
    return c;
  }

  private static List<String> allowedTargets(List<String> given) {
    if (given == null) {
      return List.of();
    }
    if (given.size() > 20) {
      throw new InvalidInputException("allowedTargets", "at most 20 URL prefixes");
    }
    for (String p : given) {
      String s = p == null ? "" : p.toLowerCase(Locale.ROOT);
      if (!(s.startsWith("https://") || s.startsWith("http://"))
          || s.length() > 2048
          || s.indexOf('/', s.indexOf("//") + 2) < 0) {
        throw new InvalidInputException(
            "allowedTargets",
            "each must be an http(s) URL prefix with a path, e.g. https://api.example.com/hooks/");
      }
    }
    return List.copyOf(given);
  }

  private static String required(String field, String value, int max) {
    if (value == null || value.isBlank()) {
      throw new InvalidInputException(field, "is required");
    }
    String v = value.trim();
    if (v.length() > max || v.indexOf('\r') >= 0 || v.indexOf('\n') >= 0) {
      throw new InvalidInputException(field, "must be one line of at most " + max + " characters");
    }
    return v;
  }

  private static String requiredSecret(String field, String value) {
    if (value == null || value.isEmpty()) {
      throw new InvalidInputException(field, "is required");
    }
    if (value.length() > 4096 || value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0) {
      throw new InvalidInputException(field, "must be one line of at most 4096 characters");
    }
    return value;
  }

  /** Every connection, by name. */
  public List<Connection> list() {
    return jdbc.sql("select * from webhook_connection order by name").query(this::map).list();
  }

  /** A connection, if it exists. */
  public Optional<Connection> find(String name) {
    return jdbc.sql("select * from webhook_connection where name = ?")
        .param(name)
        .query(this::map)
        .optional();
  }

  /**
   * Deletes a connection no subscription uses.
   *
   * @throws NotFoundException if there is none of that name
   * @throws ConflictException if a subscription still refers to it
   */
  public void delete(String name) {
    changes.record(
        CHANGE_KIND,
        name,
        () -> {
          long users =
              jdbc.sql("select count(*) from subscription where connection_name = ?")
                  .param(name)
                  .query(Long.class)
                  .single();
          if (users > 0) {
            throw new ConflictException(
                "name",
                users + " subscription(s) use connection '" + name + "'; delete them first");
          }
          jdbc.sql("delete from webhook_connection_token where connection_name = ?")
              .param(name)
              .update();
          if (jdbc.sql("delete from webhook_connection where name = ?").param(name).update() != 1) {
            throw new NotFoundException("connection", name);
          }
        });
    reload(name);
  }

  /** Forgets what is cached of a connection (changed on another replica). */
  public void reload(String name) {
    cache.remove(name);
    tokenCache.remove(name);
  }

  /**
   * Checks that requests to {@code target} may carry the credentials of connection {@code name}.
   *
   * @param field the input field to name in errors
   * @param forRule whether a rule action asks (it needs the connection to list allowed targets)
   * @throws InvalidInputException if there is no such connection or it may not go there
   */
  public void requireUsable(String field, String name, String target, boolean forRule) {
    Resolved r = resolved(name);
    if (r == null) {
      throw new InvalidInputException(field, "no connection named '" + name + "'");
    }
    if (r.allowedTargets().isEmpty()) {
      if (forRule) {
        throw new InvalidInputException(
            field,
            "connection '"
                + name
                + "' lists no allowedTargets; rule webhook actions may use only connections that do");
      }
      return;
    }
    for (String prefix : r.allowedTargets()) {
      if (target.regionMatches(true, 0, prefix, 0, prefix.length())) {
        return;
      }
    }
    throw new InvalidInputException(
        field,
        "connection '" + name + "' may not be used for this target (see its allowedTargets)");
  }

  // ------------------------------------------------------------------ credentials (hot path)

  /**
   * The request headers that authenticate with connection {@code name}: from memory, or once an
   * OAuth 2 token was fetched. Never throws; fails if the connection is gone or no token could be
   * had (the message names the connection and the endpoint's status, never a secret).
   */
  public CompletableFuture<Map<String, String>> headers(String name) {
    Resolved r;
    try {
      r = resolved(name);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (r == null) {
      return CompletableFuture.failedFuture(
          new IllegalStateException("connection '" + name + "' does not exist"));
    }
    Connection c = r.connection();
    return switch (c.type()) {
      case API_KEY -> CompletableFuture.completedFuture(Map.of(c.header(), r.secret()));
      case BASIC ->
          CompletableFuture.completedFuture(
              Map.of(
                  "Authorization",
                  "Basic "
                      + Base64.getEncoder()
                          .encodeToString(
                              (c.username() + ":" + r.secret()).getBytes(StandardCharsets.UTF_8))));
      case OAUTH2_CLIENT_CREDENTIALS ->
          token(r).thenApply(t -> Map.of("Authorization", "Bearer " + t.value()));
    };
  }

  private Resolved resolved(String name) {
    Resolved r = cache.get(name);
    if (r != null) {
      return r;
    }
    Optional<Map.Entry<Connection, String[]>> row =
        jdbc.sql("select * from webhook_connection where name = ?")
            .param(name)
            .query(
                (rs, n) ->
                    Map.entry(
                        map(rs, n),
                        new String[] {rs.getString("settings_json"), rs.getString("secrets_enc")}))
            .optional();
    if (row.isEmpty()) {
      return null;
    }
    JsonNode settings = Json.parse(row.get().getValue()[0], "settings");
    List<String> allowed =
        settings.has("allowedTargets")
            ? java.util.stream.StreamSupport.stream(
                    settings.get("allowedTargets").spliterator(), false)
                .map(JsonNode::asText)
                .toList()
            : List.of();
    r =
        new Resolved(
            row.get().getKey(), allowed, cipher.decrypt(row.get().getValue()[1], owner(name)));
    cache.put(name, r);
    return r;
  }

  private CompletableFuture<Token> token(Resolved r) {
    String name = r.connection().name();
    Token t = tokenCache.get(name);
    long now = clock.millis();
    if (t != null && now < t.refreshAt()) {
      return CompletableFuture.completedFuture(t);
    }
    CompletableFuture<Token> pending = refreshing.get(name);
    if (pending != null) {
      return pending;
    }
    CompletableFuture<Token> mine = new CompletableFuture<>();
    pending = refreshing.putIfAbsent(name, mine);
    if (pending != null) {
      return pending;
    }
    mine.whenComplete(
        (ok, error) -> {
          refreshing.remove(name, mine);
          if (ok != null) {
            tokenCache.put(name, ok);
          }
        });
    try {
      refresher.execute(() -> refresh(r, mine));
    } catch (RuntimeException e) {
      mine.completeExceptionally(e);
    }
    return mine;
  }

  /** On the refresher thread: the token another replica stored, or a new one. */
  private void refresh(Resolved r, CompletableFuture<Token> result) {
    String name = r.connection().name();
    try {
      long now = clock.millis();
      Optional<Token> shared =
          jdbc.sql(
                  "select token_enc, expires_at, fetched_at from webhook_connection_token where"
                      + " connection_name = ?")
              .param(name)
              .query(
                  (rs, n) ->
                      new Token(
                          cipher.decrypt(rs.getString("token_enc"), "token:" + name),
                          rs.getLong("fetched_at"),
                          rs.getLong("expires_at")))
              .optional();
      if (shared.isPresent() && now < shared.get().refreshAt()) {
        result.complete(shared.get());
        return;
      }
      fetch(r)
          .whenComplete(
              (token, error) -> {
                if (error != null) {
                  result.completeExceptionally(error);
                  return;
                }
                try {
                  refresher.execute(
                      () -> {
                        try {
                          store(name, token);
                        } catch (RuntimeException e) {
                          // Still usable here; the other replicas fetch their own meanwhile.
                        }
                        result.complete(token);
                      });
                } catch (RuntimeException e) {
                  result.complete(token);
                }
              });
    } catch (RuntimeException e) {
      result.completeExceptionally(e);
    }
  }

  private void store(String name, Token token) {
    String enc = cipher.encrypt(token.value(), "token:" + name);
    int updated =
        jdbc.sql(
                "update webhook_connection_token set token_enc = ?, expires_at = ?, fetched_at = ?"
                    + " where connection_name = ?")
            .params(enc, token.expiresAt(), token.fetchedAt(), name)
            .update();
    if (updated == 0) {
      try {
        jdbc.sql(
                "insert into webhook_connection_token (connection_name, token_enc, expires_at,"
                    + " fetched_at) values (?, ?, ?, ?)")
            .params(name, enc, token.expiresAt(), token.fetchedAt())
            .update();
      } catch (DuplicateKeyException e) {
        // Another replica stored one at the same time: either token is valid.
      }
    }
  }

  private CompletableFuture<Token> fetch(Resolved r) {
    if (tokens == null) {
      return CompletableFuture.failedFuture(
          new IllegalStateException(
              "connection '"
                  + r.connection().name()
                  + "' needs the http channel adapter, which is disabled"));
    }
    Connection c = r.connection();
    Map<String, String> form = new LinkedHashMap<>();
    form.put("grant_type", "client_credentials");
    if (c.scope() != null) {
      form.put("scope", c.scope());
    }
    // RFC 6749 §2.3.1: client_secret_basic, with the id and secret form-encoded first.
    String basic =
        Base64.getEncoder()
            .encodeToString(
                (URLEncoder.encode(c.clientId(), StandardCharsets.UTF_8)
                        + ":"
                        + URLEncoder.encode(r.secret(), StandardCharsets.UTF_8))
                    .getBytes(StandardCharsets.UTF_8));
    long sentAt = clock.millis();
    CompletableFuture<TokenClient.Response> call;
    try {
      call =
          tokens.postForm(
              c.tokenUrl(),
              form,
              Map.of("Authorization", "Basic " + basic, "Accept", "application/json"),
              TOKEN_TIMEOUT);
    } catch (RuntimeException e) {
      call = CompletableFuture.failedFuture(e);
    }
    return call.thenApply(response -> parse(c.name(), response, sentAt));
  }

  private static Token parse(String name, TokenClient.Response response, long sentAt) {
    if (response.status() / 100 != 2) {
      throw new IllegalStateException(
          "the token endpoint of connection '" + name + "' answered HTTP " + response.status());
    }
    JsonNode body;
    try {
      body = Json.MAPPER.readTree(response.body());
    } catch (java.io.IOException e) {
      throw new IllegalStateException(
          "the token endpoint of connection '" + name + "' answered no JSON");
    }
    if (body == null || !body.hasNonNull("access_token") || !body.get("access_token").isTextual()) {
      throw new IllegalStateException(
          "the token endpoint of connection '" + name + "' answered no access_token");
    }
    String type = body.hasNonNull("token_type") ? body.get("token_type").asText() : "bearer";
    if (!type.equalsIgnoreCase("bearer")) {
      throw new IllegalStateException(
          "the token endpoint of connection '"
              + name
              + "' issued a token of another type than Bearer");
    }
    String value = body.get("access_token").asText();
    if (value.isEmpty()
        || value.length() > 8192
        || value.indexOf('\r') >= 0
        || value.indexOf('\n') >= 0) {
      throw new IllegalStateException(
          "the token endpoint of connection '" + name + "' issued an unusable access_token");
    }
    long lifetime =
        body.hasNonNull("expires_in") && body.get("expires_in").canConvertToLong()
            ? Math.max(1_000, body.get("expires_in").asLong() * 1000)
            : DEFAULT_TOKEN_LIFETIME_MS;
    return new Token(value, sentAt, sentAt + lifetime);
  }

  private Connection map(java.sql.ResultSet rs, int row) throws java.sql.SQLException {
    JsonNode s = Json.parse(rs.getString("settings_json"), "settings");
    return new Connection(
        rs.getString("name"),
        Connection.Type.of(rs.getString("type")),
        text(s, "header"),
        text(s, "username"),
        s.hasNonNull("tokenUrl") ? URI.create(s.get("tokenUrl").asText()) : null,
        text(s, "clientId"),
        text(s, "scope"),
        rs.getString("owner"),
        rs.getLong("created_at"));
  }

  /** The URL prefixes a connection's credentials may go to (empty: any). */
  public List<String> allowedTargets(String name) {
    Resolved r = resolved(name);
    return r == null ? List.of() : r.allowedTargets();
  }

  private static String text(JsonNode n, String field) {
    return n.hasNonNull(field) ? n.get(field).asText() : null;
  }

  @Override
  public void close() {
    refresher.shutdownNow();
  }
}
