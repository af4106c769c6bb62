package io.activityservice.app.security.internal;

import io.activityservice.app.security.Caller;
import io.activityservice.app.security.CallerAuthentication;
import io.activityservice.app.security.Role;
import io.activityservice.app.security.SecurityProperties;
import io.activityservice.events.scope.TypeScope;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.authentication.ProviderManager;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtClaimValidator;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtDecoders;
import org.springframework.security.oauth2.jwt.JwtValidators;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.security.oauth2.jwt.SupplierJwtDecoder;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationProvider;
import org.springframework.security.oauth2.server.resource.authentication.JwtIssuerAuthenticationManagerResolver;

/**
 * JWT bearer tokens (Spring Security resource server): verification against the configured
 * issuer(s) or JWK set, and the {@link Caller} a token stands for: {@code jwt:<sub>}, roles and
 * event types from the configured claims.
 */
public final class JwtCallers {

  private JwtCallers() {}

  /** The authentication manager for JWTs per {@code settings}, or null when JWTs are off. */
  public static AuthenticationManager manager(SecurityProperties.Jwt settings) {
    if (!settings.enabled()) {
      return null;
    }
    if (settings.jwkSetUri() != null) {
      String issuer = settings.issuerUri().isEmpty() ? null : settings.issuerUri().get(0);
      NimbusJwtDecoder decoder = NimbusJwtDecoder.withJwkSetUri(settings.jwkSetUri()).build();
      decoder.setJwtValidator(validator(settings, issuer));
      return provider(decoder, settings);
    }
    // Several issuers (or one): the token's iss picks the issuer; each issuer's keys come from its
    // discovery
    // document, fetched on its first token (the service starts even when an issuer is down).
    Map<String, AuthenticationManager> byIssuer = new ConcurrentHashMap<>();
    for (String issuer : settings.issuerUri()) {
      JwtDecoder decoder =
          new SupplierJwtDecoder(
              () -> {
                NimbusJwtDecoder d = (NimbusJwtDecoder) JwtDecoders.fromIssuerLocation(issuer);
                d.setJwtValidator(validator(settings, issuer));
                return d;
              });
      byIssuer.put(issuer, provider(decoder, settings));
    }
    JwtIssuerAuthenticationManagerResolver resolver =
        new JwtIssuerAuthenticationManagerResolver(byIssuer::get);
    // The resolver's manager reads the issuer from the token itself; it does not use the request.
    return resolver.resolve((jakarta.servlet.http.HttpServletRequest) null);
  }

  /** The caller a verified token stands for. */
  public static Caller caller(Jwt jwt, SecurityProperties.Jwt settings) {
    Set<Role> roles = EnumSet.noneOf(Role.class);
    for (String r : strings(claim(jwt.getClaims(), settings.rolesClaim()))) {
      Role.find(r).ifPresent(roles::add);
    }
    TypeScope types =
        TypeScope.lenient(strings(claim(jwt.getClaims(), settings.eventTypesClaim())));
    return new Caller("jwt:" + jwt.getSubject(), Caller.Kind.JWT, roles, types);
  }

  private static AuthenticationManager provider(
      JwtDecoder decoder, SecurityProperties.Jwt settings) {
    JwtAuthenticationProvider provider = new JwtAuthenticationProvider(decoder);
    provider.setJwtAuthenticationConverter(jwt -> new CallerAuthentication(caller(jwt, settings)));
    return new ProviderManager(provider);
  }

  private static OAuth2TokenValidator<Jwt> validator(
      SecurityProperties.Jwt settings, String issuer) {
    List<OAuth2TokenValidator<Jwt>> validators = new ArrayList<>();
    validators.add(
        issuer == null
            ? JwtValidators.createDefault()
            : JwtValidators.createDefaultWithIssuer(issuer));
    validators.add(
        new JwtClaimValidator<Object>("sub", sub -> sub instanceof String s && !s.isBlank()));
    if (!settings.audiences().isEmpty()) {
      validators.add(
          new JwtClaimValidator<Collection<String>>(
              "aud", aud -> aud != null && aud.stream().anyMatch(settings.audiences()::contains)));
    }
    return new DelegatingOAuth2TokenValidator<>(validators);
  }

  /** A claim by dotted path ({@code realm_access.roles}), or null. */
  private static Object claim(Map<String, Object> claims, String path) {
    Object value = claims;
    for (String part : path.split("\\.")) {
      if (!(value instanceof Map<?, ?> map)) {
        return null;
      }
      value = map.get(part);
    }
    return value;
  }

  /** A claim's values: a list, or a string separated by spaces or commas (like {@code scope}). */
  private static List<String> strings(Object value) {
    List<String> out = new ArrayList<>();
    if (value instanceof Collection<?> c) {
      c.forEach(v -> out.add(String.valueOf(v)));
    } else if (value instanceof String s) {
      for (String part : s.split("[\\s,]+")) {
        if (!part.isEmpty()) {
          out.add(part);
        }
      }
    }
    return out;
  }
}
