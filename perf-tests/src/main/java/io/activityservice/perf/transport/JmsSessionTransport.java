package io.activityservice.perf.transport;

import io.activityservice.channel.jms.JmsCloudEventCodec;
import io.cloudevents.CloudEvent;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.activemq.ActiveMQConnectionFactory;

/**
 * Plain JMS producers and consumers on ActiveMQ queues with a chosen delivery mode and transaction
 * shape (SPECjms2007's message groups), where {@link AdapterTransport} always uses the adapter's
 * settings. Events travel in the CloudEvents binary mode of the service's own codec.
 */
public final class JmsSessionTransport {

  private static final JmsCloudEventCodec CODEC = new JmsCloudEventCodec();

  private JmsSessionTransport() {}

  /**
   * A sender to the queue {@code queue}: {@code persistent} or not, and when {@code transacted} in
   * a transacted session committed after every message. One connection and session per sender;
   * sends run on the sender's own thread (a session is single-threaded) so that the caller never
   * waits for the broker.
   */
  public static EventSender sender(
      String brokerUrl, String queue, boolean persistent, boolean transacted) throws JMSException {
    Connection c = new ActiveMQConnectionFactory(brokerUrl).createConnection();
    try {
      c.start();
      Session s =
          transacted
              ? c.createSession(true, Session.SESSION_TRANSACTED)
              : c.createSession(false, Session.AUTO_ACKNOWLEDGE);
      MessageProducer p = s.createProducer(s.createQueue(queue));
      p.setDeliveryMode(persistent ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT);
      ExecutorService thread =
          Executors.newSingleThreadExecutor(
              r -> {
                Thread t = new Thread(r, "perf-jms-send-" + queue);
                t.setDaemon(true);
                return t;
              });
      return new EventSender() {
        @Override
        public CompletableFuture<Void> send(CloudEvent event) {
          return CompletableFuture.runAsync(
              () -> {
                try {
                  p.send(CODEC.encode(s, event));
                  if (transacted) {
                    s.commit();
                  }
                } catch (JMSException e) {
                  throw new IllegalStateException("JMS send to " + queue + " failed", e);
                }
              },
              thread);
        }

        @Override
        public void close() {
          thread.shutdown();
          try {
            thread.awaitTermination(10, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          closeQuietly(c);
        }
      };
    } catch (JMSException | RuntimeException e) {
      closeQuietly(c);
      throw e;
    }
  }

  /**
   * Consumes the queue {@code queue}; when {@code transacted}, in a transacted session committed
   * after every message, else acknowledged on receipt. Returns once the consumer is in place.
   */
  public static Listener listen(
      String brokerUrl, String queue, boolean transacted, ReceiveHandler handler)
      throws JMSException {
    Connection c = new ActiveMQConnectionFactory(brokerUrl).createConnection();
    try {
      Session s =
          transacted
              ? c.createSession(true, Session.SESSION_TRANSACTED)
              : c.createSession(false, Session.AUTO_ACKNOWLEDGE);
      MessageConsumer consumer = s.createConsumer(s.createQueue(queue));
      consumer.setMessageListener(
          m -> {
            long now = System.nanoTime();
            try {
              String id = m.getStringProperty(JmsCloudEventCodec.PREFIX + "id");
              if (transacted) {
                s.commit();
              }
              if (id != null) {
                handler.received(id, now);
              }
            } catch (JMSException e) {
              // not committed: the broker redelivers it, the driver counts it once
            }
          });
      c.start();
      return () -> closeQuietly(c);
    } catch (JMSException | RuntimeException e) {
      closeQuietly(c);
      throw e;
    }
  }

  private static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (JMSException e) {
      // closing anyway
    }
  }
}
