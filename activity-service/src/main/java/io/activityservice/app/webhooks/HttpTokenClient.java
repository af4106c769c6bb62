package io.activityservice.app.webhooks;

import io.activityservice.channel.http.WebhookClient;
import io.activityservice.channel.http.WebhookRequest;
import io.activityservice.events.webhook.TokenClient;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * OAuth 2 token requests through the http channel adapter's guarded {@link WebhookClient}: the
 * token endpoint passes the same outbound policy (no internal addresses unless allowed, no
 * redirects, per-host limits) as the webhooks the token is for. Answers above 64 KiB are refused.
 */
final class HttpTokenClient implements TokenClient {

  private static final int MAX_ANSWER_BYTES = 64 * 1024;

  private final WebhookClient client;

  HttpTokenClient(WebhookClient client) {
    this.client = client;
  }

  @Override
  public CompletableFuture<Response> postForm(
      URI url, Map<String, String> form, Map<String, String> headers, Duration timeout) {
    try {
      StringBuilder body = new StringBuilder();
      form.forEach(
          (k, v) ->
              body.append(body.length() == 0 ? "" : "&")
                  .append(URLEncoder.encode(k, StandardCharsets.UTF_8))
                  .append('=')
                  .append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
      return client
          .exchange(
              new WebhookRequest(
                  url,
                  "application/x-www-form-urlencoded",
                  body.toString().getBytes(StandardCharsets.UTF_8),
                  headers,
                  timeout),
              MAX_ANSWER_BYTES)
          .thenApply(r -> new Response(r.status(), r.body()));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
