package io.activityservice.channel.sqs.embedded;

/**
 * Where the embedded ElasticMQ listens ({@code activity.channels.sqs.embedded.*}, the keys the sqs
 * adapter documents).
 *
 * @param enabled whether it starts when no {@code activity.channels.sqs.endpoint} is set (default
 *     true; false: the adapter talks to real AWS)
 * @param host interface to bind (default {@code 127.0.0.1})
 * @param port port to bind (default 9324; 0 picks a free one)
 */
public record EmbeddedElasticMqSettings(Boolean enabled, String host, Integer port) {

  /** The settings' prefix. */
  public static final String PREFIX = "activity.channels.sqs.embedded";

  public EmbeddedElasticMqSettings {
    enabled = enabled == null || enabled;
    host = host == null || host.isBlank() ? "127.0.0.1" : host.trim();
    port = port == null ? 9324 : port;
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException(
          PREFIX
              + ".port="
              + port
              + " is invalid; set it between 1 and 65535 (0 = any free port), e.g. 9324");
    }
  }
}
