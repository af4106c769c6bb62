package io.activityservice.channel.jms;

import io.activityservice.channel.ChannelAdapter;
import io.activityservice.channel.ChannelAdapterContract;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.jms.embedded.EmbeddedActiveMqBroker;
import jakarta.jms.Connection;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.activemq.ActiveMQConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The shared adapter contract on one JMS destination kind, against a real broker over TCP. */
abstract class AbstractJmsContractTest extends ChannelAdapterContract {

  private static final AtomicInteger names = new AtomicInteger();
  private static EmbeddedActiveMqBroker broker;
  private static JmsChannelAdapter adapter;

  /** {@code queue} or {@code topic}. */
  abstract String kind();

  @BeforeAll
  static void start() {
    broker = TestBrokers.inMemory();
    adapter =
        new JmsChannelAdapter(
            JmsChannelProperties.builder()
                .brokerUrl(TestBrokers.tcpUrl(broker))
                .redelivery(CONTRACT_REDELIVERY)
                .build());
  }

  @AfterAll
  static void stop() {
    adapter.close();
    broker.close();
  }

  @Override
  protected ChannelAdapter adapter() {
    return adapter;
  }

  @Override
  protected ChannelUri freshChannel() {
    return ChannelUri.parse(
        "jms:" + kind() + ":contract." + kind() + "." + names.incrementAndGet());
  }

  /** A plain text message from a plain ActiveMQ client, without any CloudEvents property. */
  @Override
  protected String sendPlain(ChannelUri uri, byte[] body) throws Exception {
    JmsAddress address = JmsAddress.parse(uri);
    try (Connection connection =
            new ActiveMQConnectionFactory(TestBrokers.tcpUrl(broker)).createConnection();
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = session.createProducer(address.destination())) {
      TextMessage message = session.createTextMessage(new String(body, StandardCharsets.UTF_8));
      producer.send(message);
      return message.getJMSMessageID();
    }
  }

  @Override
  protected ChannelUri invalidChannel() {
    return ChannelUri.parse("jms:" + kind() + ":");
  }
}
