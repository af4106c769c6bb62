package io.activityservice.app.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The API key format {@code ask_<id>_<secret>}: a recognisable prefix (tells a key from a JWT, and
 * lets secret scanners spot leaked keys), a 16-character public id (so a key is looked up by id,
 * not by comparing hashes), and a secret of 256 random bits (43 characters, base64url).
 *
 * @param id the public id
 * @param secret the secret part
 */
public record ApiKeyToken(String id, String secret) {

  /** The prefix of every API key. */
  public static final String PREFIX = "ask_";

  private static final int ID_LENGTH = 16;
  private static final int SECRET_BYTES = 32;
  private static final char[] ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789".toCharArray();
  private static final SecureRandom RANDOM = new SecureRandom();

  /** A new key with a random id and secret. */
  public static ApiKeyToken generate() {
    char[] id = new char[ID_LENGTH];
    for (int i = 0; i < id.length; i++) {
      id[i] = ID_ALPHABET[RANDOM.nextInt(ID_ALPHABET.length)];
    }
    byte[] secret = new byte[SECRET_BYTES];
    RANDOM.nextBytes(secret);
    return new ApiKeyToken(
        new String(id), Base64.getUrlEncoder().withoutPadding().encodeToString(secret));
  }

  /** Whether {@code token} is meant as an API key (it may still be malformed). */
  public static boolean looksLikeKey(String token) {
    return token != null && token.startsWith(PREFIX);
  }

  /** The key in {@code token}, or null if it is not of the form {@code ask_<id>_<secret>}. */
  public static ApiKeyToken parse(String token) {
    if (!looksLikeKey(token)
        || token.length() != PREFIX.length() + ID_LENGTH + 1 + 43
        || token.charAt(PREFIX.length() + ID_LENGTH) != '_') {
      return null;
    }
    return new ApiKeyToken(
        token.substring(PREFIX.length(), PREFIX.length() + ID_LENGTH),
        token.substring(PREFIX.length() + ID_LENGTH + 1));
  }

  /** The full key as a client sends it. */
  public String token() {
    return PREFIX + id + "_" + secret;
  }

  /**
   * SHA-256 of the secret. A plain fast hash is right here, unlike for passwords: the secret is 256
   * bits from a CSPRNG, so there is nothing to guess and no dictionary to slow down; a slow
   * password hash (bcrypt, Argon2) would only add milliseconds to every request on the publish
   * path.
   */
  public byte[] secretHash() {
    return sha256(secret);
  }

  /** SHA-256 of a string's UTF-8 bytes. */
  public static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  @Override
  public String toString() {
    return "ApiKeyToken[id=" + id + ", secret=(redacted)]";
  }
}
