package io.activityservice.events.tracing;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.OutboundEvent;
import io.cloudevents.CloudEvent;
import java.util.List;

/** {@link EventTracing#NONE}: no spans; events pass through unchanged. */
final class NoTracing implements EventTracing {

  private static final Destination NOWHERE = new Destination() {};

  @Override
  public Destination inbound(ChannelUri channel) {
    return NOWHERE;
  }

  @Override
  public Destination outbound(ChannelUri target) {
    return NOWHERE;
  }

  @Override
  public Hop received(CloudEvent event, Destination from) {
    return Hop.NONE;
  }

  @Override
  public Hop derived(CloudEvent event, String origin, List<String> causes) {
    return Hop.NONE;
  }

  @Override
  public Hop replayed(CloudEvent event, String replay) {
    return Hop.NONE;
  }

  @Override
  public Hop step(Hop parent, String name) {
    return Hop.NONE;
  }

  @Override
  public CloudEvent startingTrace(Hop hop, CloudEvent event) {
    return event;
  }

  @Override
  public void routed(Hop hop, int matched, List<String> subscriptionIds) {}

  @Override
  public Hop deliver(
      Hop parent, CloudEvent event, Destination to, String subscriptionId, int attempt) {
    return Hop.NONE;
  }

  @Override
  public OutboundEvent continued(Hop delivery, OutboundEvent event) {
    return event;
  }

  @Override
  public String toString() {
    return "EventTracing.NONE";
  }
}
