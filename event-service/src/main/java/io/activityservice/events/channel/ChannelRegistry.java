package io.activityservice.events.channel;

import io.activityservice.channel.ChannelAdapter;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.events.problem.InvalidInputException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds the adapter for a channel URI by its scheme and keeps one open outbound channel per URI.
 * Adapters come from configuration (Spring beans); the core never names a transport.
 */
public class ChannelRegistry implements AutoCloseable {

  private final Map<String, ChannelAdapter> bySchema = new HashMap<>();
  private final Map<ChannelUri, OutboundChannel> outbound = new ConcurrentHashMap<>();

  public ChannelRegistry(Collection<? extends ChannelAdapter> adapters) {
    for (ChannelAdapter adapter : adapters) {
      for (String scheme : adapter.schemes()) {
        ChannelAdapter previous = bySchema.putIfAbsent(scheme, adapter);
        if (previous != null) {
          throw new IllegalStateException(
              "two channel adapters claim scheme '"
                  + scheme
                  + "': "
                  + previous.getClass().getName()
                  + " and "
                  + adapter.getClass().getName()
                  + "; disable one of them in configuration");
        }
      }
    }
  }

  /** Schemes some adapter serves, sorted. */
  public TreeSet<String> schemes() {
    return new TreeSet<>(bySchema.keySet());
  }

  /**
   * Parses and validates a channel URI given by a user.
   *
   * @param field the input field to name in the error, e.g. {@code target}
   * @throws InvalidInputException for a malformed URI, an unknown scheme or an invalid address
   */
  public ChannelUri parse(String field, String text) {
    ChannelUri uri;
    try {
      uri = ChannelUri.parse(text);
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException(field, e.getMessage());
    }
    ChannelAdapter adapter = bySchema.get(uri.scheme());
    if (adapter == null) {
      throw new InvalidInputException(
          field,
          "no channel adapter for scheme '"
              + uri.scheme()
              + "'; known schemes: "
              + String.join(", ", schemes()));
    }
    try {
      adapter.validate(uri);
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException(field, e.getMessage());
    }
    return uri;
  }

  /** The adapter for a validated URI. */
  public ChannelAdapter adapter(ChannelUri uri) {
    ChannelAdapter adapter = bySchema.get(uri.scheme());
    if (adapter == null) {
      throw new IllegalArgumentException("no channel adapter for scheme '" + uri.scheme() + "'");
    }
    return adapter;
  }

  /** The shared outbound channel for a validated URI, opened on first use. */
  public OutboundChannel outbound(ChannelUri uri) {
    OutboundChannel channel = outbound.get(uri);
    return channel != null
        ? channel
        : outbound.computeIfAbsent(uri, u -> adapter(u).openOutbound(u));
  }

  /** Closes the outbound channels; adapters are closed by their owner (the container). */
  @Override
  public void close() {
    outbound.values().forEach(OutboundChannel::close);
    outbound.clear();
  }
}
