package io.activityservice.events.webhook;

import io.activityservice.events.problem.InvalidInputException;
import java.time.Duration;
import java.util.Locale;

/**
 * What a webhook subscription asks of its deliveries besides the address: a signature, the
 * credentials of a named connection, and flow control towards its target. Webhook (http/https)
 * targets only.
 *
 * @param signingScheme {@value #STANDARD_WEBHOOKS}, or {@code null} for unsigned deliveries
 * @param connection the name of a connection whose credentials each request carries, or {@code
 *     null}
 * @param flow rate limit, answer timeout and circuit breaker for the target, or {@code null}
 */
public record TargetSettings(String signingScheme, String connection, Flow flow) {

  /** Standard Webhooks 1.0 HMAC-SHA256 ({@code v1}) signatures. */
  public static final String STANDARD_WEBHOOKS = "standard-webhooks";

  public TargetSettings {
    if (signingScheme != null) {
      signingScheme = signingScheme.trim().toLowerCase(Locale.ROOT);
      if (!signingScheme.equals(STANDARD_WEBHOOKS)) {
        throw new InvalidInputException(
            "signing.scheme", "must be \"" + STANDARD_WEBHOOKS + "\" (the only scheme offered)");
      }
    }
    if (connection != null) {
      connection = connection.trim();
      if (connection.isEmpty()) {
        connection = null;
      }
    }
  }

  /** Whether deliveries are signed. */
  public boolean signed() {
    return signingScheme != null;
  }

  /** Settings that ask for nothing are represented as {@code null}. */
  public static TargetSettings orNull(String signingScheme, String connection, Flow flow) {
    TargetSettings t = new TargetSettings(signingScheme, connection, flow);
    return t.signingScheme == null && t.connection == null && flow == null ? null : t;
  }

  /**
   * Flow control towards one target.
   *
   * @param ratePerSecond most requests per second to the target (all replicas together), or {@code
   *     null} for no limit
   * @param burst requests that may go at once after a quiet period; {@code null}: one second's
   *     worth
   * @param timeout time the target has to answer one request, or {@code null} for {@code
   *     activity.channels.http.request-timeout}
   * @param breakerFailures consecutive failed requests that open the circuit breaker, or {@code
   *     null} for no breaker
   * @param breakerOpenFor how long an open breaker holds deliveries before one probe request
   *     (half-open); {@code null} with a breaker: 30 s
   */
  public record Flow(
      Double ratePerSecond,
      Integer burst,
      Duration timeout,
      Integer breakerFailures,
      Duration breakerOpenFor) {

    /** Highest rate limit. */
    public static final double MAX_RATE = 100_000;

    public Flow {
      if (ratePerSecond != null
          && (ratePerSecond.isNaN() || ratePerSecond < 0.01 || ratePerSecond > MAX_RATE)) {
        throw new InvalidInputException(
            "flow.ratePerSecond", "must be between 0.01 and " + (long) MAX_RATE);
      }
      if (burst != null && (burst < 1 || burst > 100_000)) {
        throw new InvalidInputException("flow.burst", "must be between 1 and 100000");
      }
      if (burst != null && ratePerSecond == null) {
        throw new InvalidInputException("flow.burst", "needs flow.ratePerSecond");
      }
      if (timeout != null
          && (timeout.compareTo(Duration.ofMillis(100)) < 0
              || timeout.compareTo(Duration.ofMinutes(5)) > 0)) {
        throw new InvalidInputException("flow.timeout", "must be between PT0.1S and PT5M");
      }
      if (breakerFailures != null && (breakerFailures < 1 || breakerFailures > 1000)) {
        throw new InvalidInputException(
            "flow.circuitBreaker.failures", "must be between 1 and 1000");
      }
      if (breakerOpenFor != null
          && (breakerOpenFor.compareTo(Duration.ofMillis(100)) < 0
              || breakerOpenFor.compareTo(Duration.ofHours(1)) > 0)) {
        throw new InvalidInputException(
            "flow.circuitBreaker.openFor", "must be between PT0.1S and PT1H");
      }
      if (breakerOpenFor != null && breakerFailures == null) {
        throw new InvalidInputException(
            "flow.circuitBreaker.failures", "is required with flow.circuitBreaker.openFor");
      }
      if (breakerFailures != null && breakerOpenFor == null) {
        breakerOpenFor = Duration.ofSeconds(30);
      }
    }

    /** The burst in force: as given, else one second's worth of the rate (at least 1). */
    public int effectiveBurst() {
      return burst != null
          ? burst
          : (int) Math.max(1, Math.ceil(ratePerSecond == null ? 1 : ratePerSecond));
    }

    /** Whether a circuit breaker guards the target. */
    public boolean hasBreaker() {
      return breakerFailures != null;
    }
  }
}
