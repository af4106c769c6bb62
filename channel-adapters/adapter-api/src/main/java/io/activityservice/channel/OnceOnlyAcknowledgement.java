package io.activityservice.channel;

import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The base of every adapter's {@link Acknowledgement}: it lets only the first {@link #ack()} or
 * {@link #nack(Throwable)} through to {@link #onAck()} / {@link #onNack(Throwable)} and ignores
 * later calls, from any thread. A hook that throws is logged, never thrown to the caller (the
 * router settles messages from completion callbacks that must not fail).
 */
public abstract class OnceOnlyAcknowledgement implements Acknowledgement {

  private static final Logger LOG = LoggerFactory.getLogger(OnceOnlyAcknowledgement.class);

  private final AtomicBoolean settled = new AtomicBoolean();

  @Override
  public final void ack() {
    if (settled.compareAndSet(false, true)) {
      try {
        onAck();
      } catch (RuntimeException e) {
        LOG.warn("settling a message (ack) failed; the transport may deliver it again", e);
      }
    }
  }

  @Override
  public final void nack(Throwable cause) {
    if (settled.compareAndSet(false, true)) {
      try {
        onNack(cause);
      } catch (RuntimeException e) {
        LOG.warn("settling a message (nack) failed; the transport may deliver it again", e);
      }
    }
  }

  /** Whether {@link #ack()} or {@link #nack(Throwable)} has been called. */
  public final boolean isSettled() {
    return settled.get();
  }

  /** Removes the message from the transport; called at most once, on the caller's thread. */
  protected abstract void onAck();

  /**
   * Arranges the redelivery of the message after the backoff; called at most once, on the caller's
   * thread.
   *
   * @param cause the caller's reason, may be {@code null}
   */
  protected abstract void onNack(Throwable cause);
}
