package io.activityservice.events.routing;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Suppresses duplicates by CloudEvents identity (source, id) within a time window, so a redelivered
 * inbound message is not fanned out twice.
 *
 * <p>An event is remembered from the moment routing starts: a duplicate that arrives while the
 * first copy is still routing waits for the same outcome. If routing fails, the router {@linkplain
 * #forget forgets} the entry so that the transport's redelivery is routed again (nothing is lost).
 * Memory is bounded by {@code maxEntries}; past it the oldest entries are forgotten early.
 *
 * <p>The entry is the routed event's {@link Claim} itself (the router's settlement), keyed by
 * (source, id) and linked into a FIFO list in the order it was claimed: remembering an event costs
 * one map node, nothing else.
 */
public class DuplicateFilter {

  /**
   * What the filter remembers of one event: its identity, when it expires, and whether its routing
   * has settled. Equal to another claim of the same (source, id).
   */
  abstract static class Claim {
    final String source;
    final String id;
    private final int hash;

    /** Guarded by the filter's lock. */
    private long expiresAt;

    private Claim next;
    private boolean forgotten;

    Claim(String source, String id) {
      this.source = source;
      this.id = id;
      this.hash = 31 * source.hashCode() + id.hashCode();
    }

    /** Whether routing has settled (an entry still routing is never forgotten early). */
    abstract boolean isSettled();

    @Override
    public final boolean equals(Object o) {
      return o instanceof Claim c && c.hash == hash && c.id.equals(id) && c.source.equals(source);
    }

    @Override
    public final int hashCode() {
      return hash;
    }
  }

  private final long windowNanos;
  private final int maxEntries;
  private final ConcurrentHashMap<Claim, Claim> seen = new ConcurrentHashMap<>();

  /**
   * Claims in the order they were made (re-stamped ones move to the end); guarded by {@code this}.
   */
  private Claim head;

  private Claim tail;
  private int size;

  /** A window of zero disables deduplication. */
  public DuplicateFilter(Duration window, int maxEntries) {
    this.windowNanos = window.toNanos();
    this.maxEntries = maxEntries;
  }

  /**
   * Claims an event for routing.
   *
   * @return {@code null} if this is the first copy (the caller routes it), else the claim of the
   *     copy already routed or routing
   */
  Claim claim(Claim claim) {
    if (windowNanos == 0) {
      return null;
    }
    Claim existing = seen.putIfAbsent(claim, claim);
    if (existing != null) {
      return existing;
    }
    long now = System.nanoTime();
    synchronized (this) {
      claim.expiresAt = now + windowNanos;
      append(claim);
      expire(now);
    }
    return null;
  }

  /**
   * Forgets a copy whose routing failed, so that the transport's redelivery is routed again. Must
   * be called before the copy's outcome is given to anyone, so a redelivery triggered by it is new.
   */
  void forget(Claim claim) {
    if (windowNanos == 0) {
      return;
    }
    synchronized (this) {
      if (!claim.forgotten) {
        claim.forgotten = true;
        seen.remove(claim, claim);
      }
    }
  }

  /** Entries currently remembered. */
  public int size() {
    return seen.size();
  }

  private void append(Claim c) {
    c.next = null;
    if (tail == null) {
      head = c;
    } else {
      tail.next = c;
    }
    tail = c;
    size++;
  }

  /**
   * Drops expired entries from the head (and the oldest beyond {@code maxEntries}); under the lock.
   */
  private void expire(long now) {
    Claim c;
    while ((c = head) != null && (c.expiresAt - now < 0 || size > maxEntries)) {
      head = c.next;
      if (head == null) {
        tail = null;
      }
      size--;
      if (c.forgotten) {
        continue; // no longer in the map; a newer claim of the same event may be
      }
      if (c.isSettled()) {
        c.forgotten = true;
        seen.remove(c, c);
      } else {
        // Still routing: keep it; re-stamp so it is checked again later.
        c.expiresAt = now + windowNanos;
        append(c);
        return;
      }
    }
  }
}
