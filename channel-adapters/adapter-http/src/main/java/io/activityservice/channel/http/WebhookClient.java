package io.activityservice.channel.http;

import java.util.concurrent.CompletableFuture;

/**
 * Posts to webhooks the way webhook channels do: through the {@link OutboundPolicy} (checked on the
 * addresses each connection uses), within the per-host limits, with redirects not followed and
 * response bodies never read. Other senders of HTTP requests — the rules' {@code webhook} action —
 * use it so that there is one guarded path out. Obtain it from {@link
 * HttpChannelAdapter#webhookClient()}.
 */
public interface WebhookClient {

  /**
   * Sends one POST. Never blocks and never throws: the future fails with an {@link
   * OutboundRefusedException} (the target is internal), a {@link java.net.UnknownHostException}, a
   * {@link java.net.http.HttpTimeoutException} (no answer within the request's timeout), a {@link
   * java.util.concurrent.RejectedExecutionException} (the host's queue is full) or another I/O
   * error. Cancelling the future cancels the request, or removes it from the host's queue.
   *
   * @return completes with the HTTP status the target answered, whatever it is (the body is
   *     discarded)
   */
  CompletableFuture<Integer> post(WebhookRequest request);

  /**
   * Sends one POST like {@link #post} and returns the status, the {@code Retry-After} header and,
   * if {@code maxBodyBytes > 0}, the body (an OAuth 2 token endpoint's answer); a longer body fails
   * the future.
   *
   * @param maxBodyBytes 0 to discard the body, else its bound (at most 1 MiB)
   */
  CompletableFuture<WebhookResponse> exchange(WebhookRequest request, int maxBodyBytes);
}
