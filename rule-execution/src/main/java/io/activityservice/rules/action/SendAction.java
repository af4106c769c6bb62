package io.activityservice.rules.action;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.Redaction;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.derive.DerivedEventEmitter;
import io.cloudevents.CloudEvent;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * {@code send}: sends a CloudEvent straight to a channel URI ({@code uri}, e.g. {@code
 * jms:queue:alerts}, {@code kafka:alerts}, {@code sqs:alerts}, {@code https://...}), bypassing
 * subscriptions. The event is the {@code event} parameter (forwarded) or one built like {@code
 * publish} builds it; {@code hopcount} guards loops through the service's own inbound channels.
 * http(s) URLs are posted through the http adapter's guarded client (the outbound policy). For a
 * rule set of a scoped author the event's type must be in the author's scope and the URI an http(s)
 * URL (broker channels are infrastructure a scoped author reaches only through {@code publish} and
 * a subscription); otherwise the event is dead-lettered with the reason and the action fails.
 */
public final class SendAction implements ActionHandler {

  private final ChannelRegistry channels;
  private final ActionEvents derived;

  public SendAction(ChannelRegistry channels, DerivedEventEmitter emitter, int maxHops) {
    this.channels = channels;
    this.derived = new ActionEvents(emitter, maxHops);
  }

  /** Whether a channel URI is an http(s) URL: a webhook, posted under the outbound policy. */
  public static boolean isHttp(String uri) {
    if (uri == null) {
      return false;
    }
    String u = uri.trim().toLowerCase(java.util.Locale.ROOT);
    return u.startsWith("http://") || u.startsWith("https://");
  }

  @Override
  public String name() {
    return "send";
  }

  @Override
  public CompletableFuture<ActionResult> execute(Map<String, Object> params, ActionContext ctx) {
    try {
      ChannelUri uri =
          channels.parse(
              "uri",
              Params.required(
                  params, "uri", name(), "Map.of(\"uri\", \"jms:queue:alerts\", \"event\", $e)"));
      CloudEvent event = derived.build(params, ctx, name());
      CompletableFuture<ActionResult> stopped = derived.guard(event, ctx, name());
      if (stopped != null) {
        return stopped;
      }
      if (!ctx.authorScope().isAll() && !isHttp(uri.toString())) {
        return derived.refuse(
            event,
            ctx,
            name(),
            "send to "
                + Redaction.uri(uri)
                + " refused: the author of rule set '"
                + ctx.rule()
                + "' is scoped to "
                + ctx.authorScope()
                + " and may send only to http(s) URLs");
      }
      return channels
          .outbound(uri)
          .send(event)
          .handle(
              (ok, error) ->
                  error == null
                      ? ActionResult.succeeded(1)
                      : ActionResult.failed(
                          1,
                          "sending to "
                              + Redaction.uri(uri)
                              + " failed: "
                              + ActionDispatcher.message(error)));
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(ActionResult.failed(1, ActionDispatcher.message(e)));
    }
  }
}
