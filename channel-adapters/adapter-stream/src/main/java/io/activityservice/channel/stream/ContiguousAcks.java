package io.activityservice.channel.stream;

import java.util.Map;
import java.util.TreeMap;

/**
 * Out-of-order acknowledgements of one partition: offsets are tracked as they are delivered and
 * acknowledged in any order, and a commit is released only for the longest acknowledged prefix, so
 * a committed offset never passes a record that is still being processed. Released commits wait in
 * {@link #takeCommittable()} until the channel commits them, so several prefixes go in one commit.
 * Thread-safe.
 *
 * @param <T> what commits an offset (the container's {@code Acknowledgment} of that record)
 */
final class ContiguousAcks<T> {

  private final TreeMap<Long, Entry<T>> pending = new TreeMap<>();

  /** The committer of the end of the longest acknowledged prefix, not yet taken. */
  private T committable;

  private static final class Entry<T> {
    final T committer;
    boolean acked;

    Entry(T committer) {
      this.committer = committer;
    }
  }

  /**
   * Starts tracking a delivered offset.
   *
   * @return {@code false} if the offset is already tracked (a re-fetch after a rebalance of a
   *     record still being processed): it must not be handed out again
   */
  synchronized boolean add(long offset, T committer) {
    return pending.putIfAbsent(offset, new Entry<>(committer)) == null;
  }

  /**
   * Marks an offset acknowledged.
   *
   * @return the committer of the highest offset of the acknowledged prefix that this call
   *     completed, or {@code null} if nothing new can be committed
   */
  synchronized T ack(long offset) {
    Entry<T> entry = pending.get(offset);
    if (entry == null) {
      return null;
    }
    entry.acked = true;
    T commit = null;
    Map.Entry<Long, Entry<T>> first = pending.firstEntry();
    while (first != null && first.getValue().acked) {
      commit = pending.pollFirstEntry().getValue().committer;
      first = pending.firstEntry();
    }
    if (commit != null) {
      committable = commit;
    }
    return commit;
  }

  /**
   * The committer of the end of the longest acknowledged prefix released since the last call (the
   * highest offset that may be committed), or {@code null} if nothing new was released.
   */
  synchronized T takeCommittable() {
    T c = committable;
    committable = null;
    return c;
  }

  /** Number of tracked offsets not yet released for commit. */
  synchronized int size() {
    return pending.size();
  }
}
