package io.activityservice.events.webhook;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Standard Webhooks 1.0 signatures ({@code v1}, HMAC-SHA256): the signed content is {@code
 * <webhook-id>.<webhook-timestamp>.<body>} over the exact body bytes sent; {@code
 * webhook-signature} is one {@code v1,<base64>} per secret, space-separated (two during a
 * rotation's overlap). Secrets are {@code whsec_} + base64 of 32 random bytes. One HMAC per secret
 * over bytes already encoded; thread-safe.
 */
public final class StandardWebhooks {

  /** The message id header; the CloudEvent id, so receivers deduplicate as the service does. */
  public static final String ID = "webhook-id";

  /** The send time, Unix seconds. */
  public static final String TIMESTAMP = "webhook-timestamp";

  /** The signatures. */
  public static final String SIGNATURE = "webhook-signature";

  /** Prefix of serialized secrets. */
  public static final String SECRET_PREFIX = "whsec_";

  private static final int SECRET_BYTES = 32;
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final ThreadLocal<Mac> MAC =
      ThreadLocal.withInitial(
          () -> {
            try {
              return Mac.getInstance("HmacSHA256");
            } catch (GeneralSecurityException e) {
              throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
            }
          });

  private StandardWebhooks() {}

  /** A new secret, {@code whsec_} + base64 of 32 random bytes. */
  public static String newSecret() {
    byte[] key = new byte[SECRET_BYTES];
    RANDOM.nextBytes(key);
    return SECRET_PREFIX + Base64.getEncoder().encodeToString(key);
  }

  /**
   * The key bytes of a serialized secret.
   *
   * @throws IllegalArgumentException if it is not {@code whsec_} + base64
   */
  public static byte[] key(String secret) {
    if (secret == null || !secret.startsWith(SECRET_PREFIX)) {
      throw new IllegalArgumentException("not a whsec_ secret");
    }
    return Base64.getDecoder().decode(secret.substring(SECRET_PREFIX.length()));
  }

  /**
   * The {@code webhook-signature} value: {@code v1,<base64>} for each key, space-separated.
   *
   * @param msgId the {@code webhook-id}
   * @param timestamp the {@code webhook-timestamp} (Unix seconds)
   * @param body the exact body bytes sent
   * @param keys the keys that sign now, at least one
   */
  public static String signature(String msgId, long timestamp, byte[] body, List<byte[]> keys) {
    if (keys.isEmpty()) {
      throw new IllegalStateException("no signing secret");
    }
    byte[] prefix = (msgId + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8);
    Mac mac = MAC.get();
    StringBuilder out = new StringBuilder(50 * keys.size());
    for (byte[] key : keys) {
      try {
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
      } catch (java.security.InvalidKeyException e) {
        throw new IllegalStateException("a signing secret is not a valid HMAC key", e);
      }
      mac.update(prefix);
      byte[] digest = mac.doFinal(body);
      if (out.length() > 0) {
        out.append(' ');
      }
      out.append("v1,").append(Base64.getEncoder().encodeToString(digest));
    }
    return out.toString();
  }
}
