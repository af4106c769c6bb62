package io.activityservice.events.routing;

/**
 * What routing did with one event, once every matching delivery is durable: delivered, parked for
 * retries from the store, or dead-lettered.
 *
 * @param eventId the event's id
 * @param matched subscriptions that matched
 * @param delivered deliveries the target accepted on the first attempt
 * @param parked deliveries handed to the durable retry store (retried on the subscription's
 *     schedule)
 * @param deadLettered deliveries given up at once (no retries allowed) and kept as dead letters
 * @param duplicate true if this was a redelivery of an event already routed within the dedup window
 */
public record RoutingOutcome(
    String eventId, int matched, int delivered, int parked, int deadLettered, boolean duplicate) {}
