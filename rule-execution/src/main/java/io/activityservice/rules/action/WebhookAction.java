package io.activityservice.rules.action;

import io.activityservice.events.json.Json;
import io.activityservice.rules.Event;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@code webhook}: HTTP POST to {@code url}. The body is the {@code event} parameter as a structured
 * CloudEvent ({@code application/cloudevents+json}), or {@code body} (JSON, or a string as given
 * with {@code contentType}), or else the triggering event. Optional {@code headers} (a map),
 * {@code timeout} (ms or ISO-8601) and {@code maxAttempts}. A 2xx answer succeeds; 5xx, 408, 429
 * and I/O errors are retried with exponential backoff; other 4xx fail at once. Fully asynchronous.
 */
public final class WebhookAction implements ActionHandler {

  private final HttpClient client;
  private final Duration timeout;
  private final int maxAttempts;
  private final Duration initialBackoff;
  private final Duration maxBackoff;

  public WebhookAction(HttpClient client, Duration timeout, int maxAttempts, Duration initialBackoff,
                       Duration maxBackoff) {
    this.client = client;
    this.timeout = timeout;
    this.maxAttempts = maxAttempts;
    this.initialBackoff = initialBackoff;
    this.maxBackoff = maxBackoff;
  }

  @Override
  public String name() {
    return "webhook";
  }

  @Override
  public CompletableFuture<ActionResult> execute(Map<String, Object> params, ActionContext ctx) {
    HttpRequest request;
    int attempts;
    try {
      request = request(params, ctx);
      attempts = Math.max(1, Params.integer(params, "maxAttempts", maxAttempts));
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(ActionResult.failed(0, ActionDispatcher.message(e)));
    }
    CompletableFuture<ActionResult> result = new CompletableFuture<>();
    attempt(request, 1, attempts, result);
    return result;
  }

  private HttpRequest request(Map<String, Object> params, ActionContext ctx) {
    String url = Params.required(params, "url", name(), "Map.of(\"url\", \"https://example.com/hook\", \"event\", $e)");
    URI uri;
    try {
      uri = URI.create(url);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("url '" + url + "' is not a valid URI: " + e.getMessage());
    }
    if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())) {
      throw new IllegalArgumentException("url must be http:// or https://, got '" + url + "'");
    }
    String body;
    String contentType;
    Object event = params.get("event");
    if (event instanceof Event e) {
      body = Json.write(e.routable().json());
      contentType = "application/cloudevents+json";
    } else if (params.containsKey("body")) {
      Object b = params.get("body");
      body = b instanceof String s ? s : Json.write(Params.json(b));
      String given = Params.optional(params, "contentType");
      contentType = given != null ? given : b instanceof String ? "text/plain; charset=utf-8" : "application/json";
    } else if (ctx.event() != null) {
      body = Json.write(ctx.event().routable().json());
      contentType = "application/cloudevents+json";
    } else {
      throw new IllegalArgumentException("webhook needs 'event' (an Event) or 'body'");
    }
    HttpRequest.Builder b = HttpRequest.newBuilder(uri)
        .timeout(Params.duration(params, "timeout", timeout))
        .header("Content-Type", contentType)
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (params.get("headers") instanceof Map<?, ?> headers) {
      headers.forEach((k, v) -> b.header(String.valueOf(k), String.valueOf(v)));
    }
    return b.build();
  }

  private void attempt(HttpRequest request, int n, int max, CompletableFuture<ActionResult> result) {
    CompletableFuture<HttpResponse<Void>> call;
    try {
      call = client.sendAsync(request, HttpResponse.BodyHandlers.discarding());
    } catch (RuntimeException e) {
      call = CompletableFuture.failedFuture(e);
    }
    call.whenComplete((response, error) -> {
      String failure;
      boolean retryable;
      if (error != null) {
        Throwable cause = error.getCause() != null && !(error instanceof HttpTimeoutException) ? error.getCause() : error;
        failure = cause instanceof HttpTimeoutException ? "timed out after " + request.timeout().orElse(timeout)
            : cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
        retryable = true;
      } else if (response.statusCode() / 100 == 2) {
        result.complete(ActionResult.succeeded(n));
        return;
      } else {
        int status = response.statusCode();
        failure = "HTTP " + status + " from " + request.uri();
        retryable = status >= 500 || status == 408 || status == 429;
      }
      if (!retryable || n >= max) {
        result.complete(ActionResult.failed(n, failure));
        return;
      }
      try {
        CompletableFuture.delayedExecutor(backoff(n).toMillis(), TimeUnit.MILLISECONDS)
            .execute(() -> attempt(request, n + 1, max, result));
      } catch (RuntimeException e) {
        result.complete(ActionResult.failed(n, failure + "; could not schedule a retry: " + e));
      }
    });
  }

  /** Delay after attempt {@code n}: initial * 2^(n-1), capped. */
  Duration backoff(int n) {
    long millis = initialBackoff.toMillis() << Math.min(n - 1, 20);
    return Duration.ofMillis(Math.min(millis, maxBackoff.toMillis()));
  }
}
