package io.activityservice.app.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.activityservice.app.security.internal.JwtCallers;
import io.activityservice.app.support.TestJwtIssuer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;

/**
 * JWTs verified against a JWK set URI (a real local issuer serving its keys over HTTP), with an
 * audience check, and the caller read from the claims: roles as a list or a space-separated string,
 * unknown roles ignored.
 */
class JwtCallersTest {

  static final TestJwtIssuer issuer = new TestJwtIssuer();

  @AfterAll
  static void stop() {
    issuer.close();
  }

  private static AuthenticationManager manager(List<String> audiences) {
    return JwtCallers.manager(
        new SecurityProperties.Jwt(
            List.of(issuer.issuer()), issuer.jwkSetUri(), audiences, "roles", "event_types"));
  }

  private static Caller caller(AuthenticationManager m, String token) {
    return ((CallerAuthentication) m.authenticate(new BearerTokenAuthenticationToken(token)))
        .caller();
  }

  @Test
  void rolesAndEventTypesComeFromTheClaims() {
    AuthenticationManager m = manager(List.of());
    Caller c =
        caller(
            m,
            issuer.token(
                "svc-1",
                Map.of(
                    "roles",
                    List.of("publisher", "subscriber", "viewer"),
                    "event_types",
                    List.of("com.example.meter.*", "bad*pattern"))));
    assertThat(c.id()).isEqualTo("jwt:svc-1");
    assertThat(c.kind()).isEqualTo(Caller.Kind.JWT);
    assertThat(c.roles()).containsExactlyInAnyOrder(Role.PUBLISHER, Role.SUBSCRIBER);
    assertThat(c.eventTypes().patterns()).containsExactly("com.example.meter.*");

    Caller spaced =
        caller(m, issuer.token("svc-2", Map.of("roles", "ADMIN metrics", "event_types", "a.* b")));
    assertThat(spaced.roles()).containsExactlyInAnyOrder(Role.ADMIN, Role.METRICS);
    assertThat(spaced.eventTypes().patterns()).containsExactly("a.*", "b");
    assertThat(caller(m, issuer.token("svc-3", Map.of())).roles()).isEmpty();
    assertThat(issuer.jwksRequests()).isPositive();
  }

  @Test
  void theAudienceIsCheckedWhenConfigured() {
    AuthenticationManager m = manager(List.of("activity-service"));
    assertThat(
            caller(
                    m,
                    issuer.token(
                        "svc",
                        Map.of(
                            "aud",
                            List.of("other", "activity-service"),
                            "roles",
                            List.of("admin"))))
                .isAdmin())
        .isTrue();
    assertThatThrownBy(() -> caller(m, issuer.token("svc", Map.of("aud", List.of("other")))))
        .isInstanceOf(AuthenticationException.class);
    assertThatThrownBy(() -> caller(m, issuer.token("svc", Map.of())))
        .isInstanceOf(AuthenticationException.class);
  }

  @Test
  void forgedAndExpiredTokensAreRefused() {
    AuthenticationManager m = manager(List.of());
    assertThatThrownBy(() -> caller(m, issuer.forgedToken("svc", Map.of())))
        .isInstanceOf(AuthenticationException.class);
    assertThatThrownBy(() -> caller(m, issuer.expiredToken("svc", Map.of())))
        .isInstanceOf(AuthenticationException.class)
        .hasMessageContaining("expired");
  }

  @Test
  void withoutIssuerOrJwkSetJwtsAreOff() {
    assertThat(
            JwtCallers.manager(
                new SecurityProperties.Jwt(List.of(), null, List.of(), "roles", "event_types")))
        .isNull();
  }
}
