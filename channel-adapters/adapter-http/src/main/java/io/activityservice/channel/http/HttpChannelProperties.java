package io.activityservice.channel.http;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Webhook channel settings ({@code activity.channels.http.*}).
 *
 * @param connectTimeout time allowed to open a connection to a webhook (default 2s)
 * @param requestTimeout time allowed for a webhook to answer; a slower answer counts as a failed
 *                       delivery and is retried by the subscription's retry policy (default 10s)
 */
@ConfigurationProperties("activity.channels.http")
public record HttpChannelProperties(Duration connectTimeout, Duration requestTimeout) {

  public HttpChannelProperties {
    connectTimeout = connectTimeout == null ? Duration.ofSeconds(2) : connectTimeout;
    requestTimeout = requestTimeout == null ? Duration.ofSeconds(10) : requestTimeout;
    if (connectTimeout.isNegative() || connectTimeout.isZero()
        || requestTimeout.isNegative() || requestTimeout.isZero()) {
      throw new IllegalArgumentException(
          "activity.channels.http.connect-timeout and request-timeout must be positive, e.g. 2s");
    }
  }
}
