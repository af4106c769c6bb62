package io.activityservice.app.security.internal;

import io.activityservice.app.security.SecretsProperties;
import io.activityservice.events.secret.SecretCipher;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@link SecretCipher} from {@code activity.secrets.*}: the configured key; else the key file;
 * else a key generated at first start and written to the key file (mode 600), like the generated
 * admin key, so that a quick start keeps working across restarts. Several replicas must be given
 * the same key ({@code ACTIVITY_SECRETS_ENCRYPTION_KEY}); a replica with another key cannot read
 * the secrets and says so.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(SecretsProperties.class)
class SecretsConfiguration {

  private static final Logger log = LoggerFactory.getLogger(SecretsConfiguration.class);

  @Bean
  SecretCipher secretCipher(SecretsProperties props) {
    if (!props.encryptionKey().isEmpty()) {
      return new SecretCipher(decode(props.encryptionKey(), "activity.secrets.encryption-key"));
    }
    Path file = props.keyFile().toAbsolutePath().normalize();
    try {
      if (Files.exists(file)) {
        return new SecretCipher(
            decode(
                Files.readString(file, StandardCharsets.US_ASCII).trim(),
                "the key file " + file + " (activity.secrets.key-file)"));
      }
      byte[] key = SecretCipher.newKey();
      boolean ownerOnly = AdminKeyFile.write(file, Base64.getEncoder().encodeToString(key));
      log.warn(
          "No secrets encryption key configured (activity.secrets.encryption-key): generated one and"
              + " wrote it to {}{}. Webhook signing secrets and connection credentials are encrypted"
              + " with it; give every replica the same key, and keep it out of the database's"
              + " backups.",
          file,
          ownerOnly ? " (readable by this user only)" : " (no POSIX permissions here: protect it)");
      return new SecretCipher(key);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "no secrets encryption key is configured and "
              + file
              + " (activity.secrets.key-file) could not be read or written: "
              + e.getMessage()
              + "; set activity.secrets.encryption-key (base64 of 32 random bytes)",
          e);
    }
  }

  private static byte[] decode(String base64, String where) {
    byte[] key;
    try {
      key = Base64.getDecoder().decode(base64);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          where + " is not base64; use base64 of 32 random bytes, e.g. `openssl rand -base64 32`");
    }
    if (key.length != SecretCipher.KEY_BYTES) {
      throw new IllegalArgumentException(
          where
              + " holds "
              + key.length
              + " bytes; use base64 of 32 random bytes, e.g. `openssl rand -base64 32`");
    }
    return key;
  }
}
