package io.activityservice.channel.http;

import java.net.URI;

/** A webhook answered with a non-2xx status. */
public final class WebhookRejectedException extends RuntimeException {

  private final int status;

  public WebhookRejectedException(URI target, int status) {
    super("webhook " + target + " answered HTTP " + status);
    this.status = status;
  }

  /** The HTTP status the webhook answered. */
  public int status() {
    return status;
  }
}
