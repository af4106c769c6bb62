package io.activityservice.channel;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The base class of channel adapters: it owns the plumbing every adapter repeats, in the manner of
 * Spring Cloud Stream's {@code AbstractMessageChannelBinder}: the set of open channels, the closed
 * flag, and {@link #close()}, which closes every open channel and then the adapter's own resources.
 *
 * <p>An adapter opens each channel through {@link #register(ChannelOpener)}, which fails once the
 * adapter is closed and hands the channel the callback it runs when it is closed (so the set holds
 * open channels only); it frees its own resources (threads, clients, connections) in {@link
 * #doClose()}. Thread-safe.
 */
public abstract class AbstractChannelAdapter implements ChannelAdapter {

  private static final Logger LOG = LoggerFactory.getLogger(AbstractChannelAdapter.class);

  private final String name;
  private final Set<AutoCloseable> channels = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean closed = new AtomicBoolean();

  /**
   * Opens one channel, given the callback the channel must run when it is closed (it removes the
   * channel from the adapter's set).
   *
   * @param <C> the channel type
   */
  @FunctionalInterface
  protected interface ChannelOpener<C extends AutoCloseable> {
    /** Creates the channel; {@code onClose} is to be run by its {@code close()}. */
    C open(Runnable onClose);
  }

  /**
   * @param name the adapter's name in messages, e.g. {@code jms}
   */
  protected AbstractChannelAdapter(String name) {
    this.name = name;
  }

  /**
   * Throws if the adapter is closed; call it before opening anything.
   *
   * @throws IllegalStateException saying which adapter is closed
   */
  protected final void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException("the " + name + " channel adapter is closed");
    }
  }

  /** Whether {@link #close()} has been called. */
  public final boolean isClosed() {
    return closed.get();
  }

  /**
   * Opens a channel and keeps it until it is closed, so that {@link #close()} closes it too.
   *
   * @return the channel {@code opener} created
   * @throws IllegalStateException if the adapter is closed (before or while the channel opened; a
   *     channel opened during {@link #close()} is closed again)
   */
  protected final <C extends AutoCloseable> C register(ChannelOpener<C> opener) {
    checkOpen();
    AtomicReference<C> self = new AtomicReference<>();
    C channel =
        opener.open(
            () -> {
              C opened = self.get();
              if (opened != null) {
                channels.remove(opened);
              }
            });
    self.set(channel);
    channels.add(channel);
    if (closed.get()) { // close() ran meanwhile and may not have seen this channel
      closeQuietly(channel);
      throw new IllegalStateException("the " + name + " channel adapter is closed");
    }
    return channel;
  }

  /**
   * Closes every open channel ({@link #closeChannels}), then the adapter's own resources ({@link
   * #doClose()}). Only the first call does anything. Never throws.
   */
  @Override
  public final void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      closeChannels(new ArrayList<>(channels));
    } catch (RuntimeException e) {
      LOG.warn("closing the channels of the {} adapter failed", name, e);
    }
    try {
      doClose();
    } catch (RuntimeException e) {
      LOG.warn("closing the {} adapter failed", name, e);
    }
  }

  /**
   * Closes the channels that were open when {@link #close()} was called: by default inbound
   * channels first (no new work comes in), then the others, one by one. Adapters that can close
   * channels in parallel override it.
   *
   * @param open the open channels, in no particular order
   */
  protected void closeChannels(List<AutoCloseable> open) {
    open.stream()
        .filter(c -> c instanceof InboundChannel)
        .forEach(AbstractChannelAdapter::closeQuietly);
    open.stream()
        .filter(c -> !(c instanceof InboundChannel))
        .forEach(AbstractChannelAdapter::closeQuietly);
  }

  /** Releases the adapter's own resources after its channels are closed. Must not throw. */
  protected void doClose() {}

  /** Closes a channel or resource, logging instead of throwing. */
  protected static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      LOG.warn("closing {} failed: {}", closeable, e.toString());
    }
  }
}
