package io.activityservice.channel.jms;

import io.activityservice.channel.ChannelAdapter;
import io.activityservice.channel.ChannelAdapterContract;
import io.activityservice.channel.ChannelUri;
import java.util.concurrent.atomic.AtomicInteger;
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
    adapter = new JmsChannelAdapter(JmsChannelProperties.forBroker(TestBrokers.tcpUrl(broker))
        .withRedelivery(CONTRACT_REDELIVERY));
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
    return ChannelUri.parse("jms:" + kind() + ":contract." + kind() + "." + names.incrementAndGet());
  }

  @Override
  protected ChannelUri invalidChannel() {
    return ChannelUri.parse("jms:" + kind() + ":");
  }
}
