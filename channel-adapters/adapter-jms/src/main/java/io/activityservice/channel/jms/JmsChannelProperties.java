package io.activityservice.channel.jms;

import io.activityservice.channel.Redaction;
import io.activityservice.channel.RedeliverySettings;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * JMS channel settings ({@code activity.channels.jms.*}). Every field is optional.
 *
 * @param enabled whether the jms adapter is registered at all
 * @param brokerUrl ActiveMQ broker URL, e.g. {@code tcp://mq:61616} or {@code
 *     failover:(tcp://a:61616,tcp://b:61616)}; a URL that does not start with {@code failover:} is
 *     wrapped in one so that channels survive broker restarts. Empty (default) starts the embedded
 *     broker and connects to it
 * @param user broker user name; empty for none
 * @param password broker password; empty for none
 * @param subscriptionName default name of the shared durable subscription that inbound topic
 *     channels join: replicas with the same name compete for the messages; letters, digits, {@code
 *     _} and {@code -} (per channel: inbound property {@code subscriptionName})
 * @param persistent default delivery mode of outbound channels: persistent sends wait until the
 *     broker stored the message (per channel: {@code jms:queue:x?persistent=false})
 * @param maxInFlight maximum number of received but not yet committed messages per inbound channel,
 *     shared by its sessions; also their prefetch together (per channel: inbound property {@code
 *     maxInFlight})
 * @param sendConcurrency number of sender sessions (each with its own connection and thread) shared
 *     by all outbound channels
 * @param sendQueueCapacity events that may wait for a sender session before {@code send} fails fast
 *     with a {@code RejectedExecutionException}
 * @param sendTimeout time a send may take, from the call to the broker's acknowledgement, including
 *     while the broker is unreachable, before its future fails
 * @param redeliveryDelay deprecated old name of {@code redelivery.initial}; used only when that is
 *     not set
 * @param reconnectDelay longest wait between reconnection attempts to the broker
 * @param redelivery backoff of a nacked message before the channel hands it to the handler again
 *     (default 1s doubling up to 60s, full jitter; see {@link RedeliverySettings})
 * @param batch transactions: how many messages an inbound transaction takes and for how long, how
 *     many transacted sessions an inbound channel has, how many sends an outbound transaction
 *     carries (see {@link Batch})
 */
@ConfigurationProperties("activity.channels.jms")
public record JmsChannelProperties(
    @DefaultValue("true") Boolean enabled,
    @DefaultValue("") String brokerUrl,
    @DefaultValue("") String user,
    @DefaultValue("") String password,
    @DefaultValue("activity-service") String subscriptionName,
    @DefaultValue("true") Boolean persistent,
    @DefaultValue("1000") Integer maxInFlight,
    @DefaultValue("4") Integer sendConcurrency,
    @DefaultValue("10000") Integer sendQueueCapacity,
    @DefaultValue("10s") Duration sendTimeout,
    Duration redeliveryDelay,
    @DefaultValue("5s") Duration reconnectDelay,
    @NestedConfigurationProperty RedeliverySettings redelivery,
    @DefaultValue Batch batch) {

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
    if (redeliveryDelay != null && (redeliveryDelay.isNegative() || redeliveryDelay.isZero())) {
      throw new IllegalArgumentException(
          P
              + "redelivery-delay (deprecated: use redelivery.initial) must be"
              + " positive, e.g. 1s");
    }
    redelivery =
        redelivery != null ? redelivery : new RedeliverySettings(redeliveryDelay, null, null);
    batch = batch == null ? Batch.defaults() : batch;

    VirtualTopics.checkSubscriptionName(subscriptionName, P + "subscription-name");
    requireRange(maxInFlight, 1, 100_000, "max-in-flight", "e.g. 1000");
    requireRange(sendConcurrency, 1, 64, "send-concurrency", "e.g. 4");
    requireRange(sendQueueCapacity, 1, 10_000_000, "send-queue-capacity", "e.g. 10000");
    requirePositive(sendTimeout, "send-timeout", "10s");
    requirePositive(reconnectDelay, "reconnect-delay", "5s");
  }

  /** Settings with every default, to change with {@link Builder}. */
  public static Builder builder() {
    return new Builder();
  }

  /** Defaults, connected to {@code brokerUrl}. */
  public static JmsChannelProperties forBroker(String brokerUrl) {
    return builder().brokerUrl(brokerUrl).build();
  }

  /** A builder that starts from these settings. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.enabled = enabled;
    b.brokerUrl = brokerUrl;
    b.user = user;
    b.password = password;
    b.subscriptionName = subscriptionName;
    b.persistent = persistent;
    b.maxInFlight = maxInFlight;
    b.sendConcurrency = sendConcurrency;
    b.sendQueueCapacity = sendQueueCapacity;
    b.sendTimeout = sendTimeout;
    b.redeliveryDelay = redeliveryDelay;
    b.reconnectDelay = reconnectDelay;
    b.redelivery = redelivery;
    b.batch = batch;
    return b;
  }

  /**
   * Builds {@link JmsChannelProperties} outside Spring Boot. Its initial values are the documented
   * defaults, the same as the {@code @DefaultValue}s of the record (AdapterPropertiesDefaultsTest
   * in activity-service checks that they agree).
   */
  public static final class Builder {
    private boolean enabled = true;
    private String brokerUrl = "";
    private String user = "";
    private String password = "";
    private String subscriptionName = "activity-service";
    private boolean persistent = true;
    private int maxInFlight = 1000;
    private int sendConcurrency = 4;
    private int sendQueueCapacity = 10_000;
    private Duration sendTimeout = Duration.ofSeconds(10);
    private Duration redeliveryDelay;
    private Duration reconnectDelay = Duration.ofSeconds(5);
    private RedeliverySettings redelivery;
    private Batch batch = Batch.defaults();

    private Builder() {}

    /** See {@link JmsChannelProperties#enabled()}. */
    public Builder enabled(boolean value) {
      enabled = value;
      return this;
    }

    /** See {@link JmsChannelProperties#brokerUrl()}; null means empty. */
    public Builder brokerUrl(String value) {
      brokerUrl = value == null ? "" : value;
      return this;
    }

    /** See {@link JmsChannelProperties#user()}. */
    public Builder user(String value) {
      user = value;
      return this;
    }

    /** See {@link JmsChannelProperties#password()}. */
    public Builder password(String value) {
      password = value;
      return this;
    }

    /** See {@link JmsChannelProperties#subscriptionName()}. */
    public Builder subscriptionName(String value) {
      subscriptionName = value;
      return this;
    }

    /** See {@link JmsChannelProperties#persistent()}. */
    public Builder persistent(boolean value) {
      persistent = value;
      return this;
    }

    /** See {@link JmsChannelProperties#maxInFlight()}. */
    public Builder maxInFlight(int value) {
      maxInFlight = value;
      return this;
    }

    /** See {@link JmsChannelProperties#sendConcurrency()}. */
    public Builder sendConcurrency(int value) {
      sendConcurrency = value;
      return this;
    }

    /** See {@link JmsChannelProperties#sendQueueCapacity()}. */
    public Builder sendQueueCapacity(int value) {
      sendQueueCapacity = value;
      return this;
    }

    /** See {@link JmsChannelProperties#sendTimeout()}. */
    public Builder sendTimeout(Duration value) {
      sendTimeout = value;
      return this;
    }

    /** See {@link JmsChannelProperties#redeliveryDelay()} (deprecated: use {@link #redelivery}). */
    public Builder redeliveryDelay(Duration value) {
      redeliveryDelay = value;
      return this;
    }

    /** See {@link JmsChannelProperties#reconnectDelay()}. */
    public Builder reconnectDelay(Duration value) {
      reconnectDelay = value;
      return this;
    }

    /** See {@link JmsChannelProperties#redelivery()}. */
    public Builder redelivery(RedeliverySettings value) {
      redelivery = value;
      return this;
    }

    /** See {@link JmsChannelProperties#batch()}. */
    public Builder batch(Batch value) {
      batch = value;
      return this;
    }

    /** The settings, checked as at start-up. */
    public JmsChannelProperties build() {
      return new JmsChannelProperties(
          enabled,
          brokerUrl,
          user,
          password,
          subscriptionName,
          persistent,
          maxInFlight,
          sendConcurrency,
          sendQueueCapacity,
          sendTimeout,
          redeliveryDelay,
          reconnectDelay,
          redelivery,
          batch);
    }
  }

  /** Whether the embedded broker must be started (no broker URL configured). */
  public boolean useEmbeddedBroker() {
    return brokerUrl.isEmpty();
  }

  private static void requireRange(int value, int min, int max, String name, String example) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          P
              + name
              + " is "
              + value
              + " but must be between "
              + min
              + " and "
              + max
              + "; use "
              + example);
    }
  }

  private static void requirePositive(Duration value, String name, String example) {
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(P + name + " must be positive; use e.g. " + example);
    }
  }

  /**
   * Like the generated one, but the {@code password} prints as {@code ***} (settings end up in
   * logs).
   */
  @Override
  public String toString() {
    return Redaction.record(this, java.util.Set.of("password"));
  }

  /**
   * Transaction batching ({@code activity.channels.jms.batch.*}). Every field is optional.
   *
   * <p>Inbound, each channel has {@code sessions} transacted sessions, each with its own connection
   * and thread. A session's thread waits for a message without polling, hands every message to the
   * handler as soon as it arrives, and keeps taking messages into the open transaction. It commits
   * once every message of it is acknowledged and {@code linger} has passed since the first one, or
   * once it is full ({@code size} messages, or the channel's {@code max-in-flight} permits used up)
   * and all of it is acknowledged. A crash before that commit brings the whole batch back
   * (at-least- once: at most {@code max-in-flight} messages of a channel are received and not yet
   * committed).
   *
   * <p>Outbound, each sender drains its queue and sends up to {@code sendSize} events in one
   * producer transaction without waiting for a receipt per message, then commits once and completes
   * their futures.
   *
   * @param size inbound: most messages per consumer transaction (default: the channel's {@code
   *     max-in-flight} divided by {@code sessions}, i.e. 500, so that the sessions together can
   *     keep {@code max-in-flight} messages in flight while full batches wait for their slowest
   *     event, e.g. one parked after {@code park-after} behind a slow subscriber; at most {@code
   *     max-in-flight} are used)
   * @param linger inbound: how long a transaction stays open for more messages after its first one
   *     once all of it is acknowledged (0: commit as soon as all is acknowledged). It delays the
   *     commit, never the hand-out: events are routed at once
   * @param sessions inbound: transacted sessions per channel, so that one takes messages while
   *     another waits for its batch to settle and commits (an {@code exclusive} channel uses 1)
   * @param sendSize outbound: most sends per producer transaction
   */
  public record Batch(
      Integer size,
      @DefaultValue("10ms") Duration linger,
      @DefaultValue("2") Integer sessions,
      @DefaultValue("100") Integer sendSize) {

    /** Default {@code linger}. */
    public static final Duration DEFAULT_LINGER = Duration.ofMillis(10);

    /** Default {@code sessions}. */
    public static final int DEFAULT_SESSIONS = 2;

    /** Default {@code sendSize}. */
    public static final int DEFAULT_SEND_SIZE = 100;

    public Batch {
      linger = linger == null ? DEFAULT_LINGER : linger;
      sessions = sessions == null ? DEFAULT_SESSIONS : sessions;
      sendSize = sendSize == null ? DEFAULT_SEND_SIZE : sendSize;
      if (size != null) {
        requireRange(
            size,
            1,
            100_000,
            "batch.size",
            "e.g. 500, or leave it unset for max-in-flight / sessions");
      }
      requireRange(sessions, 1, 16, "batch.sessions", "e.g. 2");
      requireRange(sendSize, 1, 10_000, "batch.send-size", "e.g. 100");
      if (linger.isNegative() || linger.compareTo(Duration.ofSeconds(10)) > 0) {
        throw new IllegalArgumentException(
            P
                + "batch.linger is "
                + linger
                + " but must be between 0 and 10s; use e.g. 10ms (0: commit what has arrived without waiting)");
      }
    }

    /** All defaults: max-in-flight / sessions messages, 10ms, 2 sessions, 100 sends. */
    public static Batch defaults() {
      return new Batch(null, null, null, null);
    }

    /**
     * The batch size of an inbound channel: {@code size} if set, else {@code maxInFlight /
     * sessions} rounded up; never more than {@code maxInFlight}.
     */
    public int sizeFor(int maxInFlight, int channelSessions) {
      int derived = size != null ? size : (maxInFlight + channelSessions - 1) / channelSessions;
      return Math.max(1, Math.min(derived, maxInFlight));
    }
  }
}
