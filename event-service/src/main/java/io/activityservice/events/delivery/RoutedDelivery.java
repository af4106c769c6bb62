package io.activityservice.events.delivery;

import io.activityservice.events.routing.RoutableEvent;
import io.activityservice.events.subscription.SubscriptionIndex;
import java.util.concurrent.CompletableFuture;

/**
 * The first attempt of one routed event at one subscription's target. It ends in one of three ways:
 * delivered; failed, and parked (or given up) in the store; or still running when {@code park-after} elapsed,
 * and then parked under this replica's lease while the attempt goes on — its late result is settled on the
 * parked row like any retry attempt's. {@link #result()} completes once the outcome is durable, and only then
 * may the inbound message be settled or the REST request answered.
 */
final class RoutedDelivery {

  private enum State { PENDING, SETTLED, PARKED_IN_FLIGHT }

  private final DurableDelivery owner;
  private final SubscriptionIndex.Entry entry;
  private final RoutableEvent event;
  private final long startNanos = System.nanoTime();
  private final CompletableFuture<DurableDelivery.Result> result = new CompletableFuture<>();
  private State state = State.PENDING;
  private ParkedDelivery parkedRow;
  private CompletableFuture<Void> parking;

  RoutedDelivery(DurableDelivery owner, SubscriptionIndex.Entry entry, RoutableEvent event) {
    this.owner = owner;
    this.entry = entry;
    this.event = event;
  }

  CompletableFuture<DurableDelivery.Result> result() {
    return result;
  }

  long startNanos() {
    return startNanos;
  }

  SubscriptionIndex.Entry entry() {
    return entry;
  }

  RoutableEvent event() {
    return event;
  }

  synchronized boolean isPending() {
    return state == State.PENDING;
  }

  /** Sends; the timer calls {@link #parkAfterElapsed()} if it is still pending then. */
  void start() {
    owner.send(entry.target(), event.outbound()).whenComplete((ok, error) -> attemptDone(error));
  }

  private void attemptDone(Throwable error) {
    CompletableFuture<Void> inFlightPark;
    ParkedDelivery row;
    synchronized (this) {
      if (state == State.PENDING) {
        state = State.SETTLED;
        if (error == null) {
          result.complete(DurableDelivery.Result.DELIVERED);
          return;
        }
        inFlightPark = null;
        row = null;
      } else {
        inFlightPark = parking;
        row = parkedRow;
      }
    }
    if (inFlightPark == null) {
      owner.parkFailedFirstAttempt(entry, event, error).whenComplete((r, e) -> {
        if (e == null) {
          result.complete(r);
        } else {
          result.completeExceptionally(e);
        }
      });
    } else {
      // The row is ours (locked under our lease): settle it once it is written; if writing it failed, the
      // inbound message was refused and comes again, so there is nothing to settle.
      inFlightPark.thenRun(() -> owner.settleLateFirstAttempt(row, entry, error));
    }
  }

  /** Called by the timer: parks the delivery if its first attempt is still running. */
  void parkAfterElapsed() {
    synchronized (this) {
      if (state != State.PENDING) {
        return;
      }
      state = State.PARKED_IN_FLIGHT;
      parkedRow = owner.inFlightRow(entry, event);
      parking = owner.parkInFlight(parkedRow);
    }
    parking.whenComplete((ok, error) -> {
      if (error == null) {
        result.complete(DurableDelivery.Result.PARKED);
      } else {
        result.completeExceptionally(error);
      }
    });
  }
}
