package io.activityservice.rules.action;

import java.time.Instant;

/**
 * One recorded action execution.
 *
 * @param time when the rule asked for the action
 * @param firedRule the DRL rule whose consequence ran it
 * @param eventId the triggering event's id, or {@code null}
 * @param handler the handler's name
 * @param outcome {@code succeeded} or {@code failed}
 * @param attempts attempts made
 * @param durationMs from the request to the outcome, in milliseconds (includes queueing and
 *     retries)
 * @param error why it failed, or {@code null}
 */
public record ExecutionRecord(
    Instant time,
    String firedRule,
    String eventId,
    String handler,
    String outcome,
    int attempts,
    long durationMs,
    String error) {

  public static final String SUCCEEDED = "succeeded";
  public static final String FAILED = "failed";
}
