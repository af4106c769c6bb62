package io.activityservice.channel.jms;

import io.activityservice.channel.OutboundEvent;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.activemq.ActiveMQMessageProducer;
import org.apache.activemq.AsyncCallback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sending side shared by all outbound channels of an adapter: a fixed number of senders, each
 * a thread with a bounded queue that owns one connection, one session and one anonymous producer
 * (a producer that sends to any destination, so nothing is cached per channel). Callers only
 * enqueue; the connection is opened lazily on the sender's thread.
 *
 * <p>Events are sent asynchronously with an ActiveMQ {@link AsyncCallback} that fires on the broker's
 * receipt (ActiveMQ 6.1 does not implement the JMS 2.0 {@code CompletionListener}); for persistent
 * events that receipt comes after the broker stored the message. Every future fails after the send
 * timeout at the latest, also while the broker is unreachable.
 *
 * <p>The message is built from the event's shared {@link JmsCloudEventCodec#BINARY} encoding (one
 * serialization per event, however many destinations it goes to); a partition key becomes the
 * {@value #GROUP_ID} property (ActiveMQ message groups).
 */
final class JmsSenderPool implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(JmsSenderPool.class);
  /** The JMS property of a message group: ActiveMQ delivers a group's messages to one consumer, in order. */
  static final String GROUP_ID = "JMSXGroupID";

  private final Sender[] senders;
  private final AtomicInteger next = new AtomicInteger();
  private final Duration sendTimeout;
  private final ScheduledThreadPoolExecutor timer;

  JmsSenderPool(ConnectionFactory factory, JmsCloudEventCodec codec, int concurrency, int queueCapacity,
      Duration sendTimeout) {
    this.sendTimeout = sendTimeout;
    this.senders = new Sender[concurrency];
    int perSender = Math.max(1, queueCapacity / concurrency);
    for (int i = 0; i < concurrency; i++) {
      senders[i] = new Sender(factory, codec, perSender, "jms-sender-" + i);
    }
    this.timer = new ScheduledThreadPoolExecutor(1, r -> daemon(r, "jms-send-timeout"));
    timer.setRemoveOnCancelPolicy(true);
  }

  /** Enqueues a send; the future completes when the broker has accepted the message. */
  CompletableFuture<Void> send(Destination destination, boolean persistent, OutboundEvent event, String channel) {
    CompletableFuture<Void> future = new CompletableFuture<>();
    Pending pending = new Pending(destination, persistent, event, future);
    String key = event.partitionKey();
    // Events with one partition key always go through the same sender session, so they reach the broker in the
    // order they were sent (message groups promise order per group only for what arrives in order).
    int start = key != null ? Math.floorMod(key.hashCode(), senders.length)
        : Math.floorMod(next.getAndIncrement(), senders.length);
    int tries = key != null ? 1 : senders.length;
    for (int i = 0; i < tries; i++) {
      if (senders[(start + i) % senders.length].offer(pending)) {
        guard(future, channel);
        return future;
      }
    }
    future.completeExceptionally(new RejectedExecutionException(
        "jms send queue is full (activity.channels.jms.send-queue-capacity) or the adapter is closed; "
            + "event " + event.event().getId() + " to " + channel + " was not sent"));
    return future;
  }

  private void guard(CompletableFuture<Void> future, String channel) {
    try {
      ScheduledFuture<?> timeout = timer.schedule(() -> future.completeExceptionally(new TimeoutException(
          "the broker did not accept the event for " + channel + " within " + sendTimeout
              + " (activity.channels.jms.send-timeout); is it reachable?")),
          sendTimeout.toMillis(), TimeUnit.MILLISECONDS);
      future.whenComplete((ok, error) -> timeout.cancel(false));
    } catch (RejectedExecutionException e) {
      future.completeExceptionally(e);
    }
  }

  /** Sends what is queued (bounded by the send timeout), then closes the connections. */
  @Override
  public void close() {
    for (Sender sender : senders) {
      sender.executor.shutdown();
    }
    for (Sender sender : senders) {
      sender.awaitAndClose(sendTimeout.plusSeconds(1));
    }
    timer.shutdownNow();
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  private record Pending(Destination destination, boolean persistent, OutboundEvent event,
      CompletableFuture<Void> future) {
  }

  /** One thread, one bounded queue, one connection/session/producer, used by that thread only. */
  private static final class Sender {

    private final ConnectionFactory factory;
    private final JmsCloudEventCodec codec;
    private final ThreadPoolExecutor executor;
    private Connection connection;
    private Session session;
    private MessageProducer producer;
    private volatile boolean broken;

    Sender(ConnectionFactory factory, JmsCloudEventCodec codec, int capacity, String name) {
      this.factory = factory;
      this.codec = codec;
      this.executor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
          new ArrayBlockingQueue<>(capacity), r -> daemon(r, name));
    }

    boolean offer(Pending pending) {
      try {
        executor.execute(new Task(this, pending));
        return true;
      } catch (RejectedExecutionException e) {
        return false;
      }
    }

    void send(Pending p) {
      if (p.future().isDone()) {
        return; // timed out while queued: do not send late
      }
      try {
        open();
        Message message = codec.toMessage(session, p.event().encoded(JmsCloudEventCodec.BINARY));
        if (p.event().partitionKey() != null) {
          message.setStringProperty(GROUP_ID, p.event().partitionKey());
        }
        // Both modes: an asynchronous send whose callback fires on the broker's receipt. For persistent
        // messages the broker answers only after storing the message, so the guarantee equals a
        // synchronous send, while many sends are in flight per session instead of one store round trip each.
        int mode = p.persistent() ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT;
        ((ActiveMQMessageProducer) producer).send(p.destination(), message, mode, Message.DEFAULT_PRIORITY,
            Message.DEFAULT_TIME_TO_LIVE, new AsyncCallback() {
              @Override
              public void onSuccess() {
                p.future().complete(null);
              }

              @Override
              public void onException(JMSException e) {
                p.future().completeExceptionally(e);
              }
            });
      } catch (JMSException | RuntimeException e) {
        p.future().completeExceptionally(e);
        if (broken || e instanceof jakarta.jms.IllegalStateException) {
          LOG.warn("JMS sender connection lost ({}); reconnecting on the next send", e.toString());
          closeConnection();
        }
      }
    }

    private void open() throws JMSException {
      if (producer != null) {
        return;
      }
      broken = false;
      Connection c = factory.createConnection();
      try {
        c.setExceptionListener(e -> broken = true);
        c.start();
        Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
        producer = s.createProducer(null);
        session = s;
        connection = c;
      } catch (JMSException | RuntimeException e) {
        producer = null;
        closeQuietly(c);
        throw e;
      }
    }

    private void closeConnection() {
      Connection c = connection;
      connection = null;
      session = null;
      producer = null;
      if (c != null) {
        closeQuietly(c);
      }
    }

    void awaitAndClose(Duration wait) {
      try {
        if (!executor.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS)) {
          failAll(executor.shutdownNow());
          executor.awaitTermination(1, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        failAll(executor.shutdownNow());
        Thread.currentThread().interrupt();
      }
      closeConnection();
    }

    private static void failAll(List<Runnable> tasks) {
      for (Runnable r : tasks) {
        if (r instanceof Task t) {
          t.pending().future().completeExceptionally(
              new IllegalStateException("the jms adapter was closed before the event was sent"));
        }
      }
    }
  }

  private record Task(Sender sender, Pending pending) implements Runnable {
    @Override
    public void run() {
      sender.send(pending);
    }
  }

  static void closeQuietly(Connection connection) {
    try {
      connection.close();
    } catch (JMSException | RuntimeException e) {
      LOG.debug("closing a JMS connection failed: {}", e.toString());
    }
  }
}
