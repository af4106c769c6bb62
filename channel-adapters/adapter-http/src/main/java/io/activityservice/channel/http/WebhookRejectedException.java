package io.activityservice.channel.http;

import io.activityservice.channel.Redaction;
import java.net.URI;

/**
 * A webhook answered with a non-2xx status. The message names the status and the URL as {@link
 * Redaction} shows it (no user info, query or path secrets); the response body is never read, so it
 * cannot leak into delivery errors or dead-letter reasons.
 */
public final class WebhookRejectedException extends RuntimeException {

  private final int status;

  public WebhookRejectedException(URI target, int status) {
    super(
        "HTTP " + status + " from webhook " + Redaction.uri(target.toString()), null, false, false);
    this.status = status;
  }

  /** The HTTP status the webhook answered. */
  public int status() {
    return status;
  }
}
