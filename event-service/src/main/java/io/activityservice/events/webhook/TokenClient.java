package io.activityservice.events.webhook;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The way out to OAuth 2 token endpoints: the application implements it with the http channel
 * adapter's guarded client, so token requests pass the same outbound policy (no internal addresses,
 * no redirects) as the webhooks themselves. This module names no transport.
 */
public interface TokenClient {

  /**
   * POSTs a form. Never blocks and never throws: the future fails for a refused target, a timeout
   * or an I/O error, or an answer body above the client's bound.
   */
  CompletableFuture<Response> postForm(
      URI url, Map<String, String> form, Map<String, String> headers, Duration timeout);

  /** A token endpoint's answer. */
  record Response(int status, byte[] body) {}
}
