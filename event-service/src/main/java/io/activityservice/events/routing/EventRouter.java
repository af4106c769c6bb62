package io.activityservice.events.routing;

import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.problem.OverloadedException;
import io.activityservice.events.subscription.SubscriptionIndex;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Matches an event against the subscriptions and dispatches it to every matching target through the
 * channel adapters, asynchronously. At most {@code maxInFlight} events are being routed at once;
 * beyond that, routing fails fast with {@link OverloadedException} (REST answers 503, inbound
 * channels redeliver later), so memory stays bounded under overload.
 */
public class EventRouter {

  private static final Logger log = LoggerFactory.getLogger(EventRouter.class);

  /** Sees every event that entered routing (used by detectors and rules). Must not block. */
  @FunctionalInterface
  public interface Tap {
    void onEvent(RoutableEvent event);
  }

  private final SubscriptionIndex index;
  private final ChannelRegistry channels;
  private final DeadLetters deadLetters;
  private final DuplicateFilter duplicates;
  private final ScheduledExecutorService timer;
  private final RoutingMetrics metrics;
  private final Semaphore inFlight;
  private final int maxInFlight;
  private final List<Tap> taps = new CopyOnWriteArrayList<>();

  public EventRouter(SubscriptionIndex index, ChannelRegistry channels, DeadLetters deadLetters,
                     DuplicateFilter duplicates, ScheduledExecutorService timer, RoutingMetrics metrics,
                     int maxInFlight) {
    this.index = index;
    this.channels = channels;
    this.deadLetters = deadLetters;
    this.duplicates = duplicates;
    this.timer = timer;
    this.metrics = metrics;
    this.maxInFlight = maxInFlight;
    this.inFlight = new Semaphore(maxInFlight);
  }

  /** Registers a tap that sees every routed (non-duplicate) event. */
  public void addTap(Tap tap) {
    taps.add(tap);
  }

  /**
   * Routes one validated event. Never throws: the future completes when every matching delivery
   * has settled (delivered or dead-lettered), or fails if the event must be redelivered.
   */
  public CompletableFuture<RoutingOutcome> route(RoutableEvent event) {
    CompletableFuture<RoutingOutcome> outcome = new CompletableFuture<>();
    String id = event.event().getId();
    String source = event.event().getSource().toString();
    CompletableFuture<RoutingOutcome> earlier = duplicates.claim(source, id, outcome);
    if (earlier != null) {
      return earlier.thenApply(o -> new RoutingOutcome(o.eventId(), o.matched(), o.delivered(), o.deadLettered(), true));
    }
    if (!inFlight.tryAcquire()) {
      duplicates.forget(source, id, outcome);
      outcome.completeExceptionally(new OverloadedException(
          "router is at its bound of " + maxInFlight + " events in flight; retry later"));
      return outcome;
    }
    // Routing settles an internal future first: the permit and the dedup entry are released before
    // callers (and waiting duplicates) see the outcome, so whatever they do next (route the next
    // event, nack for a redelivery) finds the router already in its new state.
    CompletableFuture<RoutingOutcome> settled = new CompletableFuture<>();
    settled.whenComplete((o, error) -> {
      inFlight.release();
      if (error != null) {
        duplicates.forget(source, id, outcome);
        outcome.completeExceptionally(error);
      } else {
        outcome.complete(o);
      }
    });
    try {
      dispatch(event, settled);
    } catch (RuntimeException e) {
      log.error("routing event {} failed unexpectedly", id, e);
      settled.completeExceptionally(e);
    }
    return outcome;
  }

  /** Events currently being routed. */
  public int inFlight() {
    return maxInFlight - inFlight.availablePermits();
  }

  private void dispatch(RoutableEvent event, CompletableFuture<RoutingOutcome> outcome) {
    metrics.received(event.event().getType());
    for (Tap tap : taps) {
      try {
        tap.onEvent(event);
      } catch (RuntimeException e) {
        log.warn("tap {} failed on event {}", tap, event.event().getId(), e);
      }
    }
    List<SubscriptionIndex.Entry> matches = index.match(event.event(), event.json());
    String id = event.event().getId();
    if (matches.isEmpty()) {
      metrics.routed(event.receivedAt());
      outcome.complete(new RoutingOutcome(id, 0, 0, 0, false));
      return;
    }
    @SuppressWarnings("unchecked")
    CompletableFuture<Delivery.Result>[] deliveries = new CompletableFuture[matches.size()];
    for (int i = 0; i < deliveries.length; i++) {
      deliveries[i] = Delivery.start(matches.get(i), event, channels, deadLetters, timer, metrics);
    }
    CompletableFuture.allOf(deliveries).whenComplete((ok, error) -> {
      metrics.routed(event.receivedAt());
      if (error != null) {
        outcome.completeExceptionally(error);
        return;
      }
      int delivered = 0;
      for (CompletableFuture<Delivery.Result> d : deliveries) {
        if (d.join() == Delivery.Result.DELIVERED) {
          delivered++;
        }
      }
      outcome.complete(new RoutingOutcome(id, deliveries.length, delivered, deliveries.length - delivered, false));
    });
  }
}
