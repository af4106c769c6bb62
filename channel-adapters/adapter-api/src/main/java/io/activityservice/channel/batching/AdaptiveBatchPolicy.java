package io.activityservice.channel.batching;

import java.time.Duration;

/**
 * Batch size and linger chosen from the observed load, after the feedback-controlled aggregation of
 * Swientek et al. (adaptive middleware for near-time bulk data processing): single events while the
 * transport keeps up, full batches once it does not.
 *
 * <p><b>The rule.</b> With arrival rate {@code λ} (events/s, an exponentially decayed count over
 * {@code rateWindow}), request latency {@code S} (a moving average of the latencies reported by
 * {@link #completed}) and {@code slots} concurrent requests, the sender needs {@code λ·S} entries
 * in flight to keep up (Little's law). Spread over the slots at a target utilisation {@code u}, one
 * request should carry
 *
 * <pre>  n* = clamp(ceil(λ·S / (slots·u)), 1, maxBatch)</pre>
 *
 * entries, and waiting for the {@code n* − 1} others costs {@code (n* − 1)/λ}, so the linger is
 *
 * <pre>  L* = min(maxLinger, (n* − 1)/λ)</pre>
 *
 * A request goes out when {@code n*} entries wait (taking up to {@code maxBatch}, so a backlog
 * leaves in full batches) or when the oldest entry has waited {@code L*}.
 *
 * <p><b>Batching behind a request on the wire.</b> With {@code n* = 1} a partial batch goes at once
 * only while no request is in flight; otherwise its entries wait until one completes (the sender
 * asks again then) or the oldest has waited {@code maxLinger}, whichever comes first ("natural"
 * batching, as in Nagle's algorithm and the LMAX Disruptor's smart batching). Entries often arrive
 * in clumps — the ten events of one SQS receive are routed within microseconds — and the rate
 * estimate cannot see a clump; without this rule each of them would take a request slot of its own.
 * Every request costs the broker work of its own (LocalStack's SQS spent ~20 % more CPU per relayed
 * event when clumps left as single entries), so entries that can ride together should.
 *
 * <p>Consequences: at low load {@code n* = 1}, {@code L* = 0} and no request is in flight when an
 * entry arrives, so every entry is sent at once, exactly like batch size 1; under overload the
 * request slots are all busy, the queue grows, and each freed slot takes a full batch, like the
 * largest fixed size. In between, batches grow with the load just enough to keep the slots below
 * the target utilisation, and no entry waits longer than one request's latency or {@code
 * maxLinger}. Before the first completed request the latency is unknown and the policy sends what
 * no request is carrying yet.
 *
 * <p>Pure logic: time is passed in. Not thread-safe (a sender calls it under its lock).
 */
public final class AdaptiveBatchPolicy implements BatchPolicy {

  /** Default target utilisation of the request slots. */
  public static final double DEFAULT_UTILISATION = 0.5;

  /** Default time constant of the arrival-rate estimate. */
  public static final Duration DEFAULT_RATE_WINDOW = Duration.ofMillis(100);

  /** Weight of the newest latency in the moving average. */
  private static final double LATENCY_WEIGHT = 0.2;

  private final int maxBatch;
  private final long maxLingerNanos;
  private final int slots;
  private final double utilisation;
  private final double windowNanos;

  private double weight;
  private long lastArrival;
  private boolean anyArrival;
  private double latencyNanos = -1;

  /**
   * A policy with the default utilisation (0.5) and rate window (100 ms).
   *
   * @param maxBatch most entries per request (the transport's limit), {@code >= 1}
   * @param maxLinger longest wait of an entry for its batch to fill
   * @param slots requests the sender runs at once, {@code >= 1}
   */
  public AdaptiveBatchPolicy(int maxBatch, Duration maxLinger, int slots) {
    this(maxBatch, maxLinger, slots, DEFAULT_UTILISATION, DEFAULT_RATE_WINDOW);
  }

  /**
   * @param maxBatch most entries per request, {@code >= 1}
   * @param maxLinger longest wait of an entry for its batch to fill, {@code >= 0}
   * @param slots requests the sender runs at once, {@code >= 1}
   * @param utilisation target share of busy slots, in {@code (0, 1]}
   * @param rateWindow time constant of the arrival-rate estimate, positive
   */
  public AdaptiveBatchPolicy(
      int maxBatch, Duration maxLinger, int slots, double utilisation, Duration rateWindow) {
    if (maxBatch < 1 || slots < 1) {
      throw new IllegalArgumentException(
          "maxBatch and slots must be at least 1; were " + maxBatch + ", " + slots);
    }
    if (maxLinger == null || maxLinger.isNegative()) {
      throw new IllegalArgumentException("maxLinger must be 0 or positive; was " + maxLinger);
    }
    if (!(utilisation > 0 && utilisation <= 1)) {
      throw new IllegalArgumentException("utilisation must be in (0, 1]; was " + utilisation);
    }
    if (rateWindow == null || rateWindow.isNegative() || rateWindow.isZero()) {
      throw new IllegalArgumentException("rateWindow must be positive; was " + rateWindow);
    }
    this.maxBatch = maxBatch;
    this.maxLingerNanos = maxLinger.toNanos();
    this.slots = slots;
    this.utilisation = utilisation;
    this.windowNanos = rateWindow.toNanos();
  }

  @Override
  public int maxBatch() {
    return maxBatch;
  }

  @Override
  public void arrived(long nowNanos) {
    weight = decayedWeight(nowNanos) + 1;
    lastArrival = nowNanos;
    anyArrival = true;
  }

  @Override
  public void completed(int size, long latencyNanos) {
    if (latencyNanos < 0) {
      return;
    }
    this.latencyNanos =
        this.latencyNanos < 0
            ? latencyNanos
            : this.latencyNanos + LATENCY_WEIGHT * (latencyNanos - this.latencyNanos);
  }

  @Override
  public Decision decide(long nowNanos, int queued, long oldestWaitNanos, int requestsInFlight) {
    if (queued >= maxBatch) {
      return Decision.send(maxBatch);
    }
    double rate = ratePerNano(nowNanos);
    int target = targetSize(rate);
    if (target == 1 && requestsInFlight > 0) {
      // Ride behind the request on the wire: the sender asks again when it completes.
      return oldestWaitNanos >= maxLingerNanos
          ? Decision.send(queued)
          : Decision.waitFor(maxLingerNanos - oldestWaitNanos);
    }
    if (queued >= target) {
      return Decision.send(Math.min(queued, maxBatch));
    }
    long linger = linger(target, rate);
    if (oldestWaitNanos >= linger) {
      return Decision.send(Math.min(queued, maxBatch));
    }
    return Decision.waitFor(linger - oldestWaitNanos);
  }

  /** The batch size {@code n*} the rule gives at {@code nowNanos}. */
  public int targetSize(long nowNanos) {
    return targetSize(ratePerNano(nowNanos));
  }

  /** {@code n*}: that many queued entries go at once. */
  @Override
  public int sendsAt(long nowNanos) {
    return targetSize(nowNanos);
  }

  /** The linger {@code L*} (nanos) the rule gives at {@code nowNanos}. */
  public long lingerNanos(long nowNanos) {
    double rate = ratePerNano(nowNanos);
    return linger(targetSize(rate), rate);
  }

  /** The estimated arrival rate at {@code nowNanos}, events per second. */
  public double arrivalRate(long nowNanos) {
    return ratePerNano(nowNanos) * 1e9;
  }

  /**
   * The moving average of request latencies in nanos, or {@code -1} before the first completion.
   */
  public double latencyNanos() {
    return latencyNanos;
  }

  private int targetSize(double ratePerNano) {
    if (latencyNanos < 0 || ratePerNano <= 0) {
      return 1;
    }
    double needed = Math.ceil(ratePerNano * latencyNanos / (slots * utilisation));
    return (int) Math.max(1, Math.min(maxBatch, needed));
  }

  private long linger(int target, double ratePerNano) {
    if (target <= 1 || ratePerNano <= 0) {
      return 0;
    }
    return (long) Math.min(maxLingerNanos, (target - 1) / ratePerNano);
  }

  private double ratePerNano(long nowNanos) {
    return anyArrival ? decayedWeight(nowNanos) / windowNanos : 0;
  }

  private double decayedWeight(long nowNanos) {
    if (!anyArrival) {
      return 0;
    }
    long elapsed = Math.max(0, nowNanos - lastArrival);
    return weight * Math.exp(-elapsed / windowNanos);
  }

  @Override
  public String toString() {
    return "AdaptiveBatchPolicy[maxBatch="
        + maxBatch
        + ", maxLinger="
        + Duration.ofNanos(maxLingerNanos)
        + ", slots="
        + slots
        + ", utilisation="
        + utilisation
        + "]";
  }
}
