package io.activityservice.events.internal;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * How the service's writer threads (delivery store, archives) take their next batch off a queue:
 * one way, here.
 */
public final class QueueBatches {

  private QueueBatches() {}

  /**
   * Waits up to {@code pollMillis} for a first element, then adds whatever is queued, up to {@code
   * max} in all; with a positive {@code lingerNanos} it keeps waiting that long after the first
   * element for a fuller batch.
   *
   * @return whether anything was taken
   */
  public static <T> boolean take(
      BlockingQueue<T> queue, List<T> batch, int max, long pollMillis, long lingerNanos)
      throws InterruptedException {
    T first = queue.poll(pollMillis, TimeUnit.MILLISECONDS);
    if (first == null) {
      return false;
    }
    batch.add(first);
    long lingerEnd = System.nanoTime() + lingerNanos;
    queue.drainTo(batch, max - batch.size());
    while (batch.size() < max) {
      long left = lingerEnd - System.nanoTime();
      T next = left > 0 ? queue.poll(left, TimeUnit.NANOSECONDS) : null;
      if (next == null) {
        break;
      }
      batch.add(next);
      queue.drainTo(batch, max - batch.size());
    }
    return true;
  }
}
