package io.activityservice.channel.http;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Webhook channel settings ({@code activity.channels.http.*}). Every field is optional.
 *
 * @param connectTimeout time allowed to open a connection to a webhook
 * @param requestTimeout time allowed for a webhook to answer, from when the request is sent (not
 *     while it waits for a slot of its host); a slower answer counts as a failed delivery and is
 *     retried by the subscription's retry policy
 * @param maxConcurrencyPerHost requests in flight at once to one webhook host (host and port), so
 *     that one slow host cannot take every connection
 * @param maxQueuedPerHost sends waiting for a slot of one host; a send beyond it fails at once with
 *     a {@code RejectedExecutionException}
 */
@ConfigurationProperties("activity.channels.http")
public record HttpChannelProperties(
    @DefaultValue("2s") Duration connectTimeout,
    @DefaultValue("10s") Duration requestTimeout,
    @DefaultValue("64") Integer maxConcurrencyPerHost,
    @DefaultValue("10000") Integer maxQueuedPerHost) {

  private static final String P = "activity.channels.http.";

  @ConstructorBinding
  public HttpChannelProperties {
    connectTimeout = connectTimeout == null ? Duration.ofSeconds(2) : connectTimeout;
    requestTimeout = requestTimeout == null ? Duration.ofSeconds(10) : requestTimeout;
    maxConcurrencyPerHost = maxConcurrencyPerHost == null ? 64 : maxConcurrencyPerHost;
    maxQueuedPerHost = maxQueuedPerHost == null ? 10_000 : maxQueuedPerHost;
    if (connectTimeout.isNegative()
        || connectTimeout.isZero()
        || requestTimeout.isNegative()
        || requestTimeout.isZero()) {
      throw new IllegalArgumentException(
          P + "connect-timeout and request-timeout must be positive, e.g. 2s");
    }
    if (maxConcurrencyPerHost < 1 || maxConcurrencyPerHost > 10_000) {
      throw new IllegalArgumentException(
          P + "max-concurrency-per-host is " + maxConcurrencyPerHost + "; use 1 to 10000, e.g. 64");
    }
    if (maxQueuedPerHost < 0 || maxQueuedPerHost > 10_000_000) {
      throw new IllegalArgumentException(
          P + "max-queued-per-host is " + maxQueuedPerHost + "; use 0 to 10000000, e.g. 10000");
    }
  }

  /** Defaults with the given timeouts. */
  public HttpChannelProperties(Duration connectTimeout, Duration requestTimeout) {
    this(connectTimeout, requestTimeout, null, null);
  }

  /** All defaults. */
  public static HttpChannelProperties defaults() {
    return new HttpChannelProperties(null, null, null, null);
  }
}
