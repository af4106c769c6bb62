package io.activityservice.events.routing;

import io.activityservice.events.log.LogSafe;
import io.activityservice.events.delivery.DurableDelivery;
import io.activityservice.events.problem.OverloadedException;
import io.activityservice.events.subscription.SubscriptionIndex;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Matches an event against the subscriptions and hands every matching delivery to {@link DurableDelivery}, which
 * attempts it at once and parks it in the durable store if it has not succeeded within {@code park-after}. The
 * route completes when every delivery is delivered, parked or dead-lettered — durable either way — so an inbound
 * message waits at most about {@code park-after}, however slow a subscriber is. At most {@code maxInFlight} events
 * are being routed at once; beyond that, routing fails fast with {@link OverloadedException} (REST answers 503,
 * inbound channels redeliver later), so memory stays bounded under overload.
 */
public class EventRouter {

  private static final Logger log = LoggerFactory.getLogger(EventRouter.class);

  /** Sees every event that entered routing (used by detectors and rules). Must not block. */
  @FunctionalInterface
  public interface Tap {
    void onEvent(RoutableEvent event);
  }

  private final SubscriptionIndex index;
  private final DurableDelivery delivery;
  private final DuplicateFilter duplicates;
  private final RoutingMetrics metrics;
  private final Semaphore inFlight;
  private final int maxInFlight;
  private final List<Tap> taps = new CopyOnWriteArrayList<>();
  private final List<Forwarder> forwarders = new CopyOnWriteArrayList<>();

  public EventRouter(SubscriptionIndex index, DurableDelivery delivery, DuplicateFilter duplicates,
                     RoutingMetrics metrics, int maxInFlight) {
    this.index = index;
    this.delivery = delivery;
    this.duplicates = duplicates;
    this.metrics = metrics;
    this.maxInFlight = maxInFlight;
    this.inFlight = new Semaphore(maxInFlight);
  }

  /**
   * Hands every routed event on to something that must not miss it, e.g. the internal channels of detectors on other
   * replicas. Unlike a tap, the route waits for the returned future: if it fails the event is refused (nack / 503).
   * Must not block.
   */
  @FunctionalInterface
  public interface Forwarder {
    CompletableFuture<Void> forward(RoutableEvent event);
  }

  /** Registers a forwarder that sees every routed (non-duplicate) event. */
  public void addForwarder(Forwarder forwarder) {
    forwarders.add(forwarder);
  }

  private CompletableFuture<Void> forward(RoutableEvent event) {
    if (forwarders.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    List<CompletableFuture<Void>> all = new java.util.ArrayList<>(forwarders.size());
    for (Forwarder f : forwarders) {
      try {
        all.add(f.forward(event));
      } catch (RuntimeException e) {
        all.add(CompletableFuture.failedFuture(e));
      }
    }
    return all.size() == 1 ? all.get(0) : CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
  }

  /** Registers a tap that sees every routed (non-duplicate) event. */
  public void addTap(Tap tap) {
    taps.add(tap);
  }

  /**
   * Routes one validated event. Never throws: the future completes when every matching delivery is durable
   * (delivered, parked or dead-lettered), or fails if the event must be redelivered.
   */
  public CompletableFuture<RoutingOutcome> route(RoutableEvent event) {
    CompletableFuture<RoutingOutcome> outcome = new CompletableFuture<>();
    String id = event.event().getId();
    String source = event.event().getSource().toString();
    CompletableFuture<RoutingOutcome> earlier = duplicates.claim(source, id, outcome);
    if (earlier != null) {
      return earlier.thenApply(o -> new RoutingOutcome(o.eventId(), o.matched(), o.delivered(), o.parked(),
          o.deadLettered(), true));
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
      log.error("routing event {} failed unexpectedly", LogSafe.text(id), e);
      settled.completeExceptionally(e);
    }
    return outcome;
  }

  /**
   * Routes a replayed event to the matching subscriptions among {@code subscriptionIds} ({@code null}: all),
   * through the same delivery path as live events (first attempt, parking, retries, dead letters). Replays bypass
   * the duplicate filter (a replayed event has the id of the live one), the taps and the forwarders (the replay
   * decides which detectors and rule sets see it), and the in-flight bound (the replay runner has its own).
   */
  public CompletableFuture<RoutingOutcome> replay(RoutableEvent event, java.util.Set<String> subscriptionIds) {
    try {
      List<SubscriptionIndex.Entry> matches = index.match(event.event(), event.json());
      if (subscriptionIds != null) {
        matches = matches.stream().filter(m -> subscriptionIds.contains(m.subscription().id())).toList();
      }
      String id = event.event().getId();
      if (matches.isEmpty()) {
        return CompletableFuture.completedFuture(new RoutingOutcome(id, 0, 0, 0, 0, false));
      }
      @SuppressWarnings("unchecked")
      CompletableFuture<DurableDelivery.Result>[] deliveries = new CompletableFuture[matches.size()];
      for (int i = 0; i < deliveries.length; i++) {
        deliveries[i] = delivery.deliver(matches.get(i), event);
      }
      return CompletableFuture.allOf(deliveries).thenApply(v -> outcomeOf(id, deliveries));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private static RoutingOutcome outcomeOf(String id, CompletableFuture<DurableDelivery.Result>[] deliveries) {
    int delivered = 0;
    int parked = 0;
    for (CompletableFuture<DurableDelivery.Result> d : deliveries) {
      DurableDelivery.Result r = d.join();
      if (r == DurableDelivery.Result.DELIVERED) {
        delivered++;
      } else if (r == DurableDelivery.Result.PARKED) {
        parked++;
      }
    }
    return new RoutingOutcome(id, deliveries.length, delivered, parked, deliveries.length - delivered - parked, false);
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
        log.warn("tap {} failed on event {}", tap, LogSafe.text(event.event().getId()), e);
      }
    }
    CompletableFuture<Void> forwarded = forward(event);
    List<SubscriptionIndex.Entry> matches = index.match(event.event(), event.json());
    String id = event.event().getId();
    if (matches.isEmpty()) {
      forwarded.whenComplete((ok, error) -> {
        metrics.routed(event.receivedAt());
        if (error != null) {
          outcome.completeExceptionally(error);
        } else {
          outcome.complete(new RoutingOutcome(id, 0, 0, 0, 0, false));
        }
      });
      return;
    }
    @SuppressWarnings("unchecked")
    CompletableFuture<DurableDelivery.Result>[] deliveries = new CompletableFuture[matches.size()];
    for (int i = 0; i < deliveries.length; i++) {
      deliveries[i] = delivery.deliver(matches.get(i), event);
    }
    CompletableFuture.allOf(CompletableFuture.allOf(deliveries), forwarded).whenComplete((ok, error) -> {
      metrics.routed(event.receivedAt());
      if (error != null) {
        outcome.completeExceptionally(error);
        return;
      }
      outcome.complete(outcomeOf(id, deliveries));
    });
  }
}
