package io.activityservice.perf.transport;

import io.activityservice.channel.ChannelAdapter;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.cloudevents.CloudEvent;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Producer and consumer drivers on one of the project's own channel adapters used as a plain client
 * ({@code JmsChannelAdapter}, {@code SqsChannelAdapter}): the same code the service uses on its
 * side. Received events are acknowledged at once.
 */
public final class AdapterTransport {

  private final ChannelAdapter adapter;
  private final Map<String, String> inboundProperties;

  /**
   * @param adapter the adapter, owned by the caller
   * @param inboundProperties adapter-specific inbound settings, e.g. the JMS {@code
   *     subscriptionName}
   */
  public AdapterTransport(ChannelAdapter adapter, Map<String, String> inboundProperties) {
    this.adapter = adapter;
    this.inboundProperties = Map.copyOf(inboundProperties);
  }

  /** The adapter. */
  public ChannelAdapter adapter() {
    return adapter;
  }

  /** A sender to {@code uri}. */
  public EventSender sender(String uri) {
    OutboundChannel out = adapter.openOutbound(ChannelUri.parse(uri));
    return new EventSender() {
      @Override
      public CompletableFuture<Void> send(CloudEvent event) {
        return out.send(event);
      }

      @Override
      public void close() {
        out.close();
      }
    };
  }

  /** Starts consuming {@code uri}; returns once the subscription is in place. */
  public Listener listen(String uri, ReceiveHandler handler) {
    InboundChannel in =
        adapter.openInbound(
            ChannelUri.parse(uri),
            new InboundSettings(null, null, inboundProperties),
            (event, ack) -> {
              long now = System.nanoTime();
              ack.ack();
              handler.received(event.getId(), now);
            });
    return in::close;
  }
}
