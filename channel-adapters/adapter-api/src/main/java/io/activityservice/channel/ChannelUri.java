package io.activityservice.channel;

import java.util.Locale;
import java.util.Objects;

/**
 * A channel address in the one convention used everywhere in the service: {@code http://…}/{@code
 * https://…} (webhook), {@code jms:topic:<name>}, {@code jms:queue:<name>}, {@code sqs:<queue name
 * or URL>}, {@code kafka:<topic>}.
 *
 * <p>The scheme selects the {@link ChannelAdapter}; the rest ({@link #address()}) is interpreted by
 * that adapter only. For {@code http(s)} the address is the whole URL.
 *
 * @param scheme lower-case scheme, e.g. {@code jms}
 * @param address scheme-specific part, e.g. {@code topic:orders}; never blank
 */
public record ChannelUri(String scheme, String address) {

  public ChannelUri {
    Objects.requireNonNull(scheme, "scheme");
    Objects.requireNonNull(address, "address");
    if (scheme.isBlank() || address.isBlank()) {
      throw new IllegalArgumentException(
          "channel URI needs a scheme and an address, e.g. jms:topic:orders");
    }
  }

  /**
   * Parses a channel URI.
   *
   * @throws IllegalArgumentException if the text has no {@code scheme:} prefix or nothing after it
   */
  public static ChannelUri parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException(
          "channel URI is empty; expected e.g. jms:topic:orders or https://host/hook");
    }
    String trimmed = text.trim();
    int colon = trimmed.indexOf(':');
    if (colon <= 0 || colon == trimmed.length() - 1) {
      throw new IllegalArgumentException(
          "'"
              + text
              + "' is not a channel URI; expected <scheme>:<address>, e.g. jms:topic:orders");
    }
    String scheme = trimmed.substring(0, colon).toLowerCase(Locale.ROOT);
    boolean web = scheme.equals("http") || scheme.equals("https");
    return new ChannelUri(scheme, web ? trimmed : trimmed.substring(colon + 1));
  }

  /** The URI as text, the inverse of {@link #parse(String)}. */
  @Override
  public String toString() {
    return scheme.equals("http") || scheme.equals("https") ? address : scheme + ":" + address;
  }
}
