package io.activityservice.channel.jms;

import io.activityservice.channel.RedeliverySettings;
import java.time.Duration;
import org.apache.activemq.ActiveMQConnectionFactory;
import org.apache.activemq.RedeliveryPolicy;

/** Builds the ActiveMQ connection factories every connection of the adapter comes from. */
final class JmsConnections {

  private JmsConnections() {}

  /**
   * The factory of the inbound channels, for {@code properties.brokerUrl()}, made resilient:
   * failover transport (reconnects on its own, restores sessions and consumers), no client-side
   * duplicate suppression, never a poison ack (a message must never go to the DLQ because the
   * client library counted redeliveries: the service decides). Messages go from the transport
   * thread straight into the consumer's buffer ({@code alwaysSessionAsync=false}: no session thread
   * in between; the channel's own thread takes them with {@code receive}). If the client rolls a
   * transaction back itself (a failover while a batch was open), the batch comes again after the
   * {@code redelivery} backoff.
   *
   * <p>Not {@code nonBlockingRedelivery}: in ActiveMQ 6.1 it turns on {@code
   * transactedIndividualAck} for every consumer, which writes an acknowledgement per received
   * message into the transaction, the very cost the batches remove (JmsTransactionBatchingTest
   * counts one acknowledgement command per batch). A client-side rollback is rare (a failover
   * during a batch); it then pauses that one session for the backoff, the channel's other sessions
   * go on.
   */
  static ActiveMQConnectionFactory factory(JmsChannelProperties properties) {
    ActiveMQConnectionFactory factory =
        configure(
            new ActiveMQConnectionFactory(
                failoverUrl(
                    properties.brokerUrl(), properties.sendTimeout(), properties.reconnectDelay())),
            properties);
    factory.setAlwaysSessionAsync(false);
    factory.setNonBlockingRedelivery(false);
    factory.setTransactedIndividualAck(false);
    factory.setRedeliveryPolicy(redeliveryPolicy(properties.redelivery()));
    return factory;
  }

  /**
   * The factory of the senders: the plain broker URL, without failover. The failover transport
   * keeps a send that timed out for its caller and replays it after reconnecting, so an event the
   * core already retried or dead-lettered would arrive late, possibly twice. A plain connection
   * fails fast while the broker is down; the sender reconnects on its next batch and the core's
   * retry policy decides what happens to the event. A URL the user gave as {@code failover:} is
   * kept.
   *
   * <p>Senders send in transactions: {@code sendTimeout} 0 lets a transacted send go without
   * waiting for a receipt (the commit is the one round trip of a batch; the sender pool enforces
   * the send timeout itself), and {@code copyMessageOnSend=false} sends the message object itself
   * (each send builds a new one, never reused).
   */
  static ActiveMQConnectionFactory senderFactory(JmsChannelProperties properties) {
    ActiveMQConnectionFactory factory =
        configure(new ActiveMQConnectionFactory(properties.brokerUrl()), properties);
    factory.setSendTimeout(0);
    factory.setCopyMessageOnSend(false);
    return factory;
  }

  private static ActiveMQConnectionFactory configure(
      ActiveMQConnectionFactory factory, JmsChannelProperties properties) {
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
   * ActiveMQ's client-side redelivery after a rollback it makes itself, with the adapter's backoff
   * ({@code initial}, doubling up to {@code max}) and no maximum: never a poison ack to the DLQ.
   */
  static RedeliveryPolicy redeliveryPolicy(RedeliverySettings settings) {
    RedeliveryPolicy policy = new RedeliveryPolicy();
    policy.setMaximumRedeliveries(RedeliveryPolicy.NO_MAXIMUM_REDELIVERIES);
    policy.setInitialRedeliveryDelay(settings.initial().toMillis());
    policy.setRedeliveryDelay(settings.initial().toMillis());
    policy.setUseExponentialBackOff(true);
    policy.setBackOffMultiplier(2);
    policy.setMaximumRedeliveryDelay(settings.max().toMillis());
    policy.setUseCollisionAvoidance(settings.jitter());
    return policy;
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
    return "failover:("
        + brokerUrl
        + ")?timeout="
        + sendTimeout.toMillis()
        + "&initialReconnectDelay=100&maxReconnectDelay="
        + reconnectDelay.toMillis()
        + "&startupMaxReconnectAttempts=-1&maxReconnectAttempts=-1";
  }
}
