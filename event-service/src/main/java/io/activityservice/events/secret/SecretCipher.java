package io.activityservice.events.secret;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Encrypts the secrets the service keeps for others (webhook signing secrets, connection passwords
 * and client secrets, cached OAuth tokens) before they reach the database: AES-256-GCM (the JDK's
 * implementation) with a random 96-bit nonce per value and the value's owner (e.g. {@code
 * signing:<subscription id>}) as associated data, so a ciphertext copied onto another row does not
 * decrypt. Stored form: {@code v1:} + base64(nonce ‖ ciphertext ‖ tag). The key comes from
 * configuration ({@code activity.secrets.*}); a database copy without it reveals no secret.
 * Thread-safe.
 */
public final class SecretCipher {

  /** Key length in bytes (AES-256). */
  public static final int KEY_BYTES = 32;

  private static final String PREFIX = "v1:";
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;

  private final SecretKey key;
  private final SecureRandom random = new SecureRandom();

  /**
   * @param key {@value #KEY_BYTES} bytes
   * @throws IllegalArgumentException for another length
   */
  public SecretCipher(byte[] key) {
    Objects.requireNonNull(key, "key");
    if (key.length != KEY_BYTES) {
      throw new IllegalArgumentException(
          "the secrets encryption key must be "
              + KEY_BYTES
              + " bytes (base64 of 32 random bytes, e.g. `openssl rand -base64 32`), not "
              + key.length);
    }
    this.key = new SecretKeySpec(Arrays.copyOf(key, KEY_BYTES), "AES");
  }

  /** A new random key, e.g. for a quick start's key file. */
  public static byte[] newKey() {
    byte[] k = new byte[KEY_BYTES];
    new SecureRandom().nextBytes(k);
    return k;
  }

  /**
   * Encrypts {@code plaintext} for {@code owner}.
   *
   * @param owner what the value belongs to; the same must be given to {@link #decrypt}
   */
  public String encrypt(String plaintext, String owner) {
    Objects.requireNonNull(plaintext, "plaintext");
    byte[] nonce = new byte[NONCE_BYTES];
    random.nextBytes(nonce);
    try {
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
      c.updateAAD(owner.getBytes(StandardCharsets.UTF_8));
      byte[] sealed = c.doFinal(plaintext.getBytes(StandardCharsets.UTF_8));
      byte[] out = new byte[NONCE_BYTES + sealed.length];
      System.arraycopy(nonce, 0, out, 0, NONCE_BYTES);
      System.arraycopy(sealed, 0, out, NONCE_BYTES, sealed.length);
      return PREFIX + Base64.getEncoder().encodeToString(out);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is not available in this JVM", e);
    }
  }

  /**
   * Decrypts what {@link #encrypt} returned for the same {@code owner}.
   *
   * @throws IllegalStateException if the value was not encrypted with this key for this owner (the
   *     message says which setting to check; it never contains the value)
   */
  public String decrypt(String stored, String owner) {
    if (stored == null || !stored.startsWith(PREFIX)) {
      throw new IllegalStateException("a stored secret of " + owner + " is not in a known format");
    }
    try {
      byte[] in = Base64.getDecoder().decode(stored.substring(PREFIX.length()));
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, in, 0, NONCE_BYTES));
      c.updateAAD(owner.getBytes(StandardCharsets.UTF_8));
      return new String(
          c.doFinal(in, NONCE_BYTES, in.length - NONCE_BYTES), StandardCharsets.UTF_8);
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw new IllegalStateException(
          "a stored secret of "
              + owner
              + " does not decrypt with the configured key: was activity.secrets.encryption-key (or"
              + " its key file) changed? Every replica needs the same key",
          e);
    }
  }
}
