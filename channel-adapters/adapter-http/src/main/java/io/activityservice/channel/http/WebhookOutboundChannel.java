package io.activityservice.channel.http;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.OutboundChannel;
import io.cloudevents.CloudEvent;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** POSTs each event as a structured-mode CloudEvent; any 2xx answer means delivered. */
final class WebhookOutboundChannel implements OutboundChannel {

  private final HttpClient client;
  private final ChannelUri uri;
  private final URI target;
  private final Duration timeout;

  WebhookOutboundChannel(HttpClient client, ChannelUri uri, Duration timeout) {
    this.client = client;
    this.uri = uri;
    this.target = URI.create(uri.address());
    this.timeout = timeout;
  }

  @Override
  public ChannelUri uri() {
    return uri;
  }

  @Override
  public CompletableFuture<Void> send(CloudEvent event) {
    try {
      HttpRequest request = HttpRequest.newBuilder(target)
          .timeout(timeout)
          .header("Content-Type", CloudEventJson.CONTENT_TYPE)
          .POST(HttpRequest.BodyPublishers.ofByteArray(CloudEventJson.encode(event)))
          .build();
      return client.sendAsync(request, HttpResponse.BodyHandlers.discarding())
          .thenApply(response -> {
            int status = response.statusCode();
            if (status / 100 != 2) {
              throw new WebhookRejectedException(target, status);
            }
            return null;
          });
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public void close() {
    // The HttpClient is shared by the adapter; nothing is held per channel.
  }
}
