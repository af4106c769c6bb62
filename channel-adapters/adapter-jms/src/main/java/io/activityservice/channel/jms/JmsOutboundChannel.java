package io.activityservice.channel.jms;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.OutboundEvent;
import jakarta.jms.Destination;
import java.util.concurrent.CompletableFuture;

/**
 * Sends to one queue or topic through the adapter's shared {@link JmsSenderPool}; a partition key
 * becomes the message group ({@code JMSXGroupID}).
 */
final class JmsOutboundChannel implements OutboundChannel {

  private final ChannelUri uri;
  private final Destination destination;
  private final boolean persistent;
  private final JmsSenderPool senders;
  private final Runnable onClose;
  private volatile boolean closed;

  JmsOutboundChannel(
      ChannelUri uri,
      JmsAddress address,
      boolean persistent,
      JmsSenderPool senders,
      Runnable onClose) {
    this.uri = uri;
    this.onClose = onClose;
    this.destination = address.destination();
    this.persistent = persistent;
    this.senders = senders;
  }

  @Override
  public ChannelUri uri() {
    return uri;
  }

  @Override
  public CompletableFuture<Void> send(OutboundEvent event) {
    if (event == null) {
      return CompletableFuture.failedFuture(new NullPointerException("event"));
    }
    if (closed) {
      return CompletableFuture.failedFuture(
          new IllegalStateException("outbound channel " + uri + " is closed"));
    }
    return senders.send(destination, persistent, event, uri.toString());
  }

  /** Stops accepting events; sends already accepted complete on their own (the pool is shared). */
  @Override
  public void close() {
    closed = true;
    onClose.run();
  }
}
