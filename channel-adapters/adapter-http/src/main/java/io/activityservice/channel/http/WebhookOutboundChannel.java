package io.activityservice.channel.http;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.CloudEventJson;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.OutboundEvent;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * POSTs each event as a structured-mode CloudEvent (the shared {@link CloudEventJson#STRUCTURED}
 * encoding); any 2xx answer means delivered. Partition keys are ignored: a webhook has no competing
 * consumers.
 */
final class WebhookOutboundChannel implements OutboundChannel {

  private final HttpClient client;
  private final PerHostLimiter limiter;
  private final String host;
  private final ChannelUri uri;
  private final URI target;
  private final Duration timeout;
  private final Runnable onClose;
  private volatile boolean closed;

  WebhookOutboundChannel(HttpClient client, PerHostLimiter limiter, ChannelUri uri, Duration timeout,
      Runnable onClose) {
    this.onClose = onClose;
    this.client = client;
    this.limiter = limiter;
    this.uri = uri;
    this.target = URI.create(uri.address());
    this.host = hostAndPort(target);
    this.timeout = timeout;
  }

  @Override
  public ChannelUri uri() {
    return uri;
  }

  /**
   * Posts the event once the host has a free slot (see {@link PerHostLimiter}). Cancelling the
   * future of a send that still waits for a slot means it is never sent.
   */
  @Override
  public CompletableFuture<Void> send(OutboundEvent event) {
    if (closed) {
      return CompletableFuture.failedFuture(new IllegalStateException("a webhook channel to " + host + " is closed"));
    }
    try {
      HttpRequest request = HttpRequest.newBuilder(target)
          .timeout(timeout)
          .header("Content-Type", CloudEventJson.CONTENT_TYPE)
          .POST(HttpRequest.BodyPublishers.ofByteArray(event.encoded(CloudEventJson.STRUCTURED)))
          .build();
      return limiter.submit(host, () -> client.sendAsync(request, HttpResponse.BodyHandlers.discarding())
          .thenApply(response -> {
            int status = response.statusCode();
            if (status / 100 != 2) {
              throw new WebhookRejectedException(target, status);
            }
            return null;
          }));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** The limiter's key: host and port, without user info, path or query (they may hold secrets). */
  static String hostAndPort(URI target) {
    int port = target.getPort() >= 0 ? target.getPort() : "https".equalsIgnoreCase(target.getScheme()) ? 443 : 80;
    return target.getHost().toLowerCase(java.util.Locale.ROOT) + ":" + port;
  }

  @Override
  public void close() {
    // The HttpClient is shared by the adapter; nothing else is held per channel.
    closed = true;
    onClose.run();
  }
}
