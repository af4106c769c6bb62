package io.activityservice.channel.jms;

import io.activityservice.channel.AbstractChannelAdapter;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.DeliveryFormat;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundHandler;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.channel.OutboundEvent;
import io.activityservice.channel.WirePreview;
import io.activityservice.channel.support.DaemonThreads;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.apache.activemq.ActiveMQConnectionFactory;

/**
 * JMS channels on ActiveMQ Classic: {@code jms:queue:<name>} and {@code jms:topic:<name>}
 * (optionally {@code ?persistent=false}). Events travel in CloudEvents binary mode (see {@link
 * JmsCloudEventCodec}).
 *
 * <p>Both directions work in transactions of many messages (see {@link
 * JmsChannelProperties.Batch}): outbound channels share a small pool of senders, each committing
 * what it has queued at once; inbound channels each own a few transacted sessions (connection and
 * thread each) that commit once per batch of received messages, after the handler acknowledged all
 * of them. Inbound topic channels join a shared durable subscription (an ActiveMQ virtual topic,
 * see {@link VirtualTopics}) named by the inbound property {@value #SUBSCRIPTION_NAME} or {@link
 * JmsChannelProperties#subscriptionName()}, so replicas with the same name compete for the
 * messages. Connections use the failover transport and come back on their own after a broker
 * restart.
 */
public final class JmsChannelAdapter extends AbstractChannelAdapter {

  /** Inbound property: name of the shared subscription a topic channel joins. */
  public static final String SUBSCRIPTION_NAME = "subscriptionName";

  /**
   * Inbound property: maximum unacknowledged messages of this channel (overrides max-in-flight).
   */
  public static final String MAX_IN_FLIGHT = "maxInFlight";

  /**
   * Inbound property: {@code true} opens the consumer as an ActiveMQ exclusive consumer ({@code
   * consumer.exclusive=true}): of several replicas consuming one queue (or one topic subscription)
   * exactly one receives, and the broker fails over to another when it goes away. Default {@code
   * false} (replicas compete for the messages).
   */
  public static final String EXCLUSIVE = "exclusive";

  private final JmsChannelProperties properties;
  private final ActiveMQConnectionFactory factory;
  private final JmsCloudEventCodec codec = new JmsCloudEventCodec();
  private final JmsSenderPool senders;
  private final ScheduledThreadPoolExecutor redeliverer;

  /**
   * Creates the adapter; nothing connects until a channel is used.
   *
   * @throws IllegalArgumentException if {@code properties.brokerUrl()} is empty (start an {@code
   *     EmbeddedActiveMqBroker} of adapter-jms-embedded and pass its URL instead)
   */
  public JmsChannelAdapter(JmsChannelProperties properties) {
    super("jms");
    if (properties.useEmbeddedBroker()) {
      throw new IllegalArgumentException(
          "the jms adapter needs a broker URL: set activity.channels.jms.broker-url"
              + " or start an EmbeddedActiveMqBroker and use properties.toBuilder().brokerUrl(broker.connectUri()).build()");
    }
    this.properties = properties;
    this.factory = JmsConnections.factory(properties);
    this.senders =
        new JmsSenderPool(
            JmsConnections.senderFactory(properties),
            codec,
            properties.sendConcurrency(),
            properties.sendQueueCapacity(),
            properties.batch().sendSize(),
            properties.sendTimeout());
    this.redeliverer = new ScheduledThreadPoolExecutor(1, DaemonThreads.named("jms-redelivery"));
  }

  /** {@inheritDoc} Here: binary mode (the default), structured mode, or the data alone. */
  @Override
  public Set<DeliveryFormat> formats() {
    return Set.of(DeliveryFormat.STRUCTURED, DeliveryFormat.BINARY, DeliveryFormat.DATA);
  }

  /** {@inheritDoc} Here: the message's properties (and group) and its body. */
  @Override
  public WirePreview preview(ChannelUri uri, OutboundEvent event) {
    JmsCloudEventCodec.Encoded encoded =
        event.encoded(JmsCloudEventCodec.wireFormat(event.format()));
    Map<String, String> headers = new java.util.LinkedHashMap<>();
    encoded.properties().forEach((k, v) -> headers.put(k, String.valueOf(v)));
    if (event.partitionKey() != null) {
      headers.put("JMSXGroupID", event.partitionKey());
    }
    byte[] body =
        encoded.text() != null
            ? encoded.text().getBytes(java.nio.charset.StandardCharsets.UTF_8)
            : encoded.bytes();
    return new WirePreview(headers, body);
  }

  @Override
  public Set<String> schemes() {
    return Set.of("jms");
  }

  @Override
  public void validate(ChannelUri uri) {
    JmsAddress.parse(uri);
  }

  @Override
  public OutboundChannel openOutbound(ChannelUri uri) {
    JmsAddress address = JmsAddress.parse(uri);
    return register(
        onClose ->
            new JmsOutboundChannel(
                uri, address, address.persistentOr(properties.persistent()), senders, onClose));
  }

  /**
   * Starts listening. Inbound properties: {@value #SUBSCRIPTION_NAME} (topics only), {@value
   * #MAX_IN_FLIGHT} and {@value #EXCLUSIVE}. Waits up to the send timeout for the subscription to
   * be registered (so events published to a topic right after this call are not missed); if the
   * broker is unreachable the channel keeps trying in the background.
   */
  @Override
  public InboundChannel openInbound(
      ChannelUri uri, InboundSettings settings, InboundHandler handler) {
    JmsAddress address = JmsAddress.parse(uri);
    InboundSettings effective = settings == null ? InboundSettings.strict() : settings;
    String subscription =
        VirtualTopics.checkSubscriptionName(
            effective.property(SUBSCRIPTION_NAME, properties.subscriptionName()),
            "inbound property " + SUBSCRIPTION_NAME);
    int maxInFlight = maxInFlight(effective);
    boolean exclusive = exclusive(effective);
    // Of several exclusive consumers only one receives: more sessions would only stand by.
    int sessions = exclusive ? 1 : properties.batch().sessions();
    JmsInboundChannel channel =
        register(
            onClose ->
                new JmsInboundChannel(
                    uri,
                    address.consumerQueue(subscription, exclusive),
                    effective,
                    handler,
                    codec,
                    factory,
                    maxInFlight,
                    sessions,
                    properties,
                    redeliverer,
                    onClose));
    channel.start(properties.sendTimeout());
    return channel;
  }

  private int maxInFlight(InboundSettings settings) {
    String value = settings.property(MAX_IN_FLIGHT, null);
    if (value == null) {
      return properties.maxInFlight();
    }
    try {
      int n = Integer.parseInt(value.trim());
      if (n >= 1) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        "jms inbound property "
            + MAX_IN_FLIGHT
            + " is '"
            + value
            + "'; use a positive number, e.g. 1000");
  }

  private static boolean exclusive(InboundSettings settings) {
    String value = settings.property(EXCLUSIVE, "false").trim();
    if (!value.equals("true") && !value.equals("false")) {
      throw new IllegalArgumentException(
          "jms inbound property "
              + EXCLUSIVE
              + " is '"
              + value
              + "'; use true (one active consumer per queue, with failover) or false");
    }
    return Boolean.parseBoolean(value);
  }

  /**
   * Stops the senders (flushing what they hold, bounded by the send timeout) and the adapter's
   * threads.
   */
  @Override
  protected void doClose() {
    senders.close();
    redeliverer.shutdownNow();
  }
}
