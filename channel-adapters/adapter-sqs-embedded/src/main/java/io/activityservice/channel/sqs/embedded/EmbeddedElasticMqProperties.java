package io.activityservice.channel.sqs.embedded;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Where the embedded ElasticMQ listens ({@code activity.channels.sqs.embedded.*}). It starts only
 * when no {@code activity.channels.sqs.endpoint} is set and {@code embedded.enabled} (bound by the
 * sqs adapter, which must know whether to expect it) is not false. This module alone binds the host
 * and port.
 *
 * @param host interface to bind
 * @param port port to bind (0 picks a free one)
 */
@ConfigurationProperties(EmbeddedElasticMqProperties.PREFIX)
public record EmbeddedElasticMqProperties(
    @DefaultValue("127.0.0.1") String host, @DefaultValue("9324") Integer port) {

  /** The settings' prefix. */
  public static final String PREFIX = "activity.channels.sqs.embedded";

  public EmbeddedElasticMqProperties {
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
