package io.activityservice.events.routing;

import java.time.Duration;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Suppresses duplicates by CloudEvents identity (source, id) within a time window, so a redelivered
 * inbound message is not fanned out twice.
 *
 * <p>An event is remembered from the moment routing starts: a duplicate that arrives while the
 * first copy is still routing waits for the same outcome. If routing fails, the router
 * {@linkplain #forget forgets} the entry so that the transport's redelivery is routed again (nothing is lost). Memory is bounded by
 * {@code maxEntries}; past it the oldest entries are forgotten early.
 */
public class DuplicateFilter {

  private record Key(String source, String id) {
  }

  private record Stamp(Key key, long expiresAt) {
  }

  private final long windowNanos;
  private final int maxEntries;
  private final Map<Key, CompletableFuture<RoutingOutcome>> seen = new ConcurrentHashMap<>();
  private final Queue<Stamp> order = new ConcurrentLinkedQueue<>();
  private final AtomicInteger size = new AtomicInteger();

  /** A window of zero disables deduplication. */
  public DuplicateFilter(Duration window, int maxEntries) {
    this.windowNanos = window.toNanos();
    this.maxEntries = maxEntries;
  }

  /**
   * Claims an event for routing.
   *
   * @param routing the future that will carry this copy's outcome
   * @return {@code null} if this is the first copy (caller routes it), else the outcome of the
   *     copy already routed or routing
   */
  public CompletableFuture<RoutingOutcome> claim(String source, String id, CompletableFuture<RoutingOutcome> routing) {
    if (windowNanos == 0) {
      return null;
    }
    long now = System.nanoTime();
    expire(now);
    Key key = new Key(source, id);
    CompletableFuture<RoutingOutcome> existing = seen.putIfAbsent(key, routing);
    if (existing != null) {
      return existing;
    }
    order.add(new Stamp(key, now + windowNanos));
    size.incrementAndGet();
    return null;
  }

  /**
   * Forgets a copy whose routing failed, so that the transport's redelivery is routed again. Must be
   * called before {@code routing} is completed, so a redelivery triggered by that completion is new.
   */
  public void forget(String source, String id, CompletableFuture<RoutingOutcome> routing) {
    if (windowNanos != 0) {
      seen.remove(new Key(source, id), routing);
    }
  }

  /** Entries currently remembered. */
  public int size() {
    return seen.size();
  }

  private void expire(long now) {
    Stamp head;
    while ((head = order.peek()) != null && (head.expiresAt() - now < 0 || size.get() > maxEntries)) {
      if (order.remove(head)) {
        size.decrementAndGet();
        CompletableFuture<RoutingOutcome> f = seen.get(head.key());
        if (f != null && f.isDone()) {
          seen.remove(head.key(), f);
        } else if (f != null) {
          // Still routing: keep it; re-stamp so it is checked again later.
          order.add(new Stamp(head.key(), now + windowNanos));
          size.incrementAndGet();
          return;
        }
      }
    }
  }
}
