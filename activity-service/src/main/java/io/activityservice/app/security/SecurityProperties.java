package io.activityservice.app.security;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Authentication and authorization ({@code activity.security.*}); validated at start-up, with
 * messages that say how to fix a bad value.
 *
 * @param enabled authentication on every endpoint but health; {@code false} turns it off for local
 *     trials, with a warning at start-up
 * @param bootstrapAdminKey an admin key given by the operator (environment {@code
 *     ACTIVITY_SECURITY_BOOTSTRAP_ADMIN_KEY}), at least 32 characters of {@code A-Z a-z 0-9 - . _ ~
 *     + /}, e.g. {@code openssl rand -hex 32}; kept in memory only (its id is {@code bootstrap});
 *     change it by restarting with another value
 * @param adminKeyFile where a generated admin key is written when no bootstrap key is set and no
 *     admin key is stored yet (first start); owner-only permissions
 * @param keyCacheTtl how long a looked-up API key is cached: a key revoked on another replica stops
 *     working here after at most this long, unless {@code ApiKeyService.invalidate} is called (0
 *     disables the cache; at most 1h)
 * @param jwt JWT bearer tokens (off unless an issuer or a JWK set URI is set)
 */
@ConfigurationProperties("activity.security")
public record SecurityProperties(
    @DefaultValue("true") Boolean enabled,
    String bootstrapAdminKey,
    @DefaultValue("data/admin.key") Path adminKeyFile,
    @DefaultValue("30s") Duration keyCacheTtl,
    @DefaultValue Jwt jwt) {

  /** Characters a bearer token may have (RFC 6750 b64token). */
  private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9\\-._~+/]+=*");

  public SecurityProperties {
    // Empty means unset (application.yml lists the key empty so that the environment variable can
    // fill it).
    bootstrapAdminKey =
        bootstrapAdminKey == null || bootstrapAdminKey.isBlank() ? null : bootstrapAdminKey.trim();
    if (bootstrapAdminKey != null
        && (bootstrapAdminKey.length() < 32 || !TOKEN.matcher(bootstrapAdminKey).matches())) {
      throw new IllegalArgumentException(
          "activity.security.bootstrap-admin-key must be at least 32 characters of"
              + " A-Z a-z 0-9 - . _ ~ + / (it is sent as a bearer token); generate one with `openssl rand -hex 32`");
    }
    if (keyCacheTtl.isNegative() || keyCacheTtl.compareTo(Duration.ofHours(1)) > 0) {
      throw new IllegalArgumentException(
          "activity.security.key-cache-ttl must be between 0 and 1h, e.g. 30s");
    }
  }

  @Override
  public String toString() {
    return "SecurityProperties[enabled="
        + enabled
        + ", bootstrapAdminKey="
        + (bootstrapAdminKey == null ? "(unset)" : "(set, redacted)")
        + ", adminKeyFile="
        + adminKeyFile
        + ", keyCacheTtl="
        + keyCacheTtl
        + ", jwt="
        + jwt
        + "]";
  }

  /**
   * JWT bearer tokens from an OAuth2 / OIDC issuer (Spring Security resource server).
   *
   * @param issuerUri trusted issuer(s): each token's {@code iss} must be one of them; keys come
   *     from the issuer's discovery document, fetched on the first token (several issuers: a
   *     comma-separated list)
   * @param jwkSetUri the JWK set to verify signatures with, instead of discovery (one issuer at
   *     most)
   * @param audiences accepted {@code aud} values; empty: the audience is not checked
   * @param rolesClaim claim with the roles ({@code admin}, {@code author}, {@code subscriber},
   *     {@code publisher}, {@code metrics}; others are ignored): a list or a space-separated
   *     string; a dotted path reaches into objects, e.g. {@code realm_access.roles}
   * @param eventTypesClaim claim with the event-type patterns of publishers and subscribers
   */
  public record Jwt(
      @DefaultValue List<String> issuerUri,
      String jwkSetUri,
      @DefaultValue List<String> audiences,
      @DefaultValue("roles") String rolesClaim,
      @DefaultValue("event_types") String eventTypesClaim) {

    public Jwt {
      // Empty entries mean unset (application.yml lists the issuer empty so that the environment
      // can fill it).
      issuerUri = issuerUri.stream().map(String::trim).filter(s -> !s.isEmpty()).toList();
      jwkSetUri = jwkSetUri == null || jwkSetUri.isBlank() ? null : jwkSetUri.trim();
      audiences = audiences.stream().map(String::trim).filter(s -> !s.isEmpty()).toList();
      rolesClaim = rolesClaim.trim();
      eventTypesClaim = eventTypesClaim.trim();
      if (rolesClaim.isEmpty() || eventTypesClaim.isEmpty()) {
        throw new IllegalArgumentException(
            "activity.security.jwt.roles-claim and event-types-claim must not be"
                + " empty; remove them to use the defaults roles and event_types");
      }
      for (String issuer : issuerUri) {
        requireHttpUri(
            "activity.security.jwt.issuer-uri",
            issuer,
            "https://login.example.com/realms/activity");
      }
      if (jwkSetUri != null) {
        requireHttpUri(
            "activity.security.jwt.jwk-set-uri",
            jwkSetUri,
            "https://login.example.com/realms/activity/protocol/openid-connect/certs");
        if (issuerUri.size() > 1) {
          throw new IllegalArgumentException(
              "activity.security.jwt.jwk-set-uri works with one issuer at most;"
                  + " with several issuers leave it empty (each issuer's keys come from its discovery document)");
        }
      }
    }

    /** Whether JWTs are accepted at all. */
    public boolean enabled() {
      return !issuerUri.isEmpty() || jwkSetUri != null;
    }

    private static void requireHttpUri(String property, String value, String example) {
      try {
        URI u = URI.create(value);
        if (u.getHost() != null
            && ("https".equalsIgnoreCase(u.getScheme())
                || "http".equalsIgnoreCase(u.getScheme()))) {
          return;
        }
      } catch (IllegalArgumentException e) {
        // reported below
      }
      throw new IllegalArgumentException(
          property + " must be an absolute http(s) URL, e.g. " + example + "; got '" + value + "'");
    }
  }
}
