package io.activityservice.channel.jms;

import java.time.Duration;
import org.apache.activemq.ActiveMQConnectionFactory;
import org.apache.activemq.RedeliveryPolicy;

/** Builds the ActiveMQ connection factory every connection of the adapter comes from. */
final class JmsConnections {

  private JmsConnections() {
  }

  /**
   * A factory for {@code properties.brokerUrl()}, made resilient: failover transport (reconnects
   * on its own, restores sessions and consumers), sends bounded by the send timeout, no client-side
   * duplicate suppression or poison acks (the core deduplicates; a message must never go to the
   * DLQ because of a reconnect).
   */
  static ActiveMQConnectionFactory factory(JmsChannelProperties properties) {
    ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory(
        failoverUrl(properties.brokerUrl(), properties.sendTimeout(), properties.reconnectDelay()));
    if (!properties.user().isEmpty()) {
      factory.setUserName(properties.user());
      factory.setPassword(properties.password());
    }
    int timeoutMs = (int) Math.min(Integer.MAX_VALUE, properties.sendTimeout().toMillis());
    factory.setSendTimeout(timeoutMs);
    factory.setCloseTimeout(timeoutMs);
    factory.setWatchTopicAdvisories(false);
    factory.setCheckForDuplicates(false);
    factory.setNestedMapAndListEnabled(false);
    RedeliveryPolicy redelivery = new RedeliveryPolicy();
    redelivery.setMaximumRedeliveries(RedeliveryPolicy.NO_MAXIMUM_REDELIVERIES);
    factory.setRedeliveryPolicy(redelivery);
    return factory;
  }

  /**
   * Wraps a plain URL in {@code failover:(…)} with a {@code timeout} equal to the send timeout, so
   * an operation fails (instead of blocking) while the broker is unreachable. A URL that already
   * starts with {@code failover:} is used as given.
   */
  static String failoverUrl(String brokerUrl, Duration sendTimeout, Duration reconnectDelay) {
    if (brokerUrl.startsWith("failover:")) {
      return brokerUrl;
    }
    return "failover:(" + brokerUrl + ")?timeout=" + sendTimeout.toMillis()
        + "&initialReconnectDelay=100&maxReconnectDelay=" + reconnectDelay.toMillis()
        + "&startupMaxReconnectAttempts=-1&maxReconnectAttempts=-1";
  }
}
