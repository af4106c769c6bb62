package io.activityservice.rules.action;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The way out of the {@code webhook} action: posts one HTTP request under the service's outbound
 * policy. The rule module knows no transport; the application hands it the poster of the http
 * channel adapter it registers (so rule webhooks pass the same guard, address checks on the
 * addresses actually connected to, per-host limits and no redirects, as webhook subscriptions), or
 * none when http channels are disabled.
 */
public interface WebhookPoster {

  /**
   * Checks one POST and returns the call that sends it; each {@link Attempt#post()} is one attempt.
   *
   * @param target an http(s) URL
   * @param contentType the body's media type
   * @param body the body
   * @param headers further headers; connection-level ones are refused
   * @param timeout time for one attempt's answer
   * @throws IllegalArgumentException for a request that can never be sent (a restricted header, a
   *     line break in a value, a non-positive timeout), with a message that says what is wrong
   */
  Attempt prepare(
      URI target, String contentType, byte[] body, Map<String, String> headers, Duration timeout);

  /**
   * Like {@link #prepare(URI, String, byte[], Map, Duration)}, each attempt carrying the
   * credentials of a named connection (fetched anew per attempt, so a refreshed OAuth 2 token is
   * used).
   *
   * @param connection the connection's name, or {@code null} for none
   * @throws IllegalArgumentException also if there is no such connection, or it may not be used for
   *     {@code target} by rules
   */
  default Attempt prepare(
      URI target,
      String contentType,
      byte[] body,
      Map<String, String> headers,
      Duration timeout,
      String connection) {
    if (connection != null) {
      throw new IllegalArgumentException("this deployment offers no connections to rule webhooks");
    }
    return prepare(target, contentType, body, headers, timeout);
  }

  /** One prepared POST. */
  @FunctionalInterface
  interface Attempt {

    /**
     * Sends it. Never blocks and never throws: completes with the HTTP status the target answered
     * (redirects are not followed), or fails with {@link Refused} (the outbound policy refuses the
     * target), a {@link java.net.http.HttpTimeoutException} or another I/O error.
     */
    CompletableFuture<Integer> post();
  }

  /**
   * The outbound policy refuses the target (it is, or resolves to, an internal address). The
   * message is generic on purpose: the reason is in the service log, never in a rule's execution
   * record.
   */
  final class Refused extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public Refused(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
