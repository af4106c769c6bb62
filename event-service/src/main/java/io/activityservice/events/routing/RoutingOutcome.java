package io.activityservice.events.routing;

/**
 * What routing did with one event.
 *
 * @param eventId      the event's id
 * @param matched      subscriptions that matched
 * @param delivered    deliveries the target accepted
 * @param deadLettered deliveries that failed for good and went to the dead-letter channel (or were dropped when none is set)
 * @param duplicate    true if this was a redelivery of an event already routed within the dedup window
 */
public record RoutingOutcome(String eventId, int matched, int delivered, int deadLettered, boolean duplicate) {
}
