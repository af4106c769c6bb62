package io.activityservice.channel.jms;

import io.activityservice.channel.jms.embedded.EmbeddedActiveMqBroker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.apache.activemq.broker.Broker;
import org.apache.activemq.broker.BrokerPlugin;
import org.apache.activemq.broker.BrokerPluginSupport;
import org.apache.activemq.broker.BrokerService;
import org.apache.activemq.broker.ConnectionContext;
import org.apache.activemq.broker.ConsumerBrokerExchange;
import org.apache.activemq.broker.ProducerBrokerExchange;
import org.apache.activemq.broker.region.DestinationInterceptor;
import org.apache.activemq.command.ConnectionInfo;
import org.apache.activemq.command.Message;
import org.apache.activemq.command.MessageAck;
import org.apache.activemq.command.TransactionId;

/**
 * A real in-memory ActiveMQ broker on a free port whose plugin counts what the clients do: every
 * transaction committed or rolled back with the sends and consumed acknowledgements it carried, and
 * every acknowledgement and send outside a transaction. Tests can make it fail or delay a commit,
 * delay a new connection, and refuse sends to some destinations, the way a broker refuses them
 * (e.g. not authorized).
 */
final class CountingBroker implements AutoCloseable {

  /**
   * What one transaction carried when it ended: sends, messages acknowledged (consumed), and the
   * acknowledgement commands that carried them.
   */
  record Tx(int sends, int acked, int ackCommands, List<String> eventIds, boolean committed) {
    boolean consumer() {
      return acked > 0 && sends == 0;
    }

    boolean producer() {
      return sends > 0 && acked == 0;
    }
  }

  /** Decides what a commit does: return a failure to throw, or null; may sleep. */
  interface CommitHook {
    Exception beforeCommit(int sends, int acked) throws InterruptedException;
  }

  private final BrokerService broker;
  private final String url;
  private final Map<TransactionId, Open> open = new ConcurrentHashMap<>();
  private final List<Tx> ended = new CopyOnWriteArrayList<>();
  private final AtomicInteger acksOutsideTransactions = new AtomicInteger();
  private final AtomicInteger sendsOutsideTransactions = new AtomicInteger();
  private volatile long nextConnectionDelayMillis;
  private volatile CommitHook commitHook = (sends, acked) -> null;
  private volatile Predicate<String> refusedDestinations = name -> false;

  private static final class Open {
    final AtomicInteger sends = new AtomicInteger();
    final AtomicInteger acked = new AtomicInteger();
    final AtomicInteger ackCommands = new AtomicInteger();
    final List<String> eventIds = new CopyOnWriteArrayList<>();
  }

  CountingBroker() {
    try {
      broker = new BrokerService();
      broker.setBrokerName("counting-" + System.nanoTime());
      broker.setPersistent(false);
      broker.setUseJmx(false);
      broker.setAdvisorySupport(false);
      broker.setUseShutdownHook(false);
      broker.setDataDirectoryFile(TestBrokers.tempDir());
      broker.setDestinationInterceptors(
          new DestinationInterceptor[] {EmbeddedActiveMqBroker.virtualTopics()});
      broker.setPlugins(new BrokerPlugin[] {this::counting});
      var connector = broker.addConnector("tcp://127.0.0.1:0");
      broker.start();
      broker.waitUntilStarted();
      url = "tcp://127.0.0.1:" + connector.getConnectUri().getPort();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private Broker counting(Broker downstream) {
    return new BrokerPluginSupport() {
      {
        setNext(downstream);
      }

      @Override
      public void send(ProducerBrokerExchange exchange, Message message) throws Exception {
        String destination = message.getDestination().getPhysicalName();
        if (refusedDestinations.test(destination)) {
          throw new SecurityException("refused by the test broker: " + destination);
        }
        if (message.getTransactionId() == null) {
          sendsOutsideTransactions.incrementAndGet();
        } else {
          Open tx = open.computeIfAbsent(message.getTransactionId(), k -> new Open());
          tx.sends.incrementAndGet();
          Object id = message.getProperty(JmsCloudEventCodec.PREFIX + "id");
          if (id != null) {
            tx.eventIds.add(id.toString());
          }
        }
        super.send(exchange, message);
      }

      @Override
      public void addConnection(ConnectionContext context, ConnectionInfo info) throws Exception {
        long delay = nextConnectionDelayMillis;
        if (delay > 0) {
          nextConnectionDelayMillis = 0;
          Thread.sleep(
              delay); // the client waits for this answer: whatever it sends meanwhile queues up
        }
        super.addConnection(context, info);
      }

      @Override
      public void acknowledge(ConsumerBrokerExchange exchange, MessageAck ack) throws Exception {
        if (ack.isStandardAck() || ack.isIndividualAck()) {
          if (ack.getTransactionId() != null) {
            Open tx = open.computeIfAbsent(ack.getTransactionId(), k -> new Open());
            tx.acked.addAndGet(ack.getMessageCount());
            tx.ackCommands.incrementAndGet();
          } else {
            acksOutsideTransactions.incrementAndGet();
          }
        }
        super.acknowledge(exchange, ack);
      }

      @Override
      public void commitTransaction(ConnectionContext context, TransactionId xid, boolean onePhase)
          throws Exception {
        Open tx = open.remove(xid);
        int sends = tx == null ? 0 : tx.sends.get();
        int acked = tx == null ? 0 : tx.acked.get();
        int ackCommands = tx == null ? 0 : tx.ackCommands.get();
        Exception failure = commitHook.beforeCommit(sends, acked);
        if (failure != null) {
          ended.add(
              new Tx(
                  sends,
                  acked,
                  ackCommands,
                  tx == null ? List.of() : List.copyOf(tx.eventIds),
                  false));
          throw failure;
        }
        List<String> ids = tx == null ? List.of() : List.copyOf(tx.eventIds);
        try {
          super.commitTransaction(context, xid, onePhase);
        } catch (Exception e) { // e.g. rollback-only after a refused send
          ended.add(new Tx(sends, acked, ackCommands, ids, false));
          throw e;
        }
        ended.add(new Tx(sends, acked, ackCommands, ids, true));
      }

      @Override
      public void rollbackTransaction(ConnectionContext context, TransactionId xid)
          throws Exception {
        Open tx = open.remove(xid);
        if (tx != null) {
          ended.add(
              new Tx(
                  tx.sends.get(),
                  tx.acked.get(),
                  tx.ackCommands.get(),
                  List.copyOf(tx.eventIds),
                  false));
        }
        super.rollbackTransaction(context, xid);
      }
    };
  }

  String url() {
    return url;
  }

  void onCommit(CommitHook hook) {
    this.commitHook = hook;
  }

  void refuseSendsTo(Predicate<String> destinations) {
    this.refusedDestinations = destinations;
  }

  /** Transactions that ended (committed, failed or rolled back), in order. */
  List<Tx> transactions() {
    return new ArrayList<>(ended);
  }

  List<Tx> committed(Predicate<Tx> which) {
    return ended.stream().filter(Tx::committed).filter(which).toList();
  }

  int acksOutsideTransactions() {
    return acksOutsideTransactions.get();
  }

  int sendsOutsideTransactions() {
    return sendsOutsideTransactions.get();
  }

  /**
   * The next client connection is answered only after {@code delay} (e.g. to let a sender's queue
   * fill up).
   */
  void delayNextConnection(java.time.Duration delay) {
    this.nextConnectionDelayMillis = delay.toMillis();
  }

  void reset() {
    ended.clear();
    acksOutsideTransactions.set(0);
    sendsOutsideTransactions.set(0);
    nextConnectionDelayMillis = 0;
    commitHook = (sends, acked) -> null;
    refusedDestinations = name -> false;
  }

  @Override
  public void close() {
    try {
      broker.stop();
      broker.waitUntilStopped();
    } catch (Exception e) {
      // best effort in tests
    }
  }
}
