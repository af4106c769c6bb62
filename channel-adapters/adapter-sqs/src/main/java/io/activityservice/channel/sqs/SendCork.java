package io.activityservice.channel.sqs;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds back the partial batches a thread submits to {@link Batcher}s until a unit of work is done,
 * like {@code TCP_CORK}: while a cork that submitted entries to a batcher is open, that batcher
 * sends only full batches (whoever's entries they are); when the last such cork closes, the
 * batcher's policy decides on what waits, with the whole group in view. So the events of one
 * received SQS batch, routed one by one on one thread, leave in one SendMessageBatch per target
 * queue, and the acknowledgements one send answer completes leave in one DeleteMessageBatch,
 * instead of the first entry of each going alone because no request happened to be in flight.
 *
 * <p>Opened by the inbound channel around the routing of a received batch, by the visibility
 * extender around one round, and by {@link Batcher} around completing the entries of one answer. A
 * cork opened inside another on the same thread is a no-op: the outer one releases everything.
 * Thread-confined; not for use across threads.
 */
final class SendCork implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SendCork.class);
  private static final ThreadLocal<SendCork> OPEN = new ThreadLocal<>();

  /** Returned by {@link #open()} inside an open cork: closing it does nothing. */
  private static final SendCork NESTED = new SendCork();

  /** Batchers this cork submitted entries to; each is told when the cork closes. */
  private final List<Batcher<?>> batchers = new ArrayList<>(2);

  private SendCork() {}

  /** Opens a cork on this thread (or joins the one already open). Close it in a finally block. */
  static SendCork open() {
    if (OPEN.get() != null) {
      return NESTED;
    }
    SendCork cork = new SendCork();
    OPEN.set(cork);
    return cork;
  }

  /** The cork open on this thread, or null. */
  static SendCork current() {
    return OPEN.get();
  }

  /**
   * Registers {@code batcher} as holding entries of this cork until it closes.
   *
   * @return true the first time for that batcher (it then counts this cork as open)
   */
  boolean hold(Batcher<?> batcher) {
    for (Batcher<?> b : batchers) {
      if (b == batcher) {
        return false;
      }
    }
    batchers.add(batcher);
    return true;
  }

  /** Releases every held entry: each batcher decides what to send now. Never throws. */
  @Override
  public void close() {
    if (this == NESTED) {
      return;
    }
    OPEN.remove();
    for (int i = 0; i < batchers.size(); i++) {
      try {
        batchers.get(i).release();
      } catch (RuntimeException e) {
        log.warn("releasing held SQS batch entries failed", e);
      }
    }
  }
}
