package io.activityservice.app.security;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Authentication and authorization ({@code activity.security.*}); validated at start-up, with messages that say
 * how to fix a bad value.
 *
 * @param enabled           authentication on every endpoint but health (default true); {@code false} turns it off
 *                          for local trials, with a warning at start-up
 * @param bootstrapAdminKey an admin key given by the operator (environment
 *                          {@code ACTIVITY_SECURITY_BOOTSTRAP_ADMIN_KEY}), at least 32 characters of
 *                          {@code A-Z a-z 0-9 - . _ ~ + /}, e.g. {@code openssl rand -hex 32}; kept in memory only
 *                          (its id is {@code bootstrap}); change it by restarting with another value
 * @param adminKeyFile      where a generated admin key is written when no bootstrap key is set and no admin key is
 *                          stored yet (first start); owner-only permissions (default {@code data/admin.key})
 * @param keyCacheTtl       how long a looked-up API key is cached: a key revoked on another replica stops working
 *                          here after at most this long, unless {@code ApiKeyService.invalidate} is called
 *                          (default 30s; 0 disables the cache)
 * @param jwt               JWT bearer tokens (off unless an issuer or a JWK set URI is set)
 */
@ConfigurationProperties("activity.security")
public record SecurityProperties(Boolean enabled, String bootstrapAdminKey, Path adminKeyFile, Duration keyCacheTtl,
                                 Jwt jwt) {

  /** Characters a bearer token may have (RFC 6750 b64token). */
  private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9\\-._~+/]+=*");

  public SecurityProperties {
    enabled = enabled == null || enabled;
    bootstrapAdminKey = bootstrapAdminKey == null || bootstrapAdminKey.isBlank() ? null : bootstrapAdminKey.trim();
    adminKeyFile = adminKeyFile == null ? Path.of("data", "admin.key") : adminKeyFile;
    keyCacheTtl = keyCacheTtl == null ? Duration.ofSeconds(30) : keyCacheTtl;
    jwt = jwt == null ? new Jwt(null, null, null, null, null) : jwt;
    if (bootstrapAdminKey != null && (bootstrapAdminKey.length() < 32 || !TOKEN.matcher(bootstrapAdminKey).matches())) {
      throw new IllegalArgumentException("activity.security.bootstrap-admin-key must be at least 32 characters of"
          + " A-Z a-z 0-9 - . _ ~ + / (it is sent as a bearer token); generate one with `openssl rand -hex 32`");
    }
    if (keyCacheTtl.isNegative() || keyCacheTtl.compareTo(Duration.ofHours(1)) > 0) {
      throw new IllegalArgumentException("activity.security.key-cache-ttl must be between 0 and 1h, e.g. 30s");
    }
  }

  @Override
  public String toString() {
    return "SecurityProperties[enabled=" + enabled + ", bootstrapAdminKey=" + (bootstrapAdminKey == null ? "(unset)"
        : "(set, redacted)") + ", adminKeyFile=" + adminKeyFile + ", keyCacheTtl=" + keyCacheTtl + ", jwt=" + jwt + "]";
  }

  /**
   * JWT bearer tokens from an OAuth2 / OIDC issuer (Spring Security resource server).
   *
   * @param issuerUri       trusted issuer(s): each token's {@code iss} must be one of them; keys come from the
   *                        issuer's discovery document, fetched on the first token (several issuers: a
   *                        comma-separated list)
   * @param jwkSetUri       the JWK set to verify signatures with, instead of discovery (one issuer at most)
   * @param audiences       accepted {@code aud} values; empty: the audience is not checked
   * @param rolesClaim      claim with the roles ({@code admin}, {@code author}, {@code subscriber},
   *                        {@code publisher}, {@code metrics}; others are ignored): a list or a space-separated
   *                        string; a dotted path reaches into objects, e.g. {@code realm_access.roles} (default
   *                        {@code roles})
   * @param eventTypesClaim claim with the event-type patterns of publishers and subscribers (default
   *                        {@code event_types})
   */
  public record Jwt(List<String> issuerUri, String jwkSetUri, List<String> audiences, String rolesClaim,
                    String eventTypesClaim) {

    public Jwt {
      issuerUri = issuerUri == null ? List.of() : issuerUri.stream().map(String::trim).filter(s -> !s.isEmpty())
          .toList();
      jwkSetUri = jwkSetUri == null || jwkSetUri.isBlank() ? null : jwkSetUri.trim();
      audiences = audiences == null ? List.of() : audiences.stream().map(String::trim).filter(s -> !s.isEmpty())
          .toList();
      rolesClaim = rolesClaim == null || rolesClaim.isBlank() ? "roles" : rolesClaim.trim();
      eventTypesClaim = eventTypesClaim == null || eventTypesClaim.isBlank() ? "event_types" : eventTypesClaim.trim();
      for (String issuer : issuerUri) {
        requireHttpUri("activity.security.jwt.issuer-uri", issuer, "https://login.example.com/realms/activity");
      }
      if (jwkSetUri != null) {
        requireHttpUri("activity.security.jwt.jwk-set-uri", jwkSetUri,
            "https://login.example.com/realms/activity/protocol/openid-connect/certs");
        if (issuerUri.size() > 1) {
          throw new IllegalArgumentException("activity.security.jwt.jwk-set-uri works with one issuer at most;"
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
        if (u.getHost() != null && ("https".equalsIgnoreCase(u.getScheme()) || "http".equalsIgnoreCase(u.getScheme()))) {
          return;
        }
      } catch (IllegalArgumentException e) {
        // reported below
      }
      throw new IllegalArgumentException(property + " must be an absolute http(s) URL, e.g. " + example
          + "; got '" + value + "'");
    }
  }
}
