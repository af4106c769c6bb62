package io.activityservice.channel.http;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.DeliveryFormat;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.OutboundEvent;
import io.activityservice.channel.Redaction;
import java.net.URI;
import java.util.concurrent.CompletableFuture;

/**
 * POSTs each event as a structured-mode CloudEvent (the shared {@link CloudEventJson#STRUCTURED}
 * encoding), or, for {@link DeliveryFormat#DATA}, its data alone with the data's content type,
 * through the adapter's {@link WebhookClient}; any 2xx answer means delivered. Partition keys are
 * ignored: a webhook has no competing consumers.
 */
final class WebhookOutboundChannel implements OutboundChannel {

  private final WebhookClient client;
  private final ChannelUri uri;
  private final URI target;
  private final Runnable onClose;
  private volatile boolean closed;

  WebhookOutboundChannel(WebhookClient client, ChannelUri uri, Runnable onClose) {
    this.onClose = onClose;
    this.client = client;
    this.uri = uri;
    this.target = URI.create(uri.address());
  }

  @Override
  public ChannelUri uri() {
    return uri;
  }

  /**
   * Posts the event once the host has a free slot. Cancelling the future of a send that still waits
   * for a slot means it is never sent; cancelling a running one aborts its request.
   */
  @Override
  public CompletableFuture<Void> send(OutboundEvent event) {
    if (closed) {
      return CompletableFuture.failedFuture(
          new IllegalStateException("the webhook channel " + Redaction.uri(uri) + " is closed"));
    }
    CompletableFuture<Integer> post;
    try {
      post =
          client.post(
              event.format() == DeliveryFormat.DATA
                  ? new WebhookRequest(
                      target,
                      dataContentType(event.event()),
                      event.encoded(DeliveryFormat.DATA_BYTES))
                  : new WebhookRequest(
                      target,
                      CloudEventJson.CONTENT_TYPE,
                      event.encoded(CloudEventJson.STRUCTURED)));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    CompletableFuture<Void> delivered =
        post.thenApply(
            status -> {
              if (status / 100 != 2) {
                throw new WebhookRejectedException(target, status);
              }
              return null;
            });
    delivered.whenComplete(
        (ok, error) -> {
          if (delivered.isCancelled()) {
            post.cancel(true); // leaves the host's queue, or aborts the request
          }
        });
    return delivered;
  }

  /** The data's content type; JSON data has none declared, and octets are sent as such. */
  static String dataContentType(io.cloudevents.CloudEvent event) {
    String type = event.getDataContentType();
    return type != null ? type : "application/json";
  }

  @Override
  public void close() {
    // The client is shared by the adapter; nothing else is held per channel.
    closed = true;
    onClose.run();
  }
}
