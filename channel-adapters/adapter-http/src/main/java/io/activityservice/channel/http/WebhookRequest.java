package io.activityservice.channel.http;

import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One POST for {@link WebhookClient}.
 *
 * @param target an {@code http://} or {@code https://} URL; user info is not sent
 * @param contentType the body's media type, e.g. {@code application/cloudevents+json}
 * @param body the body (not copied: do not change it afterwards)
 * @param headers further request headers; connection-level ones (Host, Content-Length,
 *     Transfer-Encoding, Connection, Expect, Upgrade…) are refused, and Content-Type here replaces
 *     {@code contentType}
 * @param timeout time for the answer, from when the request leaves the host's queue; {@code null}
 *     for the adapter's {@code request-timeout}
 */
public record WebhookRequest(
    URI target, String contentType, byte[] body, Map<String, String> headers, Duration timeout) {

  private static final Set<String> RESTRICTED =
      Set.of(
          "host",
          "content-length",
          "transfer-encoding",
          "connection",
          "keep-alive",
          "expect",
          "upgrade",
          "te",
          "trailer",
          "proxy-authorization",
          "proxy-connection");

  /**
   * @throws IllegalArgumentException for a missing target, a restricted header or a non-positive
   *     timeout
   */
  public WebhookRequest {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(body, "body");
    String scheme = target.getScheme() == null ? "" : target.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new IllegalArgumentException("a webhook URL must be http:// or https://");
    }
    Map<String, String> clean = new LinkedHashMap<>();
    String type = contentType;
    for (Map.Entry<String, String> h :
        (headers == null ? Map.<String, String>of() : headers).entrySet()) {
      String name = h.getKey() == null ? "" : h.getKey().trim();
      String lower = name.toLowerCase(Locale.ROOT);
      if (name.isEmpty()
          || RESTRICTED.contains(lower)
          || !name.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+")) {
        throw new IllegalArgumentException(
            "header '" + name + "' may not be set on a webhook request");
      }
      String value = h.getValue() == null ? "" : h.getValue();
      if (value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0) {
        throw new IllegalArgumentException("header '" + name + "' has a line break in its value");
      }
      if (lower.equals("content-type")) {
        type = value;
      } else {
        clean.put(name, value);
      }
    }
    contentType = type == null || type.isBlank() ? "application/octet-stream" : type;
    headers = Map.copyOf(clean);
    if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
      throw new IllegalArgumentException("a webhook timeout must be positive, e.g. PT5S");
    }
  }

  /** A POST with the adapter's timeout and no further headers. */
  public WebhookRequest(URI target, String contentType, byte[] body) {
    this(target, contentType, body, Map.of(), null);
  }
}
