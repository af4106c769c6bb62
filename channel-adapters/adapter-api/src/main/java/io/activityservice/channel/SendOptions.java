package io.activityservice.channel;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * What one delivery asks of the channel besides the event: request headers (e.g. a signature or
 * credentials) and a time limit for the answer. Webhook channels send the headers as HTTP request
 * headers and wait at most {@code timeout} for the answer; other channels ignore both.
 *
 * @param headers further request headers, never null (a webhook refuses connection-level ones)
 * @param timeout time for the answer, or {@code null} for the channel's own
 */
public record SendOptions(Map<String, String> headers, Duration timeout) {

  /** No headers, the channel's timeout. */
  public static final SendOptions NONE = new SendOptions(Map.of(), null);

  public SendOptions {
    headers = headers == null ? Map.of() : Map.copyOf(headers);
    if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
      throw new IllegalArgumentException("a send timeout must be positive, e.g. PT5S");
    }
  }

  /** Whether these are the defaults (nothing to add). */
  public boolean isNone() {
    return headers.isEmpty() && timeout == null;
  }

  /** These options with {@code more} headers added (replacing same-named ones). */
  public SendOptions withHeaders(Map<String, String> more) {
    Objects.requireNonNull(more, "more");
    if (more.isEmpty()) {
      return this;
    }
    java.util.LinkedHashMap<String, String> all = new java.util.LinkedHashMap<>(headers);
    all.putAll(more);
    return new SendOptions(all, timeout);
  }
}
