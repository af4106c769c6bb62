package io.activityservice.channel;

import java.util.Set;

/**
 * A transport plugged into the Activity Service: JMS, SQS, Kafka, HTTP webhooks…
 *
 * <p>An adapter owns its connections and opens {@link OutboundChannel}s (the service sends to them)
 * and {@link InboundChannel}s (the service listens on them) for the URI schemes it declares. The
 * core selects an adapter only by {@link #schemes()}; it never switches on the transport. Adapters
 * are registered declaratively (as beans from auto-configuration in the Spring application).
 *
 * <p>Methods may be called concurrently. {@link #close()} closes every channel the adapter opened.
 *
 * <p>Writing an adapter: extend {@link AbstractChannelAdapter} (channel registration, closed state,
 * close), settle inbound messages with an {@link OnceOnlyAcknowledgement} that keeps the {@link
 * Acknowledgement} contract (redelivery after the {@link RedeliverySettings} backoff), wrap plain
 * messages with {@link PlainMessages}, take outbound encodings from {@link
 * OutboundEvent#encoded(WireFormat)} and apply the partition key as {@link OutboundEvent}
 * describes; and pass the shared contract suite ({@code ChannelAdapterContract} in this module's
 * test-jar).
 */
public interface ChannelAdapter extends AutoCloseable {

  /** The lower-case URI schemes this adapter serves, e.g. {@code Set.of("jms")}. */
  Set<String> schemes();

  /**
   * The {@link DeliveryFormat}s this adapter can send besides its default (a subscription asking
   * for another is refused when it is created). The default serves adapters written before formats:
   * structured JSON only.
   */
  default Set<DeliveryFormat> formats() {
    return Set.of(DeliveryFormat.STRUCTURED);
  }

  /**
   * What {@link OutboundChannel#send(OutboundEvent)} to {@code uri} would put on the wire for this
   * event (in its {@link OutboundEvent#format()}), without sending anything. The default serves
   * adapters that send structured JSON bodies.
   */
  default WirePreview preview(ChannelUri uri, OutboundEvent event) {
    return WirePreview.structured(event);
  }

  /**
   * Checks a URI of one of {@link #schemes()} without opening anything, so that bad subscriptions
   * are rejected when they are created.
   *
   * @throws IllegalArgumentException with a message that says what a valid address looks like
   */
  void validate(ChannelUri uri);

  /**
   * Opens (or returns a shared) channel to send events to. Cheap to call repeatedly for the same
   * URI only if the adapter caches; callers should keep the returned channel.
   */
  OutboundChannel openOutbound(ChannelUri uri);

  /**
   * Starts listening on a channel. Each received event is handed to {@code handler}; the adapter
   * acknowledges the underlying message to its transport only after the handler calls {@link
   * Acknowledgement#ack()}, and hands it out again after a backoff on {@link
   * Acknowledgement#nack(Throwable)}. Messages that carry no CloudEvent are wrapped by the {@link
   * PlainMessages} rule when {@code settings} name a default type, else dropped (logged).
   *
   * @throws UnsupportedOperationException if the transport cannot be listened on (e.g. webhooks)
   */
  InboundChannel openInbound(ChannelUri uri, InboundSettings settings, InboundHandler handler);

  /** Releases connections and stops every channel this adapter opened. Never throws. */
  @Override
  void close();
}
