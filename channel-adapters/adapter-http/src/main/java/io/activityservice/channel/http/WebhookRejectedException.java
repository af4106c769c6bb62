package io.activityservice.channel.http;

import io.activityservice.channel.Redaction;
import io.activityservice.channel.RetryAfterHint;
import java.net.URI;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/**
 * A webhook answered with a non-2xx status. The message names the status and the URL as {@link
 * Redaction} shows it (no user info, query or path secrets); the response body is never read, so it
 * cannot leak into delivery errors or dead-letter reasons. A {@code 429} or {@code 503} with {@code
 * Retry-After} (seconds or an HTTP date, at most 24 h honoured) tells the retry schedule how long
 * to wait ({@link RetryAfterHint}).
 */
public final class WebhookRejectedException extends RuntimeException implements RetryAfterHint {

  private static final long MAX_RETRY_AFTER_SECONDS = 86_400;

  private final int status;
  private final transient Duration retryAfter;

  public WebhookRejectedException(URI target, int status) {
    this(target, status, null);
  }

  /**
   * @param retryAfter the {@code Retry-After} header, or {@code null}; used for 429 and 503 only
   */
  public WebhookRejectedException(URI target, int status, String retryAfter) {
    super(message(target, status, retryAfter), null, false, false);
    this.status = status;
    this.retryAfter = status == 429 || status == 503 ? parse(retryAfter) : null;
  }

  private static String message(URI target, int status, String retryAfter) {
    Duration d = status == 429 || status == 503 ? parse(retryAfter) : null;
    return "HTTP "
        + status
        + " from webhook "
        + Redaction.uri(target.toString())
        + (d == null ? "" : " (Retry-After " + d.toSeconds() + " s)");
  }

  /** The HTTP status the webhook answered. */
  public int status() {
    return status;
  }

  @Override
  public Duration retryAfter() {
    return retryAfter;
  }

  /** Delta-seconds or an HTTP date, bounded to 24 h; {@code null} if absent or unreadable. */
  static Duration parse(String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    String v = value.trim();
    try {
      long seconds = Long.parseLong(v);
      return seconds < 0 ? null : Duration.ofSeconds(Math.min(seconds, MAX_RETRY_AFTER_SECONDS));
    } catch (NumberFormatException e) {
      try {
        ZonedDateTime at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME);
        long seconds = at.toEpochSecond() - System.currentTimeMillis() / 1000;
        return Duration.ofSeconds(Math.max(0, Math.min(seconds, MAX_RETRY_AFTER_SECONDS)));
      } catch (DateTimeParseException notADate) {
        return null;
      }
    }
  }
}
