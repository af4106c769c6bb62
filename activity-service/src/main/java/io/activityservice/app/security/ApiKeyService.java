package io.activityservice.app.security;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.activityservice.channel.support.DaemonThreads;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.NotFoundException;
import io.activityservice.events.scope.TypeScope;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.security.authentication.BadCredentialsException;

/**
 * API keys: created, listed and revoked by admins; checked on every request.
 *
 * <p>Keys are read from the database through a small cache ({@code
 * activity.security.key-cache-ttl}), so a valid key costs no database access on the publish path:
 * one SHA-256 and a constant-time comparison. Revoking a key here takes effect at once on this
 * replica; other replicas notice within the cache TTL, or at once when told through {@link
 * #invalidate(String)}.
 */
public class ApiKeyService implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ApiKeyService.class);

  /**
   * lastUsedAt is written at most this often per key and replica: it must not cost a write per
   * request.
   */
  private static final long LAST_USED_RESOLUTION_MS = Duration.ofMinutes(1).toMillis();

  /**
   * An API key as the API shows it (never its secret or hash).
   *
   * @param id public id (the {@code <id>} in {@code ask_<id>_<secret>})
   * @param name what it is for
   * @param roles its roles
   * @param eventTypes the event-type patterns it may publish or subscribe to
   * @param createdAt when it was created
   * @param createdBy who created it
   * @param lastUsedAt when it was last used, to the minute (null: never)
   */
  public record ApiKey(
      String id,
      String name,
      List<String> roles,
      List<String> eventTypes,
      OffsetDateTime createdAt,
      String createdBy,
      OffsetDateTime lastUsedAt) {}

  /**
   * A key just created.
   *
   * @param key the key
   * @param secret the whole key to send ({@code ask_<id>_<secret>}); shown once, never stored
   */
  public record CreatedKey(ApiKey key, String secret) {
    @Override
    public String toString() {
      return "CreatedKey[key=" + key + ", secret=(redacted)]";
    }
  }

  /** A cached key and when its use was last written. */
  private record Cached(StoredKey key, Caller caller, AtomicLong lastUsedWritten) {}

  private static final Cached MISSING = new Cached(null, null, null);

  private final ApiKeyRepository repository;
  private final Clock clock;
  private final Cache<String, Cached> cache;
  private final ThreadPoolExecutor lastUsedWriter;

  /** API keys on the {@code api_key} table, each looked up at most once per {@code cacheTtl}. */
  public ApiKeyService(JdbcClient jdbc, Clock clock, Duration cacheTtl) {
    this(new ApiKeyRepository(jdbc), clock, cacheTtl);
  }

  ApiKeyService(ApiKeyRepository repository, Clock clock, Duration cacheTtl) {
    this.repository = repository;
    this.clock = clock;
    // Unknown ids are cached too, so random keys cannot make every request hit the database.
    this.cache = Caffeine.newBuilder().expireAfterWrite(cacheTtl).maximumSize(10_000).build();
    this.lastUsedWriter =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(1000),
            DaemonThreads.named("api-key-last-used"),
            new ThreadPoolExecutor.DiscardPolicy());
  }

  /**
   * Creates a key.
   *
   * @param createdBy the creating identity
   * @throws InvalidInputException naming {@code name}, {@code roles} or {@code eventTypes}
   */
  public CreatedKey create(
      String name, List<String> roles, List<String> eventTypes, String createdBy) {
    if (name == null || name.isBlank() || name.length() > 255) {
      throw new InvalidInputException(
          "name", "is required (1-255 characters): what the key is for");
    }
    if (roles == null || roles.isEmpty()) {
      throw new InvalidInputException(
          "roles",
          "is required: one or more of admin, author, subscriber, publisher," + " metrics");
    }
    Set<Role> parsed = EnumSet.noneOf(Role.class);
    for (int i = 0; i < roles.size(); i++) {
      parsed.add(Role.parse(roles.get(i), "roles[" + i + "]"));
    }
    TypeScope scope = TypeScope.of(eventTypes, "eventTypes");
    if (parsed.contains(Role.ADMIN) && !scope.isEmpty()) {
      // An admin reaches every type (and archives and replays, which hold every type): a scope on
      // it would be a
      // promise the service does not keep.
      throw new InvalidInputException(
          "eventTypes",
          "must be empty for admin keys: an admin may use every event type;"
              + " give a key that should be limited to some types the roles it needs instead (author, subscriber,"
              + " publisher)");
    }
    if (scope.isEmpty()
        && !parsed.contains(Role.ADMIN)
        && (parsed.contains(Role.PUBLISHER)
            || parsed.contains(Role.SUBSCRIBER)
            || parsed.contains(Role.AUTHOR))) {
      throw new InvalidInputException(
          "eventTypes",
          "is required for publisher, subscriber and author keys: the event"
              + " types they may publish, read or define, e.g. [\"com.example.meter.*\"], or [\"*\"] for every type");
    }
    ApiKeyToken token = ApiKeyToken.generate();
    StoredKey stored =
        new StoredKey(
            token.id(),
            name.trim(),
            parsed,
            scope,
            token.secretHash(),
            clock.millis(),
            createdBy,
            null,
            null);
    repository.insert(stored);
    cache.invalidate(token.id());
    return new CreatedKey(view(stored), token.token());
  }

  /** Keys not revoked, oldest first. */
  public List<ApiKey> list() {
    List<ApiKey> out = new ArrayList<>();
    for (StoredKey k : repository.findActive()) {
      out.add(view(k));
    }
    return out;
  }

  /** A key that is not revoked. */
  public ApiKey get(String id) {
    return repository
        .find(id)
        .filter(k -> k.revokedAt() == null)
        .map(this::view)
        .orElseThrow(() -> new NotFoundException("api key", id));
  }

  /** Revokes a key; from now on it is refused on this replica. */
  public void revoke(String id) {
    if (!repository.revoke(id, clock.millis())) {
      throw new NotFoundException("api key", id);
    }
    invalidate(id);
  }

  /** Whether some stored admin key is not revoked. */
  public boolean hasActiveAdminKey() {
    return repository.hasActiveAdmin();
  }

  /**
   * Forgets the cached copy of a key, so the next request reads it from the database (call it when
   * a key changed on another replica).
   */
  public void invalidate(String id) {
    cache.invalidate(id);
  }

  /**
   * The caller a presented API key stands for.
   *
   * @throws BadCredentialsException saying why it is refused (malformed, unknown, wrong secret,
   *     revoked); the message never contains the secret
   */
  public Caller authenticate(String presented) {
    ApiKeyToken token = ApiKeyToken.parse(presented);
    if (token == null) {
      throw new BadCredentialsException(
          "malformed API key: expected ask_<16-character id>_<43-character secret>");
    }
    Cached c = cache.get(token.id(), this::load);
    if (c == MISSING) {
      throw new BadCredentialsException("unknown API key " + token.id());
    }
    if (!MessageDigest.isEqual(token.secretHash(), c.key().secretSha256())) {
      throw new BadCredentialsException("API key " + token.id() + ": wrong secret");
    }
    if (c.key().revokedAt() != null) {
      throw new BadCredentialsException("API key " + token.id() + " was revoked");
    }
    recordUse(c);
    return c.caller();
  }

  private Cached load(String id) {
    Optional<StoredKey> k = repository.find(id);
    if (k.isEmpty()) {
      return MISSING;
    }
    StoredKey key = k.get();
    Caller caller = new Caller("key:" + key.id(), Caller.Kind.KEY, key.roles(), key.eventTypes());
    return new Cached(key, caller, new AtomicLong(key.lastUsedAt() == null ? 0 : key.lastUsedAt()));
  }

  private void recordUse(Cached c) {
    long now = clock.millis();
    long written = c.lastUsedWritten().get();
    if (now - written >= LAST_USED_RESOLUTION_MS
        && c.lastUsedWritten().compareAndSet(written, now)) {
      String id = c.key().id();
      lastUsedWriter.execute(
          () -> {
            try {
              repository.touch(id, now);
            } catch (RuntimeException e) {
              log.warn("could not record the use of API key {}: {}", id, e.toString());
            }
          });
    }
  }

  private ApiKey view(StoredKey k) {
    return new ApiKey(
        k.id(),
        k.name(),
        k.roles().stream().map(Role::text).toList(),
        k.eventTypes().patterns(),
        time(k.createdAt()),
        k.createdBy(),
        k.lastUsedAt() == null ? null : time(k.lastUsedAt()));
  }

  private static OffsetDateTime time(long epochMillis) {
    return OffsetDateTime.ofInstant(Instant.ofEpochMilli(epochMillis), ZoneOffset.UTC);
  }

  @Override
  public void close() {
    lastUsedWriter.shutdown();
  }
}
