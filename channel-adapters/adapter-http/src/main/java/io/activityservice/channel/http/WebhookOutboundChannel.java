package io.activityservice.channel.http;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.DeliveryFormat;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.OutboundEvent;
import io.activityservice.channel.Redaction;
import io.activityservice.channel.SendOptions;
import io.activityservice.channel.TraceContext;
import io.cloudevents.CloudEvent;
import java.net.URI;
import java.util.concurrent.CompletableFuture;

/**
 * POSTs each event as a structured-mode CloudEvent (the shared {@link CloudEventJson#STRUCTURED}
 * encoding), in the HTTP binding's binary mode ({@link DeliveryFormat#BINARY}: the data as the
 * body, the attributes as {@code ce-*} headers, {@link HttpBinaryMode}), or, for {@link
 * DeliveryFormat#DATA}, its data alone with the data's content type, through the adapter's {@link
 * WebhookClient}, with the event's {@code traceparent} and {@code tracestate} extensions also as
 * W3C Trace Context headers; any 2xx answer means delivered. The event's {@link SendOptions} add
 * request headers (signature, credentials) and set the answer timeout. Partition keys are ignored:
 * a webhook has no competing consumers.
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
    CompletableFuture<WebhookResponse> post;
    try {
      SendOptions options = event.options();
      byte[] body = DeliveryFormat.httpBody(event);
      boolean structured =
          event.format() != DeliveryFormat.DATA && event.format() != DeliveryFormat.BINARY;
      SendOptions withTrace = options.withHeaders(TraceContext.of(event.event()));
      post =
          client.exchange(
              new WebhookRequest(
                  target,
                  structured ? CloudEventJson.CONTENT_TYPE : dataContentType(event.event()),
                  body,
                  event.format() == DeliveryFormat.BINARY
                      ? withTrace.withHeaders(event.encoded(HttpBinaryMode.HEADERS)).headers()
                      : withTrace.headers(),
                  options.timeout()),
              0);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    CompletableFuture<Void> delivered =
        post.thenApply(
            response -> {
              if (response.status() / 100 != 2) {
                throw new WebhookRejectedException(
                    target, response.status(), response.retryAfter());
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
  static String dataContentType(CloudEvent event) {
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
