package io.activityservice.app.security;

import java.nio.file.Path;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The key that encrypts the secrets the service keeps for others ({@code activity.secrets.*}):
 * webhook signing secrets, connection passwords and client secrets, cached OAuth 2 tokens
 * (AES-256-GCM; docs/webhooks.md).
 *
 * @param encryptionKey base64 of 32 random bytes (e.g. {@code openssl rand -base64 32}); every
 *     replica needs the same. Empty: the key is read from {@code key-file}, or generated there at
 *     first start (a quick start on one machine)
 * @param keyFile where the key is read from, or written to when generated (mode 600), when {@code
 *     encryption-key} is empty; keep it apart from the database's backups
 */
@ConfigurationProperties("activity.secrets")
public record SecretsProperties(
    @DefaultValue("") String encryptionKey, @DefaultValue("data/secrets.key") Path keyFile) {

  public SecretsProperties {
    encryptionKey = encryptionKey == null ? "" : encryptionKey.trim();
    keyFile = keyFile == null ? Path.of("data/secrets.key") : keyFile;
  }

  /** Never shows the key. */
  @Override
  public String toString() {
    return "SecretsProperties[encryptionKey="
        + (encryptionKey.isEmpty() ? "(none)" : "(set)")
        + ", keyFile="
        + keyFile
        + "]";
  }
}
