package io.activityservice.channel.sqs;

import io.activityservice.channel.ChannelUri;
import java.net.URI;
import java.util.regex.Pattern;

/** The {@code sqs:} address rules: a queue name or a queue URL. */
final class SqsQueues {

  private static final Pattern STANDARD = Pattern.compile("[A-Za-z0-9_-]{1,80}");
  private static final Pattern FIFO = Pattern.compile("[A-Za-z0-9_-]{1,75}\\.fifo");

  private SqsQueues() {}

  /**
   * The queue name or URL of an {@code sqs:} URI.
   *
   * @throws IllegalArgumentException with a message saying what a valid address looks like
   */
  static String queueOf(ChannelUri uri) {
    if (!"sqs".equals(uri.scheme())) {
      throw new IllegalArgumentException(
          "'" + uri + "' is not an sqs channel; expected sqs:<queue name or URL>");
    }
    String address = uri.address();
    String name = address;
    if (isUrl(address)) {
      URI url;
      try {
        url = URI.create(address);
      } catch (IllegalArgumentException e) {
        throw invalid(uri, "the queue URL is malformed: " + e.getMessage());
      }
      String path = url.getPath();
      if (url.getHost() == null || path == null || path.isEmpty()) {
        throw invalid(uri, "a queue URL needs a host and a path ending in the queue name");
      }
      name = path.substring(path.lastIndexOf('/') + 1);
    }
    if (!isValidName(name)) {
      throw invalid(
          uri,
          "queue name '"
              + name
              + "' must be 1-80 letters, digits, '-' or '_', "
              + "optionally ending in .fifo");
    }
    return address;
  }

  /** Whether a queue name follows the SQS rules. */
  static boolean isValidName(String name) {
    return STANDARD.matcher(name).matches() || FIFO.matcher(name).matches();
  }

  static boolean isUrl(String address) {
    return address.startsWith("http://") || address.startsWith("https://");
  }

  /** Whether a queue name or URL denotes a FIFO queue. */
  static boolean isFifo(String queue) {
    return queue.endsWith(".fifo");
  }

  private static IllegalArgumentException invalid(ChannelUri uri, String why) {
    return new IllegalArgumentException(
        "sqs channel '"
            + uri
            + "' is invalid: "
            + why
            + "; expected sqs:<queue name> (e.g. sqs:activity-events) or sqs:<queue URL>");
  }
}
