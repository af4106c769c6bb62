package io.activityservice.events.webhook;

import io.activityservice.events.cluster.ConfigChanges;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.secret.SecretCipher;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The Standard Webhooks signing secrets of subscriptions: generated here, stored encrypted ({@link
 * SecretCipher}) in {@code subscription_signing_secret}, handed out in clear exactly once (by
 * {@link #create} and {@link #rotate}), and kept decrypted in memory for the signer. A rotation
 * gives the secrets in force an expiry (the overlap), during which they sign beside the new one; it
 * is recorded as a configuration change so that every replica reloads the subscription's keys.
 */
public final class SigningSecrets {

  /** Kind of rotations in the configuration log. */
  public static final String CHANGE_KIND = "signing-secret";

  /** Longest overlap a rotation may ask for. */
  public static final Duration MAX_OVERLAP = Duration.ofDays(30);

  /** A key and until when it signs ({@code Long.MAX_VALUE}: no expiry). */
  private record Key(byte[] bytes, long expiresAt) {}

  /**
   * A rotation's outcome.
   *
   * @param secret the new secret, {@code whsec_…}; shown once
   * @param previousExpiresAt when the secrets it replaces stop signing (epoch ms)
   */
  public record Rotation(String secret, long previousExpiresAt) {}

  private final JdbcClient jdbc;
  private final SecretCipher cipher;
  private final Clock clock;
  private final ConfigChanges changes;
  private final Map<String, List<Key>> cache = new ConcurrentHashMap<>();

  public SigningSecrets(JdbcClient jdbc, SecretCipher cipher, Clock clock, ConfigChanges changes) {
    this.jdbc = jdbc;
    this.cipher = cipher;
    this.clock = clock;
    this.changes = changes;
  }

  private static String owner(String subscriptionId) {
    return "signing:" + subscriptionId;
  }

  /**
   * Generates and stores the first secret of a subscription; run it in the transaction that stores
   * the subscription.
   *
   * @return the secret in clear, to be shown once
   */
  public String create(String subscriptionId) {
    String secret = StandardWebhooks.newSecret();
    insert(subscriptionId, secret, clock.millis());
    cache.remove(subscriptionId);
    return secret;
  }

  private void insert(String subscriptionId, String secret, long now) {
    jdbc.sql(
            "insert into subscription_signing_secret (id, subscription_id, secret_enc, created_at,"
                + " expires_at) values (?, ?, ?, ?, null)")
        .params(
            UUID.randomUUID().toString(),
            subscriptionId,
            cipher.encrypt(secret, owner(subscriptionId)),
            now)
        .update();
  }

  /**
   * Replaces a subscription's secret: the new one signs from now on; the ones in force keep signing
   * beside it for {@code overlap} (a zero overlap retires them at once).
   *
   * @throws InvalidInputException naming {@code overlap} if it is negative or above {@link
   *     #MAX_OVERLAP}
   */
  public Rotation rotate(String subscriptionId, Duration overlap) {
    Duration o = overlap == null ? Duration.ZERO : overlap;
    if (o.isNegative() || o.compareTo(MAX_OVERLAP) > 0) {
      throw new InvalidInputException(
          "overlap", "must be an ISO-8601 duration from PT0S to P30D, e.g. PT24H");
    }
    String secret = StandardWebhooks.newSecret();
    long now = clock.millis();
    long until = now + o.toMillis();
    changes.record(
        CHANGE_KIND,
        subscriptionId,
        () -> {
          jdbc.sql(
                  "delete from subscription_signing_secret where subscription_id = ? and"
                      + " expires_at is not null and expires_at <= ?")
              .params(subscriptionId, now)
              .update();
          jdbc.sql(
                  "update subscription_signing_secret set expires_at = ? where subscription_id = ?"
                      + " and (expires_at is null or expires_at > ?)")
              .params(until, subscriptionId, until)
              .update();
          insert(subscriptionId, secret, now);
        });
    cache.remove(subscriptionId);
    return new Rotation(secret, until);
  }

  /**
   * The keys that sign a delivery now, newest first; empty if the subscription has none. Read from
   * memory; loaded (and decrypted) on first use after a change.
   */
  public List<byte[]> keys(String subscriptionId) {
    List<Key> keys = cache.computeIfAbsent(subscriptionId, this::load);
    long now = clock.millis();
    List<byte[]> valid = new ArrayList<>(keys.size());
    for (Key k : keys) {
      if (k.expiresAt() > now) {
        valid.add(k.bytes());
      }
    }
    return valid;
  }

  private List<Key> load(String subscriptionId) {
    return jdbc.sql(
            "select secret_enc, expires_at from subscription_signing_secret where"
                + " subscription_id = ? order by created_at desc, id")
        .param(subscriptionId)
        .query(
            (rs, row) -> {
              long exp = rs.getLong("expires_at");
              long expiresAt = rs.wasNull() ? Long.MAX_VALUE : exp;
              return new Key(
                  StandardWebhooks.key(
                      cipher.decrypt(rs.getString("secret_enc"), owner(subscriptionId))),
                  expiresAt);
            })
        .list();
  }

  /** Forgets a subscription's keys in memory (another replica rotated them). */
  public void reload(String subscriptionId) {
    cache.remove(subscriptionId);
  }

  /** Drops a deleted subscription's secrets; run it in the transaction that deletes it. */
  public void delete(String subscriptionId) {
    jdbc.sql("delete from subscription_signing_secret where subscription_id = ?")
        .param(subscriptionId)
        .update();
    cache.remove(subscriptionId);
  }
}
