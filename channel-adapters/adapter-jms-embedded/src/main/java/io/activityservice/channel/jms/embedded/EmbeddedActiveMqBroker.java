package io.activityservice.channel.jms.embedded;

import io.activityservice.channel.support.EmbeddedServer;
import java.io.File;
import java.net.URI;
import org.apache.activemq.broker.BrokerService;
import org.apache.activemq.broker.TransportConnector;
import org.apache.activemq.broker.region.DestinationInterceptor;
import org.apache.activemq.broker.region.virtual.VirtualDestination;
import org.apache.activemq.broker.region.virtual.VirtualDestinationInterceptor;
import org.apache.activemq.broker.region.virtual.VirtualTopic;
import org.apache.activemq.store.kahadb.KahaDBPersistenceAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An in-process ActiveMQ Classic broker with one TCP connector, for single-node installations,
 * demos and tests. JMX and advisory messages are off; every topic is a virtual topic (consumer
 * queues {@code Consumer.<subscription>.<topic>}, as the jms adapter expects) so that inbound topic
 * channels can share durable subscriptions.
 */
public final class EmbeddedActiveMqBroker implements EmbeddedServer {

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedActiveMqBroker.class);

  private final BrokerService broker;
  private final URI connectUri;

  private EmbeddedActiveMqBroker(BrokerService broker, URI connectUri) {
    this.broker = broker;
    this.connectUri = connectUri;
  }

  /**
   * Starts a broker and waits until it accepts connections.
   *
   * @param host address to bind, e.g. {@code 127.0.0.1}
   * @param port TCP port; 0 picks a free one (see {@link #connectUri()})
   * @param dataDir directory for the KahaDB store and temporary files
   * @param persistent whether to store messages in KahaDB (else in memory only)
   * @throws IllegalStateException if the broker cannot start (e.g. the port is taken)
   */
  public static EmbeddedActiveMqBroker start(
      String host, int port, File dataDir, boolean persistent) {
    BrokerService broker = new BrokerService();
    try {
      broker.setBrokerName("activity-service-" + host.replace(':', '_') + "-" + port);
      broker.setUseJmx(false);
      broker.setUseShutdownHook(false);
      broker.setAdvisorySupport(false);
      broker.setSchedulerSupport(false);
      broker.setDataDirectoryFile(dataDir);
      broker.setPersistent(persistent);
      if (persistent) {
        KahaDBPersistenceAdapter kahaDb = new KahaDBPersistenceAdapter();
        kahaDb.setDirectory(new File(dataDir, "kahadb"));
        broker.setPersistenceAdapter(kahaDb);
      }
      broker.setDestinationInterceptors(new DestinationInterceptor[] {virtualTopics()});
      TransportConnector connector = broker.addConnector("tcp://" + uriHost(host) + ":" + port);
      broker.start();
      broker.waitUntilStarted();
      String reachable = host.equals("0.0.0.0") || host.equals("::") ? "127.0.0.1" : host;
      URI uri =
          URI.create("tcp://" + uriHost(reachable) + ":" + connector.getConnectUri().getPort());
      LOG.info(
          "Embedded ActiveMQ broker listening on {} (store: {})",
          uri,
          persistent ? new File(dataDir, "kahadb").getAbsolutePath() : "memory");
      return new EmbeddedActiveMqBroker(broker, uri);
    } catch (Exception e) {
      stopQuietly(broker);
      throw new IllegalStateException(
          "could not start the embedded ActiveMQ broker on "
              + host
              + ":"
              + port
              + " (is the port taken? set activity.channels.jms.embedded-broker.port, or broker-url to use"
              + " an external broker): "
              + e.getMessage(),
          e);
    }
  }

  private static String uriHost(String host) {
    return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
  }

  /** Where clients connect, e.g. {@code tcp://127.0.0.1:61616}, with the actual port. */
  public URI connectUri() {
    return connectUri;
  }

  /** {@code "jms"}. */
  @Override
  public String transport() {
    return "jms";
  }

  /** The same as {@link #connectUri()}. */
  @Override
  public URI endpoint() {
    return connectUri;
  }

  /** The TCP port the broker listens on. */
  public int port() {
    return connectUri.getPort();
  }

  /** Stops the broker and waits for it. Never throws. */
  @Override
  public void close() {
    stopQuietly(broker);
  }

  /**
   * Every topic ({@code >}) as a virtual topic: the broker copies each message published to topic
   * {@code T} into every queue {@code Consumer.<subscription>.T} (see the jms adapter's README for
   * the same setting on an external broker).
   */
  public static DestinationInterceptor virtualTopics() {
    VirtualTopic all = new VirtualTopic();
    all.setName(">");
    all.setPrefix("Consumer.*.");
    all.setSelectorAware(false);
    VirtualDestinationInterceptor interceptor = new VirtualDestinationInterceptor();
    interceptor.setVirtualDestinations(new VirtualDestination[] {all});
    return interceptor;
  }

  private static void stopQuietly(BrokerService broker) {
    try {
      broker.stop();
      broker.waitUntilStopped();
    } catch (Exception e) {
      LOG.warn("Stopping the embedded ActiveMQ broker failed: {}", e.toString());
    }
  }
}
