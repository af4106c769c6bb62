package io.activityservice.perf.fault;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the fault suite sent, what was acknowledged (REST 2xx, the broker's send confirmation, SQS's
 * SendMessage answer) and what arrived at each target, per event id; and the detector's and rule
 * set's outputs per pair. Written by the senders' and receivers' threads, read by the phase that
 * computes its row.
 */
public final class Ledger {

  /**
   * The subscription targets every streamed event must reach: a JMS queue, an SQS queue, a webhook,
   * and a flaky webhook that refuses the first attempt of every tenth pair's events (so deliveries
   * are parked in the store, and the database and leases are in play while the faults run).
   */
  public static final List<String> TARGETS = List.of("jms", "sqs", "webhook", "flaky");

  /** One streamed event. */
  public static final class Entry {
    final String phase;
    final String channel;
    final String pairId;
    final boolean open;
    final boolean marked;
    final long sentNanos;

    /** 0 pending, 1 acknowledged, -1 refused or failed. */
    volatile int ack;

    final AtomicIntegerArray counts = new AtomicIntegerArray(TARGETS.size());
    final AtomicLongArray lastArrival = new AtomicLongArray(TARGETS.size());

    Entry(
        String phase, String channel, String pairId, boolean open, boolean marked, long sentNanos) {
      this.phase = phase;
      this.channel = channel;
      this.pairId = pairId;
      this.open = open;
      this.marked = marked;
      this.sentNanos = sentNanos;
    }
  }

  final Map<String, Entry> events = new ConcurrentHashMap<>();
  final Map<String, AtomicInteger> pairs = new ConcurrentHashMap<>();
  final Map<String, AtomicInteger> ruled = new ConcurrentHashMap<>();

  /** Arrivals whose id the suite never sent (left over from another run, or malformed). */
  final LongAdder foreign = new LongAdder();

  /** Send failures by channel and reason (first words), for the report. */
  final Map<String, LongAdder> failures = new ConcurrentHashMap<>();

  /** Records an event about to be sent. */
  public void sent(
      String id, String phase, String channel, String pairId, boolean open, boolean marked) {
    events.put(id, new Entry(phase, channel, pairId, open, marked, System.nanoTime()));
  }

  /** Records the transport's answer to a send. */
  public void acknowledged(String id, boolean ok, String failure) {
    Entry e = events.get(id);
    if (e != null) {
      e.ack = ok ? 1 : -1;
      if (!ok) {
        String reason =
            failure == null ? "?" : failure.length() > 80 ? failure.substring(0, 80) : failure;
        failures.computeIfAbsent(e.channel + ": " + reason, k -> new LongAdder()).increment();
      }
    }
  }

  /** Records an event arriving at target {@code target} (an index into {@link #TARGETS}). */
  public void delivered(int target, String id) {
    Entry e = events.get(id);
    if (e == null) {
      foreign.increment();
      return;
    }
    e.counts.incrementAndGet(target);
    e.lastArrival.set(target, System.nanoTime());
  }

  /** Records a detector output (a found pair). */
  public void pairFound(String pairId) {
    pairs.computeIfAbsent(pairId, k -> new AtomicInteger()).incrementAndGet();
  }

  /** Records a rule output (a marked close event seen by the rule set). */
  public void ruleFired(String pairId) {
    ruled.computeIfAbsent(pairId, k -> new AtomicInteger()).incrementAndGet();
  }

  /**
   * Lines "id channel ack counts-per-target" of the events of {@code phase} that arrived more than
   * once or never.
   */
  public List<String> anomalies(String phase) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, Entry> x : events.entrySet()) {
      Entry e = x.getValue();
      if (!e.phase.equals(phase)) {
        continue;
      }
      boolean odd = false;
      for (int t = 0; t < TARGETS.size(); t++) {
        odd |= e.counts.get(t) > 1 || (e.ack == 1 && e.counts.get(t) == 0);
      }
      if (odd) {
        out.add(x.getKey() + " " + e.channel + " ack=" + e.ack + " " + e.counts);
      }
    }
    java.util.Collections.sort(out);
    return out;
  }

  /** The entries of one phase. */
  List<Entry> of(String phase) {
    List<Entry> out = new ArrayList<>();
    for (Entry e : events.values()) {
      if (e.phase.equals(phase)) {
        out.add(e);
      }
    }
    return out;
  }

  /**
   * Seconds from send to arrival at the last of the {@code targets} (indexes into {@link #TARGETS})
   * for the events of {@code phase} sent in [{@code fromNanos}, {@code toNanos}), sorted; an event
   * that has not reached them all counts as {@code Double.POSITIVE_INFINITY} (so a backlog shows as
   * a high percentile, not as a gap).
   */
  public double[] latencies(String phase, long fromNanos, long toNanos, int... targets) {
    List<Double> out = new ArrayList<>();
    for (Entry e : of(phase)) {
      if (e.sentNanos < fromNanos || e.sentNanos >= toNanos || e.ack != 1) {
        continue;
      }
      long last = 0;
      for (int t : targets) {
        long at = e.counts.get(t) > 0 ? e.lastArrival.get(t) : 0;
        last = at == 0 ? -1 : last < 0 ? -1 : Math.max(last, at);
      }
      out.add(last < 0 ? Double.POSITIVE_INFINITY : (last - e.sentNanos) / 1e9);
    }
    return out.stream().mapToDouble(Double::doubleValue).sorted().toArray();
  }

  /** A phase's figures; {@code faultEndNanos} (0: none) is where recovery is measured from. */
  public Counts count(String phase, long faultEndNanos) {
    Counts c = new Counts();
    Map<String, int[]> pairAcks = new java.util.HashMap<>();
    for (Entry e : of(phase)) {
      c.sent++;
      c.sentByChannel.merge(e.channel, 1, Integer::sum);
      boolean acked = e.ack == 1;
      if (acked) {
        c.acked++;
      } else if (e.ack == -1) {
        c.refused++;
      }
      long last = 0;
      boolean everywhere = true;
      for (int t = 0; t < TARGETS.size(); t++) {
        int n = e.counts.get(t);
        if (n > 0) {
          c.delivered[t]++;
          if (!acked) {
            c.deliveredUnacked[t]++;
          }
          last = Math.max(last, e.lastArrival.get(t));
        } else {
          everywhere = false;
          if (acked) {
            c.lost[t]++;
          }
        }
        if (n > 1) {
          c.duplicates[t] += n - 1;
          c.duplicatesByChannel.merge(e.channel, n - 1, Integer::sum);
        }
      }
      if (acked && !everywhere) {
        c.lostEvents++;
      }
      if (acked && faultEndNanos > 0 && e.sentNanos < faultEndNanos && everywhere) {
        c.drainedAtNanos = Math.max(c.drainedAtNanos, last);
      }
      if (acked) {
        int[] oc = pairAcks.computeIfAbsent(e.pairId, k -> new int[3]);
        oc[e.open ? 0 : 1] = 1;
        if (!e.open && e.marked) {
          oc[2] = 1;
        }
      }
    }
    for (Map.Entry<String, int[]> p : pairAcks.entrySet()) {
      int[] oc = p.getValue();
      if (oc[0] == 1 && oc[1] == 1) {
        c.pairsExpected++;
        AtomicInteger found = pairs.get(p.getKey());
        if (found == null) {
          c.pairsMissing++;
        } else {
          c.pairsFound++;
          c.pairsDuplicated += Math.max(0, found.get() - 1);
        }
      }
      if (oc[2] == 1) {
        c.rulesExpected++;
        AtomicInteger found = ruled.get(p.getKey());
        if (found == null) {
          c.rulesMissing++;
        } else {
          c.rulesFound++;
        }
      }
    }
    return c;
  }

  /** Figures of one phase. */
  public static final class Counts {
    public int sent;
    public int acked;
    public int refused;
    public final Map<String, Integer> sentByChannel = new java.util.TreeMap<>();
    public final int[] delivered = new int[TARGETS.size()];
    public final int[] deliveredUnacked = new int[TARGETS.size()];
    public final int[] duplicates = new int[TARGETS.size()];
    public final int[] lost = new int[TARGETS.size()];

    /** Duplicates (all targets) by the inbound channel the event came in on. */
    public final Map<String, Integer> duplicatesByChannel = new java.util.TreeMap<>();

    public int lostEvents;
    public long drainedAtNanos;
    public int pairsExpected;
    public int pairsFound;
    public int pairsMissing;
    public int pairsDuplicated;
    public int rulesExpected;
    public int rulesFound;
    public int rulesMissing;

    public int lostPairs() {
      int n = 0;
      for (int l : lost) {
        n += l;
      }
      return n;
    }

    public int duplicatesTotal() {
      int n = 0;
      for (int d : duplicates) {
        n += d;
      }
      return n;
    }
  }
}
