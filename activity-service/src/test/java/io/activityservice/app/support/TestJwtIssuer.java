package io.activityservice.app.support;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real local OAuth2/OIDC issuer for tests: an HTTP server with the discovery document ({@code
 * /.well-known/openid-configuration}) and the JWK set ({@code /jwks}) of its own RSA key, and RS256
 * tokens signed with that key. Nothing of Spring Security is mocked: the service fetches the keys
 * over HTTP.
 */
public final class TestJwtIssuer implements AutoCloseable {

  private final HttpServer server;
  private final RSAKey key;
  private final AtomicInteger jwksRequests = new AtomicInteger();

  public TestJwtIssuer() {
    try {
      key = new RSAKeyGenerator(2048).keyID(UUID.randomUUID().toString()).generate();
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String jwks = new JWKSet(key.toPublicJWK()).toString();
    server.createContext(
        "/.well-known/openid-configuration",
        exchange -> {
          String doc =
              """
          {"issuer": "%s", "jwks_uri": "%s", "id_token_signing_alg_values_supported": ["RS256"],
           "subject_types_supported": ["public"], "response_types_supported": ["code"]}"""
                  .formatted(issuer(), jwkSetUri());
          respond(exchange, doc);
        });
    server.createContext(
        "/jwks",
        exchange -> {
          jwksRequests.incrementAndGet();
          respond(exchange, jwks);
        });
    server.start();
  }

  private static void respond(com.sun.net.httpserver.HttpExchange exchange, String json)
      throws IOException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, body.length);
    exchange.getResponseBody().write(body);
    exchange.close();
  }

  /** The issuer URL ({@code iss} of its tokens). */
  public String issuer() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Where its public keys are. */
  public String jwkSetUri() {
    return issuer() + "/jwks";
  }

  /** How often the JWK set was fetched. */
  public int jwksRequests() {
    return jwksRequests.get();
  }

  /** A token for {@code subject} with extra claims, valid for 5 minutes. */
  public String token(String subject, Map<String, Object> claims) {
    return token(subject, claims, Instant.now().plus(Duration.ofMinutes(5)), key);
  }

  /** A token that expired a minute ago. */
  public String expiredToken(String subject, Map<String, Object> claims) {
    return token(subject, claims, Instant.now().minus(Duration.ofMinutes(10)), key);
  }

  /** A well-formed token with this issuer's name signed by another key (a forgery). */
  public String forgedToken(String subject, Map<String, Object> claims) {
    try {
      RSAKey other = new RSAKeyGenerator(2048).keyID(key.getKeyID()).generate();
      return token(subject, claims, Instant.now().plus(Duration.ofMinutes(5)), other);
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    }
  }

  private String token(
      String subject, Map<String, Object> claims, Instant expiry, RSAKey signingKey) {
    JWTClaimsSet.Builder b =
        new JWTClaimsSet.Builder()
            .issuer(issuer())
            .subject(subject)
            .issueTime(Date.from(expiry.minus(Duration.ofMinutes(5))))
            .expirationTime(Date.from(expiry))
            .jwtID(UUID.randomUUID().toString());
    claims.forEach(b::claim);
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(signingKey.getKeyID()).build(),
            b.build());
    try {
      jwt.sign(new RSASSASigner(signingKey));
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    }
    return jwt.serialize();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
