package io.activityservice.events.delivery;

import io.activityservice.channel.OutboundEvent;
import io.activityservice.channel.support.Futures;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.subscription.SubscriptionIndex;
import io.activityservice.events.tracing.EventTracing;
import io.activityservice.events.transform.TransformException;
import io.activityservice.events.webhook.DeliveryDeferred;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * The first attempt of one routed event at one subscription's target. It ends in one of three ways:
 * delivered; failed, and parked (or given up) in the store; or still running when {@code
 * park-after} elapsed, and then parked under this replica's lease while the attempt goes on — its
 * late result is settled on the parked row like any retry attempt's. The callback is told once the
 * outcome is durable, and only then may the inbound message be settled or the REST request
 * answered.
 *
 * <p>One object per delivery: it is the completion of the channel's future (no extra futures), the
 * timer's entry, and the state machine; once settled it drops the event, so a settled entry waiting
 * in the timer's queue is small.
 */
final class RoutedDelivery implements BiConsumer<Void, Throwable>, ParkAfterTimer.Entry {

  private enum State {
    PENDING,
    SETTLED,
    PARKED_IN_FLIGHT
  }

  private final DurableDelivery owner;
  private final SubscriptionIndex.Entry entry;
  private final DurableDelivery.Callback done;
  private final long startNanos = System.nanoTime();

  /**
   * Cleared once the first attempt ended or the delivery was parked: nothing needs the event after
   * that.
   */
  private RoutableEvent event;

  private DurableDelivery.Route route;

  /** The attempt's span ({@link EventTracing.Hop#NONE} when the event is not traced). */
  private EventTracing.Hop hop = EventTracing.Hop.NONE;

  /** What is sent when the subscription transforms events (kept for parking), else null. */
  private OutboundEvent shaped;

  /** When the first attempt was handed to the channel ({@link System#nanoTime()}). */
  private long sendNanos;

  /** Changed under {@code this}; read without the lock by the timer. */
  private volatile State state = State.PENDING;

  private ParkedDelivery parkedRow;
  private CompletableFuture<Void> parking;

  RoutedDelivery(
      DurableDelivery owner,
      SubscriptionIndex.Entry entry,
      RoutableEvent event,
      DurableDelivery.Callback done) {
    this.owner = owner;
    this.entry = entry;
    this.event = event;
    this.done = done;
  }

  @Override
  public long startNanos() {
    return startNanos;
  }

  @Override
  public boolean isPending() {
    return state == State.PENDING;
  }

  /**
   * Sends; the timer calls {@link #parkAfterElapsed()} if it is still pending then. Never throws.
   */
  void start() {
    CompletableFuture<Void> send;
    OutboundEvent out;
    try {
      out = DurableDelivery.shape(entry, event);
    } catch (TransformException e) {
      // Deterministic: a retry would fail the same way. Dead-lettered at once; the others go on.
      RoutableEvent e0 = event;
      synchronized (this) {
        state = State.SETTLED;
        event = null;
      }
      CompletableFuture<DurableDelivery.Result> dead;
      try {
        dead = owner.deadLetterUntransformable(entry, e0, e);
      } catch (RuntimeException unexpected) {
        dead = CompletableFuture.failedFuture(unexpected);
      }
      dead.whenComplete(done::settled);
      return;
    }
    if (entry.transform() != null) {
      shaped = out;
    }
    sendNanos = System.nanoTime();
    try {
      route = owner.route(entry.target());
      EventTracing.Hop parent = event.trace();
      if (parent.recording()) {
        EventTracing tracing = owner.tracing();
        hop =
            tracing.deliver(
                parent, event.event(), route.destination(), entry.subscription().id(), 1);
        send = owner.send(route, entry, tracing.continued(hop, out));
      } else {
        send = owner.send(route, entry, out);
      }
    } catch (RuntimeException e) {
      send = CompletableFuture.failedFuture(e);
    }
    if (send.isDone() && !send.isCompletedExceptionally()) {
      accept(null, null); // accepted at once: no completion stage to allocate
    } else {
      send.whenComplete(this);
    }
  }

  /** The first attempt ended ({@code error == null}: the target accepted the event). */
  @Override
  public void accept(Void ok, Throwable error) {
    hop.end(error);
    if (route != null) {
      if (error == null) {
        route.meters().delivered().increment();
        route.meters().send().record(System.nanoTime() - sendNanos, TimeUnit.NANOSECONDS);
      } else if (!(Futures.unwrap(error) instanceof DeliveryDeferred)) {
        route.meters().failed().increment();
      }
    } else {
      owner.countFailedAttempt(entry.target());
    }
    CompletableFuture<Void> inFlightPark;
    ParkedDelivery row;
    RoutableEvent e;
    synchronized (this) {
      e = event;
      event = null;
      if (state == State.PENDING) {
        state = State.SETTLED;
        inFlightPark = null;
        row = null;
      } else {
        inFlightPark = parking;
        row = parkedRow;
      }
    }
    if (inFlightPark == null && error == null) {
      done.settled(DurableDelivery.Result.DELIVERED, null);
    } else if (inFlightPark == null) {
      CompletableFuture<DurableDelivery.Result> parked;
      try {
        parked = owner.parkFailedFirstAttempt(entry, e, shaped, error);
      } catch (RuntimeException unexpected) {
        parked = CompletableFuture.failedFuture(unexpected);
      }
      parked.whenComplete(done::settled);
    } else {
      // The row is ours (locked under our lease): settle it once it is written; if writing it
      // failed, the
      // inbound message was refused and comes again, so there is nothing to settle.
      inFlightPark.thenRun(() -> owner.settleLateFirstAttempt(row, entry, error));
    }
  }

  /** Called by the timer: parks the delivery if its first attempt is still running. */
  @Override
  public void parkAfterElapsed() {
    CompletableFuture<Void> p;
    synchronized (this) {
      if (state != State.PENDING) {
        return;
      }
      state = State.PARKED_IN_FLIGHT;
      hop.note("parked: still running at park-after");
      parkedRow = owner.inFlightRow(entry, event, shaped);
      event = null;
      parking = owner.parkInFlight(parkedRow);
      p = parking;
    }
    p.whenComplete(
        (ok, error) -> done.settled(error == null ? DurableDelivery.Result.PARKED : null, error));
  }
}
