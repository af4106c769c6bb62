package io.activityservice.rules.action;

import io.activityservice.channel.Backoff;
import io.activityservice.channel.Redaction;
import io.activityservice.channel.support.Futures;
import io.activityservice.events.json.Json;
import io.activityservice.rules.Event;
import io.activityservice.rules.EventAccess;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@code webhook}: HTTP POST to {@code url}. The body is the {@code event} parameter as a
 * structured CloudEvent ({@code application/cloudevents+json}), or {@code body} (JSON, or a string
 * as given with {@code contentType}), or else the triggering event. Optional {@code headers} (a
 * map), {@code timeout} (ms or ISO-8601), {@code maxAttempts} and {@code connection} (the name of a
 * connection whose credentials each attempt carries; it must list the URL in its {@code
 * allowedTargets}). A 2xx answer succeeds; 5xx, 408, 429 and I/O errors are retried with
 * exponential backoff; other answers (redirects are not followed) fail at once.
 *
 * <p>Requests go through the {@link WebhookPoster} the application hands over (the http channel
 * adapter's guarded client): the same outbound policy as webhook subscriptions (internal targets
 * are refused, on the addresses actually connected to), the same per-host limits. A refused target
 * fails at once with the generic reason; errors name the URL without secrets. Fully asynchronous.
 */
public final class WebhookAction implements ActionHandler {

  private final WebhookPoster poster;
  private final Duration timeout;
  private final int maxAttempts;
  private final Backoff backoff;

  /**
   * @param poster the http channel adapter's guarded poster; {@code null} if http channels are
   *     disabled (every execution then fails saying so)
   * @param timeout default time for one attempt's answer
   * @param maxAttempts default attempts
   * @param initialBackoff delay after the first failed attempt; doubles per attempt
   * @param maxBackoff longest delay between attempts
   */
  public WebhookAction(
      WebhookPoster poster,
      Duration timeout,
      int maxAttempts,
      Duration initialBackoff,
      Duration maxBackoff) {
    this.poster = poster;
    this.timeout = timeout;
    this.maxAttempts = maxAttempts;
    this.backoff = new Backoff(initialBackoff, maxBackoff, false);
  }

  @Override
  public String name() {
    return "webhook";
  }

  @Override
  public CompletableFuture<ActionResult> execute(Map<String, Object> params, ActionContext ctx) {
    Request request;
    int attempts;
    try {
      if (poster == null) {
        throw new IllegalStateException(
            "the webhook action posts through the http channel adapter, which is"
                + " disabled (activity.channels.http.enabled=false)");
      }
      request = request(params, ctx);
      attempts = Math.max(1, Params.integer(params, "maxAttempts", maxAttempts));
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(ActionResult.failed(0, ActionDispatcher.message(e)));
    }
    CompletableFuture<ActionResult> result = new CompletableFuture<>();
    attempt(request, 1, attempts, result);
    return result;
  }

  /** A prepared POST with what its failures report. */
  private record Request(WebhookPoster.Attempt attempt, URI target, Duration timeout) {}

  private Request request(Map<String, Object> params, ActionContext ctx) {
    String url =
        Params.required(
            params, "url", name(), "Map.of(\"url\", \"https://example.com/hook\", \"event\", $e)");
    URI uri;
    try {
      uri = new URI(url.trim());
    } catch (java.net.URISyntaxException e) {
      throw new IllegalArgumentException(
          "url '" + Redaction.uri(url) + "' is not a valid URI: " + e.getReason());
    }
    if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())) {
      throw new IllegalArgumentException(
          "url must be http:// or https://, got '" + Redaction.uri(url) + "'");
    }
    String body;
    String contentType;
    Object event = params.get("event");
    if (event instanceof Event e) {
      body = Json.write(EventAccess.routable(e).json());
      contentType = "application/cloudevents+json";
    } else if (params.containsKey("body")) {
      Object b = params.get("body");
      body = b instanceof String s ? s : Json.write(Params.json(b));
      String given = Params.optional(params, "contentType");
      contentType =
          given != null
              ? given
              : b instanceof String ? "text/plain; charset=utf-8" : "application/json";
    } else if (ctx.event() != null) {
      body = Json.write(EventAccess.routable(ctx.event()).json());
      contentType = "application/cloudevents+json";
    } else {
      throw new IllegalArgumentException("webhook needs 'event' (an Event) or 'body'");
    }
    Map<String, String> headers = new LinkedHashMap<>();
    if (params.get("headers") instanceof Map<?, ?> given) {
      given.forEach((k, v) -> headers.put(String.valueOf(k), String.valueOf(v)));
    }
    Duration attemptTimeout = Params.duration(params, "timeout", timeout);
    String connection = Params.optional(params, "connection");
    return new Request(
        poster.prepare(
            uri,
            contentType,
            body.getBytes(StandardCharsets.UTF_8),
            headers,
            attemptTimeout,
            connection),
        uri,
        attemptTimeout);
  }

  private void attempt(Request request, int n, int max, CompletableFuture<ActionResult> result) {
    CompletableFuture<Integer> call;
    try {
      call = request.attempt().post();
    } catch (RuntimeException e) {
      call = CompletableFuture.failedFuture(e);
    }
    call.whenComplete(
        (status, error) -> {
          String failure;
          boolean retryable;
          if (error != null) {
            Throwable cause = Futures.unwrap(error);
            if (cause instanceof WebhookPoster.Refused) {
              failure = cause.getMessage(); // generic on purpose: the reason is in the service log
              retryable = false;
            } else if (cause instanceof HttpTimeoutException) {
              failure = "timed out after " + request.timeout();
              retryable = true;
            } else {
              failure =
                  cause.getClass().getSimpleName()
                      + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
              retryable = true;
            }
          } else if (status / 100 == 2) {
            result.complete(ActionResult.succeeded(n));
            return;
          } else {
            failure = "HTTP " + status + " from " + Redaction.uri(request.target().toString());
            retryable = status >= 500 || status == 408 || status == 429;
          }
          if (!retryable || n >= max) {
            result.complete(ActionResult.failed(n, failure));
            return;
          }
          try {
            CompletableFuture.delayedExecutor(backoff(n).toNanos(), TimeUnit.NANOSECONDS)
                .execute(() -> attempt(request, n + 1, max, result));
          } catch (RuntimeException e) {
            result.complete(ActionResult.failed(n, failure + "; could not schedule a retry: " + e));
          }
        });
  }

  /** Delay after attempt {@code n}: initial * 2^(n-1), capped. */
  Duration backoff(int n) {
    return backoff.delay(n);
  }
}
