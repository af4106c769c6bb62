package io.activityservice.perf.suite;

import io.activityservice.perf.transport.ReceiveHandler;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Bookkeeping of one measured run: the ids sent ({@code <prefix><seq>}), each event's intended send
 * time, how often each id arrived (exactly-once check) and the channel-to-channel latency from the
 * intended send time to receipt (HdrHistogram, microseconds; coordinated-omission-free for paced
 * runs because the intended, not the actual, send time is used).
 */
public final class Tracker implements ReceiveHandler {

  /** Largest latency recorded (longer ones are clamped): 30 minutes, in microseconds. */
  static final long MAX_MICROS = TimeUnit.MINUTES.toMicros(30);

  private final String prefix;
  private final int n;
  private final long[] intended;
  private final AtomicIntegerArray seen;
  private final AtomicLong received = new AtomicLong();
  private final AtomicLong duplicates = new AtomicLong();
  private final AtomicLong foreign = new AtomicLong();
  private final AtomicLong sendFailures = new AtomicLong();
  private final LongAccumulator lastReceive = new LongAccumulator(Math::max, Long.MIN_VALUE);
  private final Recorder latency = new Recorder(MAX_MICROS, 3);

  /** A run of {@code n} events with ids {@code prefix0 … prefix(n-1)}. */
  public Tracker(String prefix, int n) {
    this.prefix = prefix;
    this.n = n;
    this.intended = new long[n];
    this.seen = new AtomicIntegerArray(n);
  }

  /** Number of events in the run. */
  public int size() {
    return n;
  }

  /** The id of event {@code seq}. */
  public String id(int seq) {
    return prefix + seq;
  }

  /**
   * Records the intended send time ({@link System#nanoTime()}) of event {@code seq}; call before
   * sending it.
   */
  public void markSent(int seq, long nanoTime) {
    intended[seq] = nanoTime;
  }

  /** Counts a send whose future failed. */
  public void sendFailed() {
    sendFailures.incrementAndGet();
  }

  @Override
  public void received(String id, long nanoTime) {
    if (!id.startsWith(prefix)) {
      foreign.incrementAndGet();
      return;
    }
    int seq;
    try {
      seq = Integer.parseInt(id, prefix.length(), id.length(), 10);
    } catch (NumberFormatException e) {
      foreign.incrementAndGet();
      return;
    }
    if (seq < 0 || seq >= n) {
      foreign.incrementAndGet();
      return;
    }
    if (seen.getAndIncrement(seq) > 0) {
      duplicates.incrementAndGet();
      return;
    }
    long micros = Math.max(0, (nanoTime - intended[seq]) / 1000);
    latency.recordValue(Math.min(MAX_MICROS, micros));
    lastReceive.accumulate(nanoTime);
    received.incrementAndGet();
  }

  /**
   * Waits until every event arrived, at most {@code timeout}, and gives up earlier when nothing new
   * arrived for {@code stall}.
   *
   * @return whether all events arrived
   */
  public boolean await(Duration timeout, Duration stall) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long last = -1;
    long lastChange = System.nanoTime();
    while (received.get() < n) {
      long now = System.nanoTime();
      if (now > deadline) {
        return false;
      }
      long r = received.get();
      if (r != last) {
        last = r;
        lastChange = now;
      } else if (now - lastChange > stall.toNanos()) {
        return false;
      }
      Thread.sleep(20);
    }
    return true;
  }

  /**
   * Waits until nothing at all (including duplicates and other runs' events) arrived for {@code
   * quiet}, at most {@code max}: lets a backlog drain after an overloaded run.
   */
  public void settle(Duration quiet, Duration max) throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    long last = -1;
    long lastChange = System.nanoTime();
    while (System.nanoTime() < deadline) {
      long all = received.get() + duplicates.get() + foreign.get();
      long now = System.nanoTime();
      if (all != last) {
        last = all;
        lastChange = now;
      } else if (now - lastChange > quiet.toNanos()) {
        return;
      }
      Thread.sleep(50);
    }
  }

  /** Distinct events received. */
  public long received() {
    return received.get();
  }

  /** Copies of already received events. */
  public long duplicates() {
    return duplicates.get();
  }

  /** Events that did not belong to this run (e.g. late warm-up events). */
  public long foreign() {
    return foreign.get();
  }

  /** Sends whose future failed. */
  public long sendFailures() {
    return sendFailures.get();
  }

  /**
   * {@link System#nanoTime()} of the last first-copy receipt, or {@link Long#MIN_VALUE} if none.
   */
  public long lastReceive() {
    return lastReceive.get();
  }

  /**
   * The latencies recorded so far (microseconds); each call returns what arrived since the last
   * one.
   */
  public Histogram latencies() {
    return latency.getIntervalHistogram();
  }
}
