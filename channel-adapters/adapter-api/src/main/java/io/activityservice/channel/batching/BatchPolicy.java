package io.activityservice.channel.batching;

/**
 * Decides when a queue of entries waiting for a batch request goes out, and how many entries the
 * request takes: the aggregation rule of a sender that batches (SQS SendMessageBatch and
 * DeleteMessageBatch, Kafka offset commits…).
 *
 * <p>The sender tells the policy what it observes ({@link #arrived}, {@link #completed}) and asks
 * it whenever the queue or its request slots change ({@link #decide}), including when a request
 * completes. Time is passed in (nanos of one monotonic clock, e.g. {@link System#nanoTime()}), so a
 * policy is pure logic, testable with made-up times. Not thread-safe: a sender calls it under its
 * own lock.
 *
 * <p>Implementations: {@link FixedBatchPolicy} (a batch size and a linger) and {@link
 * AdaptiveBatchPolicy} (both chosen from the observed arrival rate and request latency).
 */
public interface BatchPolicy {

  /**
   * What to do now with the queue.
   *
   * @param send entries to send now ({@code >= 1}), or {@code 0} to wait
   * @param waitNanos with {@code send == 0}: nanos to wait before deciding again (a new arrival or
   *     a completed request may make the sender decide earlier)
   */
  record Decision(int send, long waitNanos) {

    /** Send {@code n} entries now. */
    public static Decision send(int n) {
      return new Decision(n, 0);
    }

    /** Wait {@code nanos}, then decide again. */
    public static Decision waitFor(long nanos) {
      return new Decision(0, Math.max(1, nanos));
    }
  }

  /** The most entries one request may take (the transport's limit, or a fixed size). */
  int maxBatch();

  /** One entry joined the queue at {@code nowNanos}. */
  void arrived(long nowNanos);

  /**
   * A request of {@code size} entries completed (successfully or not) {@code latencyNanos} after it
   * was sent.
   */
  void completed(int size, long latencyNanos);

  /**
   * Asked when a request slot is free and entries wait.
   *
   * @param nowNanos the current time
   * @param queued entries waiting ({@code >= 1})
   * @param oldestWaitNanos how long the oldest of them has waited
   * @param requestsInFlight the sender's requests sent and not yet completed (a sender whose
   *     transport batches behind its own in-flight requests, like Kafka's producer, passes 0)
   * @return send {@code n} (at most {@code min(queued, maxBatch())}) now, or wait
   */
  Decision decide(long nowNanos, int queued, long oldestWaitNanos, int requestsInFlight);

  /**
   * How many queued entries make {@link #decide} send at once, as of {@code nowNanos}: a sender
   * that waits may use it to wake up early when that many have arrived. By default {@link
   * #maxBatch()}.
   */
  default int sendsAt(long nowNanos) {
    return maxBatch();
  }
}
