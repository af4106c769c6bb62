package io.activityservice.channel;

/**
 * A running listener on one channel, returned by {@link ChannelAdapter#openInbound(ChannelUri,
 * InboundSettings, InboundHandler)}. Closing it stops receiving; messages handed out but not yet
 * acknowledged are redelivered by the transport later.
 */
public interface InboundChannel extends AutoCloseable {

  /** The address this channel listens on. */
  ChannelUri uri();

  /** Stops receiving and releases resources. Never throws. */
  @Override
  void close();
}
