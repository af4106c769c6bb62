package io.activityservice.events.webhook;

/**
 * An attempt that was not made: the target's rate limit or open circuit breaker holds it back. The
 * delivery waits in the durable store for {@link #delayMillis()} without counting an attempt (the
 * retry policy's {@code maxAge} still bounds how long).
 */
public final class DeliveryDeferred extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /**
   * How the error of a delivery deferred with a reserved rate-limit slot starts: when it comes due,
   * it is sent without asking the rate limiter again (its permit was taken when it was deferred).
   */
  public static final String RESERVED = "rate slot reserved: ";

  private final long delayMillis;

  DeliveryDeferred(String reason, long delayMillis) {
    super(reason, null, false, false);
    this.delayMillis = delayMillis;
  }

  /** Whether a delivery's last error says it holds a reserved slot of its target's rate limit. */
  public static boolean holdsReservation(String lastError) {
    return lastError != null && lastError.startsWith("deferred: " + RESERVED);
  }

  /** How long to wait before the next try. */
  public long delayMillis() {
    return delayMillis;
  }
}
