package io.activityservice.events.archive;

import io.activityservice.events.model.RoutableEvent;
import java.util.concurrent.CompletableFuture;

/**
 * Where a replay hands each event: the subscriptions through the same delivery path as live events
 * (retries, dead letters), and the detectors and rule sets named in the destinations. Implemented
 * by the application, which knows the engines and whether they run on this replica or behind
 * internal channels.
 */
@FunctionalInterface
public interface ReplayTarget {

  /**
   * Hands one replayed event (already carrying {@code replayname}) to its destinations. Never
   * throws.
   *
   * @return completes when the subscriptions' deliveries are durable and the detectors and rule
   *     sets took the event (waiting, if need be, for room in their queues); fails the replay
   *     otherwise
   */
  CompletableFuture<Void> replay(RoutableEvent event, Replay.Destinations destinations);
}
