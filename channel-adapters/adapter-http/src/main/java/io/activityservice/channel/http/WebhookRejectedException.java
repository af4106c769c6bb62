package io.activityservice.channel.http;

import java.net.URI;

/** A webhook answered with a non-2xx status. The message names the URL without user info or query. */
public final class WebhookRejectedException extends RuntimeException {

  private final int status;

  public WebhookRejectedException(URI target, int status) {
    super("webhook " + withoutSecrets(target) + " answered HTTP " + status);
    this.status = status;
  }

  /** Scheme, host, port and path: user info and query may carry credentials. */
  static String withoutSecrets(URI target) {
    return target.getScheme() + "://" + WebhookOutboundChannel.hostAndPort(target)
        + (target.getRawPath() == null ? "" : target.getRawPath());
  }

  /** The HTTP status the webhook answered. */
  public int status() {
    return status;
  }
}
