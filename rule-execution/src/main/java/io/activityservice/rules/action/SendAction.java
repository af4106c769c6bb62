package io.activityservice.rules.action;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.Redaction;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.derive.DerivedEventEmitter;
import io.cloudevents.CloudEvent;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * {@code send}: sends a CloudEvent straight to a channel URI ({@code uri}, e.g. {@code jms:queue:alerts},
 * {@code kafka:alerts}, {@code sqs:alerts}, {@code https://...}), bypassing subscriptions. The event is
 * the {@code event} parameter (forwarded) or one built like {@code publish} builds it; {@code hopcount}
 * guards loops through the service's own inbound channels.
 */
public final class SendAction implements ActionHandler {

  private final ChannelRegistry channels;
  private final DerivedEvents derived;

  public SendAction(ChannelRegistry channels, DerivedEventEmitter emitter, int maxHops) {
    this.channels = channels;
    this.derived = new DerivedEvents(emitter, maxHops);
  }

  @Override
  public String name() {
    return "send";
  }

  @Override
  public CompletableFuture<ActionResult> execute(Map<String, Object> params, ActionContext ctx) {
    try {
      ChannelUri uri = channels.parse("uri", Params.required(params, "uri", name(),
          "Map.of(\"uri\", \"jms:queue:alerts\", \"event\", $e)"));
      CloudEvent event = derived.build(params, ctx, name());
      CompletableFuture<ActionResult> stopped = derived.guard(event, ctx, name());
      if (stopped != null) {
        return stopped;
      }
      return channels.outbound(uri).send(event).handle((ok, error) -> error == null ? ActionResult.succeeded(1)
          : ActionResult.failed(1, "sending to " + Redaction.uri(uri) + " failed: " + ActionDispatcher.message(error)));
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(ActionResult.failed(1, ActionDispatcher.message(e)));
    }
  }
}
