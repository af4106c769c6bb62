package io.activityservice.events.delivery;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Parks first attempts still running after {@code park-after}. Every delivery has the same timeout, so the
 * order deliveries start in is the order they expire in: a FIFO queue swept from its head is the whole timer
 * (O(1) per delivery, nothing to cancel). Settled deliveries are dropped when they reach the head.
 */
final class ParkAfterTimer {

  private final long parkAfterNanos;
  private final ConcurrentLinkedQueue<RoutedDelivery> queue = new ConcurrentLinkedQueue<>();

  ParkAfterTimer(Duration parkAfter, ScheduledExecutorService scheduler) {
    this.parkAfterNanos = parkAfter.toNanos();
    long period = Math.max(5, Math.min(50, parkAfter.toMillis() / 20));
    scheduler.scheduleWithFixedDelay(this::sweep, period, period, TimeUnit.MILLISECONDS);
  }

  void add(RoutedDelivery delivery) {
    queue.add(delivery);
  }

  private void sweep() {
    long now = System.nanoTime();
    RoutedDelivery head;
    while ((head = queue.peek()) != null) {
      boolean pending = head.isPending();
      if (pending && now - head.startNanos() < parkAfterNanos) {
        return;
      }
      queue.poll();
      if (pending) {
        try {
          head.parkAfterElapsed();
        } catch (RuntimeException e) {
          org.slf4j.LoggerFactory.getLogger(ParkAfterTimer.class).error("parking a delivery failed", e);
        }
      }
    }
  }
}
