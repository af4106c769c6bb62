package io.activityservice.events.delivery;

/**
 * An event the service gave up delivering, kept for browsing and redrive.
 *
 * @param id id of the dead letter
 * @param subscriptionId the subscription it was for, or {@code null} (invalid inbound event,
 *     derivation loop)
 * @param origin where it failed: the subscription's target (redacted), or e.g. {@code
 *     inbound:jms:queue:x}
 * @param eventId CloudEvents id
 * @param eventSource CloudEvents source
 * @param eventType CloudEvents type
 * @param eventJson the event in structured-mode JSON
 * @param attempts attempts made
 * @param reason why it was given up
 * @param receivedAt when the service received the event (epoch ms)
 * @param deadLetteredAt when it was given up (epoch ms)
 * @param shaped whether {@code eventJson} is already the subscription's transformation of the event
 */
public record DeadLetterRecord(
    String id,
    String subscriptionId,
    String origin,
    String eventId,
    String eventSource,
    String eventType,
    String eventJson,
    int attempts,
    String reason,
    long receivedAt,
    long deadLetteredAt,
    boolean shaped) {

  /** A dead letter holding the event as received (not transformed). */
  public DeadLetterRecord(
      String id,
      String subscriptionId,
      String origin,
      String eventId,
      String eventSource,
      String eventType,
      String eventJson,
      int attempts,
      String reason,
      long receivedAt,
      long deadLetteredAt) {
    this(
        id,
        subscriptionId,
        origin,
        eventId,
        eventSource,
        eventType,
        eventJson,
        attempts,
        reason,
        receivedAt,
        deadLetteredAt,
        false);
  }
}
