package io.activityservice.channel.batching;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.PriorityQueue;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The policies in a simulated sender (simulated time, no threads): {@code slots} concurrent batch
 * requests, each taking {@code base + perEntry × size}, evenly spaced arrivals, a bounded queue. It
 * checks the two promises of the adaptive policy against fixed sizes 1, 2, 5 and 10 with a 5 ms
 * linger: at low load its median latency is that of size 1; under overload its throughput is that
 * of the best fixed size.
 */
class BatchingSimulationTest {

  private static final long MS = 1_000_000L;
  private static final int SLOTS = 8;
  private static final long BASE = 10 * MS;
  private static final long PER_ENTRY = MS / 2;
  private static final Duration LINGER = Duration.ofMillis(5);

  /** What a simulated run measured. */
  record Result(double throughput, double p50Millis, long sent, long requests) {}

  /** Runs {@code seconds} of arrivals every {@code gapNanos} through a sender with the policy. */
  static Result simulate(BatchPolicy policy, long gapNanos, double seconds) {
    return simulate(policy, gapNanos, 1, seconds);
  }

  /**
   * Runs {@code seconds} of arrivals, {@code clump} at once every {@code gapNanos} (as the events
   * of one SQS receive reach the outbound sender), through a sender with the policy.
   */
  static Result simulate(BatchPolicy policy, long gapNanos, int clump, double seconds) {
    long end = (long) (seconds * 1e9);
    Sender sender = new Sender(policy, ((int) (end / gapNanos) + 1) * clump);
    long nextArrival = 0;
    while (true) {
      long nextCompletion =
          sender.completions.isEmpty() ? Long.MAX_VALUE : sender.completions.peek()[0];
      long arrival = nextArrival < end ? nextArrival : Long.MAX_VALUE;
      long now = Math.min(arrival, Math.min(nextCompletion, sender.timer));
      if (now == Long.MAX_VALUE) {
        break;
      }
      if (now == nextCompletion) {
        sender.complete(now);
      } else if (now == arrival) {
        // Each entry of a clump arrives on its own and the sender decides after each, as
        // Batcher.submit does.
        for (int k = 0; k < clump; k++) {
          sender.arrive(now);
          if (k < clump - 1) {
            sender.decide(now);
          }
        }
        nextArrival += gapNanos;
      } else {
        sender.timer = Long.MAX_VALUE;
      }
      sender.decide(now);
    }
    long[] sorted = Arrays.copyOf(sender.latencies, sender.done);
    Arrays.sort(sorted);
    double p50 = sorted.length == 0 ? Double.NaN : sorted[sorted.length / 2] / 1e6;
    return new Result(
        sender.done / (sender.lastCompletion / 1e9), p50, sender.done, sender.requests);
  }

  /**
   * The simulated sender: a bounded queue, {@code SLOTS} request slots, requests of {@code BASE +
   * PER_ENTRY × n}.
   */
  private static final class Sender {
    final BatchPolicy policy;
    final ArrayDeque<Long> queue = new ArrayDeque<>();
    final PriorityQueue<long[]> completions =
        new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
    final long[] latencies;
    int done;
    long requests;
    long timer = Long.MAX_VALUE;
    long lastCompletion;

    Sender(BatchPolicy policy, int capacity) {
      this.policy = policy;
      this.latencies = new long[capacity];
    }

    void arrive(long now) {
      if (queue.size() < 10_000) {
        queue.addLast(now);
        policy.arrived(now);
      }
    }

    void complete(long now) {
      long[] c = completions.poll();
      policy.completed((int) c[1], c[2]);
      for (int i = 3; i < c.length; i++) {
        latencies[done++] = now - c[i];
      }
      lastCompletion = now;
    }

    void decide(long now) {
      while (completions.size() < SLOTS && !queue.isEmpty()) {
        BatchPolicy.Decision d =
            policy.decide(now, queue.size(), now - queue.peekFirst(), completions.size());
        if (d.send() == 0) {
          timer = Math.min(timer, now + d.waitNanos());
          return;
        }
        int n = Math.min(d.send(), queue.size());
        long latency = BASE + PER_ENTRY * n;
        long[] c = new long[3 + n];
        c[0] = now + latency;
        c[1] = n;
        c[2] = latency;
        for (int i = 0; i < n; i++) {
          c[3 + i] = queue.pollFirst();
        }
        completions.add(c);
        requests++;
      }
    }
  }

  private static Result fixed(int size, long gap) {
    return simulate(new FixedBatchPolicy(size, LINGER), gap, 5);
  }

  private static Result adaptive(long gap) {
    return simulate(new AdaptiveBatchPolicy(10, LINGER, SLOTS), gap, 5);
  }

  @Test
  void atLowLoadTheAdaptiveMedianIsThatOfSizeOne() {
    long gap = 20 * MS; // 50 events/s
    Result one = fixed(1, gap);
    Result ten = fixed(10, gap);
    Result adaptive = adaptive(gap);
    assertThat(adaptive.p50Millis()).isLessThanOrEqualTo(one.p50Millis() * 1.1);
    assertThat(ten.p50Millis())
        .as("a fixed batch waits for its linger")
        .isGreaterThan(one.p50Millis() + 4);
  }

  @Test
  void underOverloadTheAdaptiveThroughputIsThatOfTheBestFixedSize() {
    long gap = 100_000; // 10,000 events/s, about twice what size 10 carries
    double best = 0;
    for (int size : new int[] {1, 2, 5, 10}) {
      best = Math.max(best, fixed(size, gap).throughput());
    }
    Result adaptive = adaptive(gap);
    assertThat(adaptive.throughput()).isGreaterThanOrEqualTo(0.9 * best);
    assertThat(fixed(1, gap).throughput()).as("size 1 cannot keep up").isLessThan(0.5 * best);
  }

  @Test
  void atMediumLoadTheAdaptiveSenderKeepsUpWhereSizeOneCannot() {
    long gap = MS; // 1,000 events/s: above what single-entry requests carry (8 / 10.5 ms = 762/s)
    Result one = fixed(1, gap);
    Result adaptive = adaptive(gap);
    assertThat(adaptive.throughput()).isGreaterThan(950);
    assertThat(one.throughput()).isLessThan(800);
    assertThat(adaptive.p50Millis()).isLessThan(fixed(10, gap).p50Millis());
  }

  @Test
  void eventsArrivingInClumpsRideTogetherInsteadOfTakingASlotEach() {
    long gap = 100 * MS; // clumps of 10 (one SQS receive) 10 times a second: 100 events/s, low load
    Result adaptive = simulate(new AdaptiveBatchPolicy(10, LINGER, SLOTS), gap, 10, 5);
    Result one = simulate(new FixedBatchPolicy(1, LINGER), gap, 10, 5);
    Result ten = simulate(new FixedBatchPolicy(10, LINGER), gap, 10, 5);
    assertThat(one.requests()).as("size 1: a request per event").isEqualTo(one.sent());
    assertThat(adaptive.requests())
        .as("the first of a clump goes alone, the rest behind it")
        .isLessThanOrEqualTo(2 * adaptive.sent() / 10);
    assertThat(adaptive.p50Millis())
        .as("no slower than waiting for a full batch")
        .isLessThanOrEqualTo(ten.p50Millis() + BASE / 1e6);
  }

  /** Keeps the simulation itself honest: a fixed size carries what its request time allows. */
  @Test
  void theSimulatedSenderIsBoundByItsSlots() {
    Supplier<Double> capacityOfTen = () -> SLOTS * 10 / ((BASE + PER_ENTRY * 10) / 1e9);
    Result ten = fixed(10, 50_000);
    assertThat(ten.throughput()).isBetween(0.9 * capacityOfTen.get(), 1.05 * capacityOfTen.get());
  }
}
