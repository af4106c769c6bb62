package io.activityservice.channel.jms;

import java.util.regex.Pattern;

/**
 * Shared durable topic subscriptions on ActiveMQ Classic.
 *
 * <p>ActiveMQ Classic 6.1 throws {@code UnsupportedOperationException} from the JMS 2.0 {@code
 * Session.createSharedDurableConsumer}; its own equivalent is the <em>virtual topic</em>: the
 * broker copies every message published to topic {@code T} into each queue named {@code
 * Consumer.<subscription>.T}. Consumers of that queue compete (each message to one of them), the
 * queue keeps messages while no consumer is connected, and acknowledgement is per message. The
 * embedded broker ({@code adapter-jms-embedded}) enables this for every topic ({@code >}); an
 * external broker needs the same {@code <virtualTopic name=">" prefix="Consumer.*."
 * selectorAware="false"/>} (see README).
 */
final class VirtualTopics {

  /** Subscription names become one segment of a destination name: no dots or wildcards. */
  static final Pattern SUBSCRIPTION_NAME = Pattern.compile("[A-Za-z0-9_-]+");

  private VirtualTopics() {}

  /** The consumer queue of {@code subscriptionName} on {@code topic}. */
  static String consumerQueue(String subscriptionName, String topic) {
    return "Consumer." + subscriptionName + "." + topic;
  }

  /**
   * Checks a subscription name.
   *
   * @throws IllegalArgumentException saying what is allowed
   */
  static String checkSubscriptionName(String name, String origin) {
    if (name == null || !SUBSCRIPTION_NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          origin
              + " '"
              + name
              + "' is not a valid jms subscription name: use letters, digits, '_' and '-' only, e.g. activity-service");
    }
    return name;
  }
}
