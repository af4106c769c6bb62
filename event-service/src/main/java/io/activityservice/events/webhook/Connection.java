package io.activityservice.events.webhook;

import java.net.URI;

/**
 * A named, reusable outbound credential, as shown to clients: never its secret part (the API key
 * value, the password, the client secret), which is stored encrypted and only ever sent to targets.
 *
 * @param name unique name subscriptions and rule webhook actions refer to
 * @param type how requests are authenticated
 * @param header the API key's header ({@link Type#API_KEY})
 * @param username the basic-auth user ({@link Type#BASIC})
 * @param tokenUrl the OAuth 2 token endpoint ({@link Type#OAUTH2_CLIENT_CREDENTIALS})
 * @param clientId the OAuth 2 client id
 * @param scope the OAuth 2 scope asked for, or {@code null}
 * @param owner the identity that created it; only it (and admins) may use it
 * @param createdAt creation time (epoch ms)
 */
public record Connection(
    String name,
    Type type,
    String header,
    String username,
    URI tokenUrl,
    String clientId,
    String scope,
    String owner,
    long createdAt) {

  /** How a connection authenticates requests. */
  public enum Type {
    /** A fixed header, e.g. {@code X-Api-Key: …}. */
    API_KEY("api-key"),
    /** HTTP basic authentication. */
    BASIC("basic"),
    /** An OAuth 2 client-credentials access token as {@code Authorization: Bearer …}. */
    OAUTH2_CLIENT_CREDENTIALS("oauth2-client-credentials");

    private final String text;

    Type(String text) {
      this.text = text;
    }

    /** The name clients use. */
    public String text() {
      return text;
    }

    /** The type named {@code text}, or {@code null}. */
    public static Type of(String text) {
      for (Type t : values()) {
        if (t.text.equals(text)) {
          return t;
        }
      }
      return null;
    }
  }
}
