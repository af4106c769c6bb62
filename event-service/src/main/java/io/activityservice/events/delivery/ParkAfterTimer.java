package io.activityservice.events.delivery;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parks first attempts still running after {@code park-after}. Every delivery has the same timeout,
 * so the order deliveries start in is the order they expire in: a FIFO queue swept from its head is
 * the whole timer (O(1) per delivery, nothing to cancel, no task per delivery). Settled deliveries
 * are dropped when they reach the head.
 *
 * <p>The sweep runs only while the queue holds something: the first delivery queued after a quiet
 * spell schedules it for its own deadline, and each sweep schedules the next for the head's
 * deadline, or sooner (every {@code park-after}/20, 5–50 ms, while deliveries are pending, so
 * parking is as prompt as with a fixed-rate sweep and settled entries behind a pending head are
 * trimmed regularly). An idle service has no timer task at all. Deliveries that a channel accepts
 * at once are never queued.
 */
final class ParkAfterTimer {

  private static final Logger log = LoggerFactory.getLogger(ParkAfterTimer.class);

  /** What the timer parks: a delivery's first attempt ({@link RoutedDelivery}). */
  interface Entry {
    /** When the first attempt started ({@link System#nanoTime()}). */
    long startNanos();

    /** Whether the first attempt is still running (not settled, not parked). */
    boolean isPending();

    /** Parks it if its first attempt is still running. */
    void parkAfterElapsed();
  }

  private final long parkAfterNanos;
  private final long maxWaitNanos;
  private final ScheduledExecutorService scheduler;
  private final ConcurrentLinkedQueue<Entry> queue = new ConcurrentLinkedQueue<>();

  /** Whether a sweep is scheduled (or running); at most one is. */
  private final AtomicBoolean armed = new AtomicBoolean();

  ParkAfterTimer(Duration parkAfter, ScheduledExecutorService scheduler) {
    this.parkAfterNanos = parkAfter.toNanos();
    // While deliveries are pending, sweep every park-after/20 (5–50 ms), as often as the old
    // fixed-rate sweep did:
    // a parked delivery's inbound message is settled at most that late. Idle: no sweep.
    this.maxWaitNanos =
        TimeUnit.MILLISECONDS.toNanos(Math.max(5, Math.min(50, parkAfter.toMillis() / 20)));
    this.scheduler = scheduler;
  }

  void add(Entry delivery) {
    queue.add(delivery);
    if (!armed.get() && armed.compareAndSet(false, true)) {
      schedule(parkAfterNanos);
    }
  }

  private void schedule(long delayNanos) {
    try {
      scheduler.schedule(this::sweep, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      armed.set(false); // shut down: nothing is parked any more, the store's leases take over
    }
  }

  private void sweep() {
    try {
      long now = System.nanoTime();
      Entry head;
      while ((head = queue.peek()) != null) {
        boolean pending = head.isPending();
        if (pending) {
          long left = head.startNanos() + parkAfterNanos - now;
          if (left > 0) {
            schedule(Math.min(left, maxWaitNanos));
            return;
          }
        }
        queue.poll();
        if (pending) {
          try {
            head.parkAfterElapsed();
          } catch (RuntimeException e) {
            log.error("parking a delivery failed", e);
          }
        }
      }
    } catch (RuntimeException e) {
      log.error("park-after sweep failed", e);
      schedule(maxWaitNanos);
      return;
    }
    armed.set(false);
    // A delivery queued after the loop saw the queue empty, but before armed was cleared, found the
    // timer armed.
    if (!queue.isEmpty() && armed.compareAndSet(false, true)) {
      schedule(0);
    }
  }
}
