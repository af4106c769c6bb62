package io.activityservice.channel.jms;

import io.activityservice.channel.Redaction;
import io.activityservice.channel.RedeliverySettings;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.ConstructorBinding;

/**
 * JMS channel settings ({@code activity.channels.jms.*}). Every field is optional.
 *
 * @param enabled           whether the jms adapter is registered at all (default true)
 * @param brokerUrl         ActiveMQ broker URL, e.g. {@code tcp://mq:61616} or
 *                          {@code failover:(tcp://a:61616,tcp://b:61616)}; a URL that does not start
 *                          with {@code failover:} is wrapped in one so that channels survive broker
 *                          restarts. Empty (default) starts the embedded broker and connects to it
 * @param user              broker user name; empty for none (default)
 * @param password          broker password; empty for none (default)
 * @param subscriptionName  default name of the shared durable subscription that inbound topic
 *                          channels join: replicas with the same name compete for the messages
 *                          (default {@code activity-service}; per channel: inbound property
 *                          {@code subscriptionName})
 * @param persistent        default delivery mode of outbound channels: persistent sends wait until
 *                          the broker stored the message (default true; per channel:
 *                          {@code jms:queue:x?persistent=false})
 * @param maxInFlight       maximum number of received but not yet acknowledged messages per inbound
 *                          channel; also the consumer prefetch (default 1000; per channel: inbound
 *                          property {@code maxInFlight})
 * @param sendConcurrency   number of sender sessions (each with its own connection and thread)
 *                          shared by all outbound channels (default 4)
 * @param sendQueueCapacity events that may wait for a sender session before {@code send} fails fast
 *                          with a {@code RejectedExecutionException} (default 10000)
 * @param sendTimeout       time a send may take, from the call to the broker's acknowledgement,
 *                          including while the broker is unreachable, before its future fails
 *                          (default 10s)
 * @param redeliveryDelay   deprecated old name of {@code redelivery.initial}; used only when that
 *                          is not set
 * @param reconnectDelay    longest wait between reconnection attempts to the broker (default 5s)
 * @param embeddedBroker    the broker started when {@code brokerUrl} is empty
 * @param redelivery        backoff of a nacked message before the channel hands it to the handler
 *                          again (default 1s doubling up to 60s, full jitter; see
 *                          {@link RedeliverySettings})
 */
@ConfigurationProperties("activity.channels.jms")
public record JmsChannelProperties(
    Boolean enabled,
    String brokerUrl,
    String user,
    String password,
    String subscriptionName,
    Boolean persistent,
    Integer maxInFlight,
    Integer sendConcurrency,
    Integer sendQueueCapacity,
    Duration sendTimeout,
    Duration redeliveryDelay,
    Duration reconnectDelay,
    EmbeddedBroker embeddedBroker,
    RedeliverySettings redelivery) {

  private static final String P = "activity.channels.jms.";

  @ConstructorBinding
  public JmsChannelProperties {
    enabled = enabled == null || enabled;
    brokerUrl = brokerUrl == null ? "" : brokerUrl.trim();
    user = user == null ? "" : user;
    password = password == null ? "" : password;
    subscriptionName = subscriptionName == null ? "activity-service" : subscriptionName;
    persistent = persistent == null || persistent;
    maxInFlight = maxInFlight == null ? 1000 : maxInFlight;
    sendConcurrency = sendConcurrency == null ? 4 : sendConcurrency;
    sendQueueCapacity = sendQueueCapacity == null ? 10_000 : sendQueueCapacity;
    sendTimeout = sendTimeout == null ? Duration.ofSeconds(10) : sendTimeout;
    reconnectDelay = reconnectDelay == null ? Duration.ofSeconds(5) : reconnectDelay;
    embeddedBroker = embeddedBroker == null ? new EmbeddedBroker(null, null, null, null) : embeddedBroker;
    if (redeliveryDelay != null && (redeliveryDelay.isNegative() || redeliveryDelay.isZero())) {
      throw new IllegalArgumentException(P + "redelivery-delay (deprecated: use redelivery.initial) must be"
          + " positive, e.g. 1s");
    }
    redelivery = redelivery != null ? redelivery : new RedeliverySettings(redeliveryDelay, null, null);

    VirtualTopics.checkSubscriptionName(subscriptionName, P + "subscription-name");
    requireRange(maxInFlight, 1, 100_000, "max-in-flight", "e.g. 1000");
    requireRange(sendConcurrency, 1, 64, "send-concurrency", "e.g. 4");
    requireRange(sendQueueCapacity, 1, 10_000_000, "send-queue-capacity", "e.g. 10000");
    requirePositive(sendTimeout, "send-timeout", "10s");
    requirePositive(reconnectDelay, "reconnect-delay", "5s");
  }

  /**
   * The constructor of the earlier version (without {@code redelivery}), kept for callers outside
   * this module; {@code redeliveryDelay} becomes {@code redelivery.initial}.
   */
  public JmsChannelProperties(Boolean enabled, String brokerUrl, String user, String password,
      String subscriptionName, Boolean persistent, Integer maxInFlight, Integer sendConcurrency,
      Integer sendQueueCapacity, Duration sendTimeout, Duration redeliveryDelay, Duration reconnectDelay,
      EmbeddedBroker embeddedBroker) {
    this(enabled, brokerUrl, user, password, subscriptionName, persistent, maxInFlight, sendConcurrency,
        sendQueueCapacity, sendTimeout, redeliveryDelay, reconnectDelay, embeddedBroker, null);
  }

  /** Defaults, connected to {@code brokerUrl}. */
  public static JmsChannelProperties forBroker(String brokerUrl) {
    return new JmsChannelProperties(null, brokerUrl, null, null, null, null, null, null, null, null, null,
        null, null, null);
  }

  /** A copy with another broker URL (used to point the adapter at the embedded broker). */
  public JmsChannelProperties withBrokerUrl(String url) {
    return new JmsChannelProperties(enabled, url, user, password, subscriptionName, persistent, maxInFlight,
        sendConcurrency, sendQueueCapacity, sendTimeout, redeliveryDelay, reconnectDelay, embeddedBroker, redelivery);
  }

  /** A copy with another default delivery mode. */
  public JmsChannelProperties withPersistent(boolean value) {
    return new JmsChannelProperties(enabled, brokerUrl, user, password, subscriptionName, value, maxInFlight,
        sendConcurrency, sendQueueCapacity, sendTimeout, redeliveryDelay, reconnectDelay, embeddedBroker, redelivery);
  }

  /** A copy with other send and reconnect timings. */
  public JmsChannelProperties withTimeouts(Duration send, Duration reconnect) {
    return new JmsChannelProperties(enabled, brokerUrl, user, password, subscriptionName, persistent,
        maxInFlight, sendConcurrency, sendQueueCapacity, send, redeliveryDelay, reconnect, embeddedBroker, redelivery);
  }

  /** A copy with other redelivery settings (the backoff after a nack). */
  public JmsChannelProperties withRedelivery(RedeliverySettings value) {
    return new JmsChannelProperties(enabled, brokerUrl, user, password, subscriptionName, persistent,
        maxInFlight, sendConcurrency, sendQueueCapacity, sendTimeout, redeliveryDelay, reconnectDelay,
        embeddedBroker, value);
  }

  /** Whether the embedded broker must be started (no broker URL configured). */
  public boolean useEmbeddedBroker() {
    return brokerUrl.isEmpty();
  }

  private static void requireRange(int value, int min, int max, String name, String example) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          P + name + " is " + value + " but must be between " + min + " and " + max + "; use " + example);
    }
  }

  private static void requirePositive(Duration value, String name, String example) {
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(P + name + " must be positive; use e.g. " + example);
    }
  }

  /**
   * The embedded ActiveMQ broker ({@code activity.channels.jms.embedded-broker.*}), started only
   * when {@code broker-url} is empty. Other processes can reach it on {@code tcp://host:port}.
   *
   * @param host       address the TCP connector binds to (default {@code 127.0.0.1}: local only)
   * @param port       TCP port (default 61616; 0 picks a free port)
   * @param dataDir    directory of the KahaDB message store (default {@code ./data/activemq})
   * @param persistent whether messages survive a restart (KahaDB store; default true)
   */
  /** Like the generated one, but the {@code password} prints as {@code ***} (settings end up in logs). */
  @Override
  public String toString() {
    return Redaction.record(this, java.util.Set.of("password"));
  }

  public record EmbeddedBroker(String host, Integer port, String dataDir, Boolean persistent) {

    public EmbeddedBroker {
      host = host == null || host.isBlank() ? "127.0.0.1" : host.trim();
      port = port == null ? 61616 : port;
      dataDir = dataDir == null || dataDir.isBlank() ? "./data/activemq" : dataDir;
      persistent = persistent == null || persistent;
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException(
            P + "embedded-broker.port is " + port + "; use a TCP port 1-65535, or 0 for a free one");
      }
    }
  }
}
