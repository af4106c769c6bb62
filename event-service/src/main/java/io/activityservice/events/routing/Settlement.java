package io.activityservice.events.routing;

import io.activityservice.events.delivery.DurableDelivery;
import io.activityservice.events.model.RoutableEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * The one object that follows a routed event from the match to its outcome: it counts the
 * deliveries (and the forwarders' hand-over) still open, and when the last one is durable it
 * releases the router's in-flight slot and tells the caller — the inbound acknowledgement, or the
 * REST answer. It replaces a chain of futures per event (route, deliveries, allOf, park-after,
 * outcome, acknowledgement) with one object and a counter.
 *
 * <p>It is also the event's entry in the {@link DuplicateFilter}: a duplicate that arrives while it
 * routes waits on it, one that arrives later gets its outcome marked as a duplicate. Once settled
 * it keeps only the counts (the filter may remember it for the whole dedup window), never the
 * event.
 */
final class Settlement extends DuplicateFilter.Claim
    implements DurableDelivery.Callback, BiConsumer<Object, Throwable> {

  private final EventRouter router;
  private final long receivedAt;

  /** Guarded by {@code this}. */
  private EventRouter.Callback callback;

  private List<EventRouter.Callback> duplicates;

  /**
   * Deliveries and hand-overs not ended yet, plus one for the router until it has handed everything
   * out.
   */
  private int open = 1;

  private int matched;
  private int delivered;
  private int parked;
  private Throwable error;
  private volatile boolean settled;

  Settlement(EventRouter router, RoutableEvent event, EventRouter.Callback callback) {
    super(event.event().getSource().toString(), event.event().getId());
    this.router = router;
    this.receivedAt = event.receivedAt();
    this.callback = callback;
  }

  @Override
  boolean isSettled() {
    return settled;
  }

  /** Opens the deliveries (and the forwarders' hand-over); called before any of them can end. */
  void expect(int deliveries, boolean forward) {
    synchronized (this) {
      matched += deliveries;
      open += deliveries + (forward ? 1 : 0);
    }
  }

  /** The router handed out everything: the outcome may be given once the open parts end. */
  void dispatched() {
    close(null, null);
  }

  /** A delivery ended. */
  @Override
  public void settled(DurableDelivery.Result result, Throwable failure) {
    close(result, failure);
  }

  /** The forwarders' hand-over ended. */
  @Override
  public void accept(Object ignored, Throwable failure) {
    close(null, failure);
  }

  /**
   * Routing failed unexpectedly: the event is refused (redelivered) once whatever was handed out
   * before has ended. Instead of {@link #dispatched()}.
   */
  void fail(Throwable failure) {
    close(null, failure);
  }

  private void close(DurableDelivery.Result result, Throwable failure) {
    synchronized (this) {
      if (failure != null) {
        if (error == null) {
          error = failure;
        }
      } else if (result == DurableDelivery.Result.DELIVERED) {
        delivered++;
      } else if (result == DurableDelivery.Result.PARKED) {
        parked++;
      }
      if (--open > 0) {
        return;
      }
    }
    router.settle(this, receivedAt, error);
  }

  /** The outcome as routing gave it. */
  synchronized RoutingOutcome outcome(boolean duplicate) {
    return new RoutingOutcome(
        id, matched, delivered, parked, matched - delivered - parked, duplicate);
  }

  Throwable error() {
    return error;
  }

  /**
   * Tells the caller and the duplicates that waited; the router has released the slot (and
   * forgotten a failure).
   */
  void complete() {
    EventRouter.Callback first;
    List<EventRouter.Callback> waiting;
    synchronized (this) {
      first = callback;
      waiting = duplicates;
      callback = null;
      duplicates = null;
      settled = true;
    }
    if (first != null) {
      EventRouter.tell(first, error == null ? outcome(false) : null, error);
    }
    if (waiting != null) {
      for (EventRouter.Callback w : waiting) {
        EventRouter.tell(w, error == null ? outcome(true) : null, error);
      }
    }
  }

  /**
   * A duplicate of this event arrived: it gets this event's outcome (as a duplicate) once there is
   * one.
   */
  void duplicate(EventRouter.Callback waiter) {
    synchronized (this) {
      if (!settled) {
        if (duplicates == null) {
          duplicates = new ArrayList<>(2);
        }
        duplicates.add(waiter);
        return;
      }
    }
    EventRouter.tell(waiter, error == null ? outcome(true) : null, error);
  }
}
