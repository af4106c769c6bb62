package io.activityservice.channel.batching;

import java.time.Duration;

/**
 * A fixed batch size and linger: a request goes out as soon as {@code size} entries wait, or when
 * the oldest has waited {@code linger}, whichever comes first. Size 1 (or linger 0) sends every
 * entry at once. Ignores what it observes.
 *
 * @param size entries per request, {@code >= 1}
 * @param linger longest wait of an entry for its batch to fill
 */
public record FixedBatchPolicy(int size, Duration linger) implements BatchPolicy {

  public FixedBatchPolicy {
    if (size < 1) {
      throw new IllegalArgumentException("batch size must be at least 1; was " + size);
    }
    if (linger == null || linger.isNegative()) {
      throw new IllegalArgumentException("batch linger must be 0 or positive; was " + linger);
    }
  }

  @Override
  public int maxBatch() {
    return size;
  }

  @Override
  public void arrived(long nowNanos) {}

  @Override
  public void completed(int size, long latencyNanos) {}

  @Override
  public Decision decide(long nowNanos, int queued, long oldestWaitNanos, int requestsInFlight) {
    long lingerNanos = linger.toNanos();
    if (queued >= size || oldestWaitNanos >= lingerNanos) {
      return Decision.send(Math.min(queued, size));
    }
    return Decision.waitFor(lingerNanos - oldestWaitNanos);
  }
}
