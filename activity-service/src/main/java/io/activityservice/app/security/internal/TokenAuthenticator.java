package io.activityservice.app.security.internal;

import io.activityservice.app.security.ApiKeyService;
import io.activityservice.app.security.ApiKeyToken;
import io.activityservice.app.security.Caller;
import io.activityservice.app.security.CallerAuthentication;
import io.activityservice.app.security.Role;
import io.activityservice.events.scope.TypeScope;
import java.security.MessageDigest;
import java.util.EnumSet;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.core.Authentication;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;

/**
 * Authenticates a bearer token: the bootstrap admin key, an API key ({@code ask_…}), or a JWT (when
 * configured). Plugged into Spring Security's resource server, which reads {@code Authorization:
 * Bearer} and answers 401 (through {@link ProblemResponses}) when this throws.
 */
public class TokenAuthenticator implements AuthenticationManager {

  /** The caller of the bootstrap admin key. */
  public static final Caller BOOTSTRAP =
      new Caller("key:bootstrap", Caller.Kind.KEY, EnumSet.of(Role.ADMIN), TypeScope.ALL);

  private final ApiKeyService keys;
  private final byte[] bootstrapHash;
  private final AuthenticationManager jwt;

  /**
   * @param keys stored API keys
   * @param bootstrapKey the bootstrap admin key, or null
   * @param jwt authenticates JWTs into a {@link CallerAuthentication}, or null when JWTs are off
   */
  public TokenAuthenticator(ApiKeyService keys, String bootstrapKey, AuthenticationManager jwt) {
    this.keys = keys;
    this.bootstrapHash = bootstrapKey == null ? null : ApiKeyToken.sha256(bootstrapKey);
    this.jwt = jwt;
  }

  @Override
  public Authentication authenticate(Authentication authentication) {
    if (!(authentication instanceof BearerTokenAuthenticationToken bearer)) {
      throw new BadCredentialsException("only bearer tokens are accepted");
    }
    String token = bearer.getToken();
    // Hashes compared in constant time: the bootstrap key may be any string, so it is checked
    // before the others.
    if (bootstrapHash != null && MessageDigest.isEqual(bootstrapHash, ApiKeyToken.sha256(token))) {
      return new CallerAuthentication(BOOTSTRAP);
    }
    if (ApiKeyToken.looksLikeKey(token)) {
      return new CallerAuthentication(keys.authenticate(token));
    }
    if (jwt == null) {
      throw new BadCredentialsException(
          "not an API key (ask_…), and JWT bearer tokens are not configured"
              + " (activity.security.jwt.issuer-uri or jwk-set-uri)");
    }
    return jwt.authenticate(bearer);
  }
}
