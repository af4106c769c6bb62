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
    return configure(new ActiveMQConnectionFactory(
        failoverUrl(properties.brokerUrl(), properties.sendTimeout(), properties.reconnectDelay())), properties);
  }

  /**
   * A factory for the senders: the plain broker URL, without failover. The failover transport keeps
   * a send that timed out for its caller and replays it after reconnecting, so an event the core
   * already retried or dead-lettered would arrive late, possibly twice. A plain connection fails
   * fast while the broker is down; the sender reconnects on its next send and the core's retry
   * policy decides what happens to the event. A URL the user gave as {@code failover:} is kept.
   */
  static ActiveMQConnectionFactory senderFactory(JmsChannelProperties properties) {
    return configure(new ActiveMQConnectionFactory(properties.brokerUrl()), properties);
  }

  private static ActiveMQConnectionFactory configure(ActiveMQConnectionFactory factory,
      JmsChannelProperties properties) {
    if (!properties.user().isEmpty()) {
      factory.setUserName(properties.user());
      factory.setPassword(properties.password());
    }
    int timeoutMs = (int) Math.min(Integer.MAX_VALUE, properties.sendTimeout().toMillis());
    factory.setSendTimeout(timeoutMs);
    factory.setConnectResponseTimeout(timeoutMs);
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
