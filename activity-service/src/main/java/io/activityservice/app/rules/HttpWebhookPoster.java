package io.activityservice.app.rules;

import io.activityservice.channel.http.OutboundRefusedException;
import io.activityservice.channel.http.WebhookClient;
import io.activityservice.channel.http.WebhookRequest;
import io.activityservice.channel.support.Futures;
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

  HttpWebhookPoster(WebhookClient client) {
    this.client = client;
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
