package io.activityservice.events.delivery;

/**
 * A delivery waiting in the store: one event for one subscription.
 *
 * @param id row id (also the dead letter's id once given up)
 * @param subscriptionId the subscription it is for
 * @param phase what the next attempt does
 * @param eventId CloudEvents id (for listing)
 * @param eventSource CloudEvents source
 * @param eventType CloudEvents type
 * @param eventJson the event in structured-mode JSON
 * @param attempts attempts made at the target so far, including one in progress
 * @param receivedAt when the service received the event (epoch ms); {@code retry.maxAge} counts
 *     from here
 * @param nextAttemptAt when it is due (epoch ms)
 * @param lastError the last attempt's error, or {@code null}
 * @param deadLetterReason why it was given up ({@link Phase#DEAD_LETTER}), or {@code null}
 * @param lockToken the claim this copy of the row belongs to; writes are fenced by it
 * @param createdAt when it was parked (epoch ms)
 * @param shaped whether {@code eventJson} is already the subscription's transformation of the event
 *     (then retries send it as it is, so an event is transformed once per delivery)
 * @param orderingKey the event's key under its subscription's ordering per key, or {@code null} for
 *     an unordered delivery
 * @param blockingSince when it was first claimed as the head of its key (epoch ms; {@code
 *     ordering.maxWait} counts from here), or {@code null}
 */
public record ParkedDelivery(
    String id,
    String subscriptionId,
    Phase phase,
    String eventId,
    String eventSource,
    String eventType,
    String eventJson,
    int attempts,
    long receivedAt,
    long nextAttemptAt,
    String lastError,
    String deadLetterReason,
    String lockToken,
    long createdAt,
    boolean shaped,
    String orderingKey,
    Long blockingSince) {

  /** An unordered row. */
  public ParkedDelivery(
      String id,
      String subscriptionId,
      Phase phase,
      String eventId,
      String eventSource,
      String eventType,
      String eventJson,
      int attempts,
      long receivedAt,
      long nextAttemptAt,
      String lastError,
      String deadLetterReason,
      String lockToken,
      long createdAt,
      boolean shaped) {
    this(
        id,
        subscriptionId,
        phase,
        eventId,
        eventSource,
        eventType,
        eventJson,
        attempts,
        receivedAt,
        nextAttemptAt,
        lastError,
        deadLetterReason,
        lockToken,
        createdAt,
        shaped,
        null,
        null);
  }

  /** A row holding the event as received (not transformed). */
  public ParkedDelivery(
      String id,
      String subscriptionId,
      Phase phase,
      String eventId,
      String eventSource,
      String eventType,
      String eventJson,
      int attempts,
      long receivedAt,
      long nextAttemptAt,
      String lastError,
      String deadLetterReason,
      String lockToken,
      long createdAt) {
    this(
        id,
        subscriptionId,
        phase,
        eventId,
        eventSource,
        eventType,
        eventJson,
        attempts,
        receivedAt,
        nextAttemptAt,
        lastError,
        deadLetterReason,
        lockToken,
        createdAt,
        false);
  }

  /** What a parked delivery waits for. */
  public enum Phase {
    /** The next attempt at the subscription's target. */
    RETRY,
    /** Attempts are exhausted; the event waits to be handed to the dead-letter channel. */
    DEAD_LETTER
  }

  /** This row as claimed by a new lease at {@code now}. */
  ParkedDelivery claimed(String token, int attemptsAfterClaim, long now) {
    return new ParkedDelivery(
        id,
        subscriptionId,
        phase,
        eventId,
        eventSource,
        eventType,
        eventJson,
        attemptsAfterClaim,
        receivedAt,
        nextAttemptAt,
        lastError,
        deadLetterReason,
        token,
        createdAt,
        shaped,
        orderingKey,
        orderingKey == null ? null : blockingSince != null ? blockingSince : now);
  }
}
