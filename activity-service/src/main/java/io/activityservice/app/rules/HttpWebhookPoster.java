package io.activityservice.app.rules;

import io.activityservice.channel.http.OutboundRefusedException;
import io.activityservice.channel.http.WebhookClient;
import io.activityservice.channel.http.WebhookRequest;
import io.activityservice.channel.support.Futures;
import io.activityservice.events.webhook.Connections;
import io.activityservice.rules.action.WebhookPoster;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The rules' {@code webhook} action posting through the http channel adapter's guarded {@link
 * WebhookClient}: one outbound policy and one set of per-host limits for webhook subscriptions and
 * rule webhooks. The rule module knows only {@link WebhookPoster}; this adapter between the two is
 * the application's, which registers both modules.
 */
final class HttpWebhookPoster implements WebhookPoster {

  private final WebhookClient client;
  private final Connections connections;

  HttpWebhookPoster(WebhookClient client) {
    this(client, null);
  }

  /**
   * @param connections the connections rule webhooks may name, or {@code null} for none
   */
  HttpWebhookPoster(WebhookClient client, Connections connections) {
    this.client = client;
    this.connections = connections;
  }

  @Override
  public Attempt prepare(
      URI target,
      String contentType,
      byte[] body,
      Map<String, String> headers,
      Duration timeout,
      String connection) {
    if (connection == null) {
      return prepare(target, contentType, body, headers, timeout);
    }
    if (connections == null) {
      throw new IllegalArgumentException("this deployment offers no connections to rule webhooks");
    }
    try {
      connections.requireUsable("connection", connection, target.toString(), true);
    } catch (io.activityservice.events.problem.InvalidInputException e) {
      throw new IllegalArgumentException(e.getMessage());
    }
    new WebhookRequest(target, contentType, body, headers, timeout); // checks the headers now
    return () ->
        connections
            .headers(connection)
            .thenCompose(
                credentials -> {
                  Map<String, String> all = new java.util.LinkedHashMap<>(headers);
                  all.putAll(credentials);
                  return prepare(target, contentType, body, all, timeout).post();
                });
  }

  @Override
  public Attempt prepare(
      URI target, String contentType, byte[] body, Map<String, String> headers, Duration timeout) {
    WebhookRequest request = new WebhookRequest(target, contentType, body, headers, timeout);
    return () -> {
      CompletableFuture<Integer> posted;
      try {
        posted = client.post(request);
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
      CompletableFuture<Integer> result = new CompletableFuture<>();
      posted.whenComplete(
          (status, error) -> {
            if (error == null) {
              result.complete(status);
              return;
            }
            Throwable cause = Futures.unwrap(error);
            result.completeExceptionally(
                cause instanceof OutboundRefusedException refused
                    ? new Refused(refused.getMessage(), refused)
                    : cause);
          });
      return result;
    };
  }
}
