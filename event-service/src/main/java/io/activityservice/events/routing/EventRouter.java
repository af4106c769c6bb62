package io.activityservice.events.routing;

import io.activityservice.events.delivery.DurableDelivery;
import io.activityservice.events.log.LogSafe;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.problem.OverloadedException;
import io.activityservice.events.subscription.SubscriptionIndex;
import io.activityservice.events.tracing.EventTracing;
import io.micrometer.core.instrument.Counter;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Matches an event against the subscriptions and hands every matching delivery to {@link
 * DurableDelivery}, which attempts it at once and parks it in the durable store if it has not
 * succeeded within {@code park-after}. The route completes when every delivery is delivered, parked
 * or dead-lettered — durable either way — so an inbound message waits at most about {@code
 * park-after}, however slow a subscriber is. At most {@code maxInFlight} events are being routed at
 * once; beyond that, routing fails fast with {@link OverloadedException} (REST answers 503, inbound
 * channels redeliver later), so memory stays bounded under overload.
 *
 * <p>Per event the router allocates one {@link Settlement}, which is at once the event's dedup
 * entry, the completion of its deliveries and of the forwarders' hand-over, and the keeper of its
 * outcome; callers that settle a transport message pass a {@link Callback} ({@link
 * #route(RoutableEvent, Callback)}) instead of chaining on a future.
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
  private EventTracing tracing = EventTracing.NONE;

  /** Copy-on-write arrays: read per event without an iterator. */
  private volatile Tap[] taps = new Tap[0];

  private volatile Forwarder[] forwarders = new Forwarder[0];
  private volatile Forwarder[] recorders = new Forwarder[0];

  public EventRouter(
      SubscriptionIndex index,
      DurableDelivery delivery,
      DuplicateFilter duplicates,
      RoutingMetrics metrics,
      int maxInFlight) {
    this.index = index;
    this.delivery = delivery;
    this.duplicates = duplicates;
    this.metrics = metrics;
    this.maxInFlight = maxInFlight;
    this.inFlight = new Semaphore(maxInFlight);
  }

  /**
   * Told once what routing did with an event: its outcome, or the error for which it must be
   * redelivered ({@link OverloadedException} at the in-flight bound). Called on whichever thread
   * settled the event (possibly the caller's, before {@link #route(RoutableEvent, Callback)}
   * returns); must not block.
   */
  @FunctionalInterface
  public interface Callback {
    void routed(RoutingOutcome outcome, Throwable error);
  }

  /**
   * Hands every routed event on to something that must not miss it, e.g. the internal channels of
   * detectors on other replicas. Unlike a tap, the route waits for the returned future: if it fails
   * the event is refused (nack / 503). While it is pending, the subscribers wait too (they get the
   * event only once every hand-over succeeded), so a refused event has reached no subscriber and
   * its redelivery does not duplicate. Must not block.
   */
  @FunctionalInterface
  public interface Forwarder {
    CompletableFuture<Void> forward(RoutableEvent event);
  }

  /** The router's meters, including the inbound per-hop timers (see {@link RoutingMetrics}). */
  public RoutingMetrics metrics() {
    return metrics;
  }

  /** Traces routing with {@code tracing} (set once, at start-up). */
  public EventRouter tracing(EventTracing tracing) {
    this.tracing = tracing == null ? EventTracing.NONE : tracing;
    return this;
  }

  /** Registers a forwarder that sees every routed (non-duplicate) event. */
  public synchronized void addForwarder(Forwarder forwarder) {
    Forwarder[] f = Arrays.copyOf(forwarders, forwarders.length + 1);
    f[f.length - 1] = forwarder;
    forwarders = f;
  }

  /**
   * Registers a forwarder that records the event rather than hands it over (the archive): it is
   * called only once every other forwarder accepted the event, so an event refused because a
   * hand-over failed (and redelivered) is not recorded once per attempt. If it fails, the event is
   * refused like for any forwarder.
   */
  public synchronized void addRecordingForwarder(Forwarder recorder) {
    Forwarder[] f = Arrays.copyOf(recorders, recorders.length + 1);
    f[f.length - 1] = recorder;
    recorders = f;
  }

  /** Registers a tap that sees every routed (non-duplicate) event. */
  public synchronized void addTap(Tap tap) {
    Tap[] t = Arrays.copyOf(taps, taps.length + 1);
    t[t.length - 1] = tap;
    taps = t;
  }

  /** Whether some subscription's pattern reads the event's data (ingest then parses it at once). */
  public boolean readsData() {
    return index.readsData();
  }

  /**
   * Routes one validated event. Never throws: the future completes when every matching delivery is
   * durable (delivered, parked or dead-lettered), or fails if the event must be redelivered.
   */
  public CompletableFuture<RoutingOutcome> route(RoutableEvent event) {
    CompletableFuture<RoutingOutcome> outcome = new CompletableFuture<>();
    route(
        event,
        (o, error) -> {
          if (error != null) {
            outcome.completeExceptionally(error);
          } else {
            outcome.complete(o);
          }
        });
    return outcome;
  }

  /**
   * Routes one validated event and tells {@code done} once every matching delivery is durable
   * (delivered, parked or dead-lettered), or that the event must be redelivered. Never throws. A
   * duplicate within the dedup window is told the first copy's outcome, marked as a duplicate (once
   * that copy has one).
   */
  public void route(RoutableEvent event, Callback done) {
    Settlement s;
    try {
      s = new Settlement(this, event, done);
    } catch (RuntimeException e) {
      tell(done, null, e);
      return;
    }
    DuplicateFilter.Claim earlier = duplicates.claim(s);
    if (earlier != null) {
      ((Settlement) earlier).duplicate(done);
      return;
    }
    if (!inFlight.tryAcquire()) {
      duplicates.forget(s);
      tell(
          done,
          null,
          new OverloadedException(
              "router is at its bound of " + maxInFlight + " events in flight; retry later"));
      return;
    }
    try {
      dispatch(event, s);
    } catch (RuntimeException e) {
      log.error("routing event {} failed unexpectedly", LogSafe.text(event.event().getId()), e);
      s.fail(e);
    }
  }

  /**
   * Routes a replayed event to the matching subscriptions among {@code subscriptionIds} ({@code
   * null}: all), through the same delivery path as live events (first attempt, parking, retries,
   * dead letters). Replays bypass the duplicate filter (a replayed event has the id of the live
   * one), the taps and the forwarders (the replay decides which detectors and rule sets see it),
   * and the in-flight bound (the replay runner has its own).
   */
  public CompletableFuture<RoutingOutcome> replay(
      RoutableEvent event, java.util.Set<String> subscriptionIds) {
    try {
      List<SubscriptionIndex.Entry> matches = index.match(event);
      if (subscriptionIds != null) {
        matches =
            matches.stream().filter(m -> subscriptionIds.contains(m.subscription().id())).toList();
      }
      String id = event.event().getId();
      if (matches.isEmpty()) {
        return CompletableFuture.completedFuture(new RoutingOutcome(id, 0, 0, 0, 0, false));
      }
      @SuppressWarnings({"unchecked", "rawtypes"}) // no generic array creation in Java
      CompletableFuture<DurableDelivery.Result>[] deliveries =
          new CompletableFuture[matches.size()];
      for (int i = 0; i < deliveries.length; i++) {
        deliveries[i] = delivery.deliver(matches.get(i), event);
      }
      return CompletableFuture.allOf(deliveries).thenApply(v -> outcomeOf(id, deliveries));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private static RoutingOutcome outcomeOf(
      String id, CompletableFuture<DurableDelivery.Result>[] deliveries) {
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
    return new RoutingOutcome(
        id, deliveries.length, delivered, parked, deliveries.length - delivered - parked, false);
  }

  /**
   * The counter of events received on a kind of inbound channel: {@link RoutingMetrics#receivedOn}.
   */
  public Counter receivedOn(String channel) {
    return metrics.receivedOn(channel);
  }

  /** Events currently being routed. */
  public int inFlight() {
    return maxInFlight - inFlight.availablePermits();
  }

  private void dispatch(RoutableEvent event, Settlement s) {
    metrics.received(event.event().getType());
    for (Tap tap : taps) {
      try {
        tap.onEvent(event);
      } catch (RuntimeException e) {
        log.warn("tap {} failed on event {}", tap, LogSafe.text(event.event().getId()), e);
      }
    }
    CompletableFuture<?> forwarded = forward(event);
    boolean waitForForward =
        forwarded != null && (!forwarded.isDone() || forwarded.isCompletedExceptionally());
    EventTracing.Hop hop = event.trace();
    EventTracing.Hop step = hop.recording() ? tracing.step(hop, "route") : EventTracing.Hop.NONE;
    long matchStart = System.nanoTime();
    List<SubscriptionIndex.Entry> matches = index.match(event);
    metrics.matched(matchStart);
    if (step.recording()) {
      traceMatches(step, matches);
      step.end(null);
    }
    s.expect(matches.size(), waitForForward);
    if (!waitForForward) {
      deliverAll(matches, event, s);
    } else {
      // The hand-over first (e.g. to the broker, for the detectors and rule sets on other
      // replicas), then the
      // subscribers: if the hand-over fails, the event is refused before any subscriber got it, so
      // the redelivery
      // (the transport's, or a client's retry of the 503) delivers it once, not once per attempt.
      // The fault suite
      // measured 6-11 copies per SQS-inbound event during a 44 s broker outage when both ran side
      // by side.
      forwarded.whenComplete(
          (v, failure) -> {
            if (failure == null) {
              deliverAll(matches, event, s);
            } else {
              for (int i = 0; i < matches.size(); i++) {
                s.settled(null, null); // not attempted: the event is refused as a whole
              }
            }
            s.accept(null, failure);
          });
    }
    s.dispatched();
  }

  /** The matched subscriptions as attributes of a recording route span. */
  private void traceMatches(EventTracing.Hop step, List<SubscriptionIndex.Entry> matches) {
    List<String> ids = new java.util.ArrayList<>(Math.min(matches.size(), 32));
    for (int i = 0; i < matches.size() && i < 32; i++) {
      ids.add(matches.get(i).subscription().id());
    }
    tracing.routed(step, matches.size(), ids);
  }

  private void deliverAll(
      List<SubscriptionIndex.Entry> matches, RoutableEvent event, Settlement s) {
    for (int i = 0; i < matches.size(); i++) {
      delivery.deliver(matches.get(i), event, s);
    }
  }

  /**
   * Hands the event to every forwarder, then to the recording ones; {@code null} if there are none.
   */
  private CompletableFuture<?> forward(RoutableEvent event) {
    Forwarder[] all = forwarders;
    Forwarder[] last = recorders;
    if (last.length == 0) {
      return all.length == 0 ? null : forwardAll(all, event);
    }
    CompletableFuture<?> first = all.length == 0 ? null : forwardAll(all, event);
    if (first == null || (first.isDone() && !first.isCompletedExceptionally())) {
      return forwardAll(last, event);
    }
    return first.thenCompose(v -> forwardAll(last, event));
  }

  private static CompletableFuture<?> forwardAll(Forwarder[] all, RoutableEvent event) {
    if (all.length == 1) {
      return forwardOne(all[0], event);
    }
    CompletableFuture<?>[] each = new CompletableFuture<?>[all.length];
    for (int i = 0; i < all.length; i++) {
      each[i] = forwardOne(all[i], event);
    }
    return CompletableFuture.allOf(each);
  }

  private static CompletableFuture<Void> forwardOne(Forwarder f, RoutableEvent event) {
    try {
      CompletableFuture<Void> r = f.forward(event);
      return r != null
          ? r
          : CompletableFuture.failedFuture(
              new IllegalStateException("forwarder returned no future"));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Called by a settlement once its last delivery and hand-over ended: the slot and (for a failure)
   * the dedup entry are released before the caller and waiting duplicates hear the outcome, so
   * whatever they do next (route the next event, nack for a redelivery) finds the router already in
   * its new state.
   */
  void settle(Settlement s, long receivedAt, Throwable error) {
    metrics.routed(receivedAt);
    inFlight.release();
    if (error != null) {
      duplicates.forget(s);
    }
    s.complete();
  }

  /** Tells a callback; one that throws is logged, never propagated (async code never throws). */
  static void tell(Callback callback, RoutingOutcome outcome, Throwable error) {
    try {
      callback.routed(outcome, error);
    } catch (RuntimeException e) {
      log.error("a routing callback failed", e);
    }
  }
}
