package io.activityservice.channel.jms;

import io.activityservice.channel.OutboundEvent;
import io.activityservice.channel.support.DaemonThreads;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.activemq.ActiveMQMessageProducer;
import org.apache.activemq.AsyncCallback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sending side shared by all outbound channels of an adapter: a fixed number of senders, each a
 * thread with a bounded queue that owns one connection, one transacted session and one anonymous
 * producer (a producer that sends to any destination, so nothing is cached per channel). Callers
 * only enqueue; the connection is opened lazily on the sender's thread.
 *
 * <p><b>Batched transactions.</b> A sender takes what is queued (up to the batch size), sends it
 * all in one transaction without waiting for a receipt per message, commits once (the one broker
 * round trip of the batch; for persistent messages the broker stores the batch before it answers)
 * and then completes the futures on its own thread. If the commit fails, every future of the batch
 * fails, with one exception: when the broker refused a batch that went to several destinations (a
 * destination the broker refuses, e.g. not authorized, marks the whole transaction rollback-only),
 * the sender sends each destination's events again in a transaction of its own, so one bad
 * destination cannot fail the events of others. While a commit is under way new events queue up and
 * form the next batch: batches grow with the load, with no waiting at low rates. An event alone in
 * its batch is sent without a transaction, with a receipt ({@link AsyncCallback}): at low rates
 * that is dispatched sooner (see {@code sendAlone}).
 *
 * <p><b>Affinity.</b> Events with a partition key always go to the sender of their key (so they
 * reach the broker in send order; message groups promise order only for what arrives in order).
 * Other events go to the sender of the calling thread (each calling thread gets one, round robin,
 * on its first send), so the events one thread routes land in one queue and one transaction, and no
 * other sender is woken; if that queue is full the others are tried.
 *
 * <p><b>Send timeout.</b> Every future fails with a {@link TimeoutException} after the send timeout
 * at the latest, also while the broker is unreachable or a commit hangs: one deadline sweep per
 * pool, scheduled only while events are queued or in flight (no timer task per send, nothing while
 * idle). An event whose deadline passed while it was queued is not sent.
 *
 * <p>The message is built from the event's shared {@link JmsCloudEventCodec#BINARY} encoding (one
 * serialization per event, however many destinations it goes to), a new message object per send
 * (the connection does not copy it: {@code copyMessageOnSend=false}); a partition key becomes the
 * {@value #GROUP_ID} property (ActiveMQ message groups).
 */
final class JmsSenderPool implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(JmsSenderPool.class);

  /**
   * The JMS property of a message group: ActiveMQ delivers a group's messages to one consumer, in
   * order.
   */
  static final String GROUP_ID = "JMSXGroupID";

  private final Sender[] senders;
  private final AtomicInteger nextAffinity = new AtomicInteger();
  private final ThreadLocal<Integer> affinity;
  private final Duration sendTimeout;
  private final long sendTimeoutNanos;
  private final ScheduledThreadPoolExecutor sweeper;
  private final long sweepPeriodNanos;
  private final AtomicBoolean sweeping = new AtomicBoolean();
  private volatile boolean closed;

  JmsSenderPool(
      ConnectionFactory factory,
      JmsCloudEventCodec codec,
      int concurrency,
      int queueCapacity,
      int batchSize,
      Duration sendTimeout) {
    this.sendTimeout = sendTimeout;
    this.sendTimeoutNanos = sendTimeout.toNanos();
    this.senders = new Sender[concurrency];
    int perSender = Math.max(1, queueCapacity / concurrency);
    for (int i = 0; i < concurrency; i++) {
      senders[i] = new Sender(factory, codec, perSender, batchSize, "jms-sender-" + i);
    }
    this.affinity =
        ThreadLocal.withInitial(
            () -> Math.floorMod(nextAffinity.getAndIncrement(), senders.length));
    this.sweeper = new ScheduledThreadPoolExecutor(1, DaemonThreads.named("jms-send-deadlines"));
    sweeper.setRemoveOnCancelPolicy(true);
    // A deadline fails at most a quarter of the timeout late.
    this.sweepPeriodNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(50), sendTimeoutNanos / 4);
  }

  /**
   * Enqueues a send; the future completes when the broker has committed the message. Never throws.
   */
  CompletableFuture<Void> send(
      Destination destination, boolean persistent, OutboundEvent event, String channel) {
    CompletableFuture<Void> future = new CompletableFuture<>();
    if (closed) {
      future.completeExceptionally(
          new IllegalStateException(
              "the jms adapter is closed; event "
                  + event.event().getId()
                  + " to "
                  + channel
                  + " was not sent"));
      return future;
    }
    Pending pending =
        new Pending(
            destination, persistent, event, future, channel, System.nanoTime() + sendTimeoutNanos);
    String key = event.partitionKey();
    boolean queued;
    if (key != null) {
      queued = senders[Math.floorMod(key.hashCode(), senders.length)].offer(pending);
    } else {
      int start = affinity.get();
      queued = false;
      for (int i = 0; i < senders.length && !queued; i++) {
        queued = senders[(start + i) % senders.length].offer(pending);
      }
    }
    if (!queued) {
      future.completeExceptionally(
          new RejectedExecutionException(
              "jms send queue is full (activity.channels.jms.send-queue-capacity) or the adapter is closed; "
                  + "event "
                  + event.event().getId()
                  + " to "
                  + channel
                  + " was not sent"));
      return future;
    }
    armSweep();
    return future;
  }

  private void armSweep() {
    if (!sweeping.get() && sweeping.compareAndSet(false, true)) {
      try {
        sweeper.schedule(this::sweep, sweepPeriodNanos, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        sweeping.set(false); // closed: close() fails what is left
      }
    }
  }

  /** Fails what is past its deadline; runs again while anything is queued or in flight. */
  private void sweep() {
    long now = System.nanoTime();
    boolean busy = false;
    for (Sender s : senders) {
      busy |= s.expire(now);
    }
    if (busy) {
      try {
        sweeper.schedule(this::sweep, sweepPeriodNanos, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        sweeping.set(false);
      }
      return;
    }
    sweeping.set(false);
    // A send may have been queued after its sender was seen idle and before the flag was cleared.
    for (Sender s : senders) {
      if (s.busy()) {
        armSweep();
        return;
      }
    }
  }

  /** Sends what is queued (bounded by the send timeout), then closes the connections. */
  @Override
  public void close() {
    closed = true;
    for (Sender sender : senders) {
      sender.stop();
    }
    long deadline = System.nanoTime() + sendTimeout.plusSeconds(1).toNanos();
    for (Sender sender : senders) {
      sender.awaitAndClose(deadline);
    }
    sweeper.shutdownNow();
  }

  private TimeoutException timeout(Pending p) {
    return new TimeoutException(
        "the broker did not accept the event for "
            + p.channel()
            + " within "
            + sendTimeout
            + " (activity.channels.jms.send-timeout); is it reachable?");
  }

  private record Pending(
      Destination destination,
      boolean persistent,
      OutboundEvent event,
      CompletableFuture<Void> future,
      String channel,
      long deadline) {}

  /** Queued by close() to wake a sender waiting for work; never sent, never expires. */
  private static final Pending STOP =
      new Pending(null, false, null, new CompletableFuture<>(), "", Long.MAX_VALUE);

  /** One thread, one bounded queue, one connection/session/producer, used by that thread only. */
  private final class Sender implements Runnable {

    private final ConnectionFactory factory;
    private final JmsCloudEventCodec codec;
    private final ArrayBlockingQueue<Pending> queue;
    private final int batchSize;
    private final Thread thread;

    /** The batch being sent and committed, for the deadline sweep; null between batches. */
    private volatile List<Pending> inFlight;

    private volatile boolean stopping;
    private volatile boolean broken;
    // Used by the sender's thread only.
    private Connection connection;
    private Session session;
    private MessageProducer producer;

    /** A non-transacted session of the same connection, for an event that is alone in its batch. */
    private Session plainSession;

    private ActiveMQMessageProducer plainProducer;

    /** Events sent alone, whose receipt has not come yet (completed on the transport thread). */
    private final Set<Pending> awaitingReceipt = ConcurrentHashMap.newKeySet();

    Sender(
        ConnectionFactory factory,
        JmsCloudEventCodec codec,
        int capacity,
        int batchSize,
        String name) {
      this.factory = factory;
      this.codec = codec;
      this.queue = new ArrayBlockingQueue<>(capacity);
      this.batchSize = batchSize;
      this.thread = DaemonThreads.thread(name, this);
      thread.start();
    }

    boolean offer(Pending pending) {
      return !stopping && queue.offer(pending);
    }

    boolean busy() {
      return inFlight != null || !queue.isEmpty() || !awaitingReceipt.isEmpty();
    }

    /**
     * Fails the queued and in-flight events past their deadline; returns whether any event is still
     * pending.
     */
    boolean expire(long now) {
      List<Pending> batch = inFlight;
      if (batch != null) {
        for (Pending p : batch) {
          if (now - p.deadline() >= 0) {
            p.future().completeExceptionally(timeout(p));
          }
        }
      }
      for (Pending p : queue) {
        if (p != STOP && now - p.deadline() >= 0) {
          p.future().completeExceptionally(timeout(p));
        }
      }
      for (Pending p : awaitingReceipt) {
        if (now - p.deadline() >= 0) {
          p.future().completeExceptionally(timeout(p));
          awaitingReceipt.remove(p);
        }
      }
      return busy();
    }

    /**
     * Lets the thread send what is queued and end. No interrupt: it would break a commit under way.
     * If the queue is full, the thread is busy and ends once it finds the queue empty.
     */
    void stop() {
      stopping = true;
      queue.offer(STOP);
    }

    @Override
    public void run() {
      List<Pending> batch = new ArrayList<>(batchSize);
      while (true) {
        Pending first = queue.poll();
        if (first == null) {
          if (stopping) {
            break;
          }
          try {
            first = queue.take(); // idle: blocks until an event is queued (or close() queues STOP)
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            break; // not ours: nobody interrupts this thread
          }
        }
        batch.add(first);
        // Connect (if needed) before taking the rest: what queues up meanwhile joins this batch.
        Exception connectFailure = null;
        try {
          open();
        } catch (JMSException | RuntimeException e) {
          connectFailure = e;
        }
        queue.drainTo(batch, batchSize - 1);
        if (connectFailure == null) {
          sendBatch(batch);
        } else {
          for (Pending p : batch) {
            if (p != STOP) {
              p.future().completeExceptionally(connectFailure);
            }
          }
        }
        batch.clear();
      }
      closeConnection();
    }

    private void sendBatch(List<Pending> batch) {
      long now = System.nanoTime();
      List<Pending> live = new ArrayList<>(batch.size());
      for (Pending p : batch) {
        if (p == STOP || p.future().isDone()) {
          continue; // STOP: see stop(); done: timed out by the sweep, not sent late
        }
        if (now - p.deadline() >= 0) {
          p.future().completeExceptionally(timeout(p));
          continue;
        }
        live.add(p);
      }
      if (live.isEmpty()) {
        return;
      }
      if (live.size() == 1 && awaitingReceipt.size() < batchSize) {
        // Bounded: if receipts lag behind (a slow broker), single events go in (synchronous)
        // transactions too.
        sendAlone(live.get(0));
        return;
      }
      inFlight = live;
      try {
        JMSException refused = transact(live);
        if (refused != null && refusedByBroker(refused) && destinations(live) > 1) {
          LOG.debug(
              "a JMS transaction of {} events to several destinations was refused ({}); sending each"
                  + " destination's events on their own",
              live.size(),
              refused.toString());
          for (List<Pending> group : byDestination(live).values()) {
            JMSException failed = transact(group);
            if (failed != null) {
              fail(group, failed);
            }
          }
        } else if (refused != null) {
          fail(live, refused);
        }
      } finally {
        inFlight = null;
      }
    }

    /**
     * Sends the events in one transaction and commits it; completes their futures on success.
     *
     * @return null on success, else the failure (the connection is then closed: the broker rolls
     *     back what it did not commit, and the next batch reconnects)
     */
    private JMSException transact(List<Pending> events) {
      List<Pending> sent = new ArrayList<>(events.size());
      try {
        open();
        for (Pending p : events) {
          Message message;
          try {
            message =
                codec.toMessage(
                    session, p.event().encoded(JmsCloudEventCodec.wireFormat(p.event().format())));
            if (p.event().partitionKey() != null) {
              message.setStringProperty(GROUP_ID, p.event().partitionKey());
            }
          } catch (JMSException | RuntimeException e) {
            p.future().completeExceptionally(e); // this event cannot be encoded; the others go on
            continue;
          }
          int mode = p.persistent() ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT;
          // In a transaction, with no send timeout: written to the socket without waiting for a
          // receipt.
          producer.send(
              p.destination(),
              message,
              mode,
              Message.DEFAULT_PRIORITY,
              Message.DEFAULT_TIME_TO_LIVE);
          sent.add(p);
        }
        if (sent.isEmpty()) {
          return null; // nothing was sent, so no transaction was begun
        }
        session.commit();
      } catch (JMSException e) {
        closeConnection();
        return e;
      } catch (RuntimeException e) {
        closeConnection();
        return wrap(e);
      }
      for (Pending p : sent) {
        p.future().complete(null);
      }
      return null;
    }

    /**
     * An event alone in its batch (low rates) goes without a transaction, with a receipt: a
     * committed transaction is dispatched only after the broker synced it to disk, while a plain
     * persistent send is dispatched while it is being stored (KahaDB's concurrent store and
     * dispatch). A receipt per event costs more than a commit per batch, but only when events come
     * one at a time. The order per partition key holds: the next batch of this sender is written to
     * the same connection after this message.
     */
    private void sendAlone(Pending p) {
      Message message;
      try {
        open();
        message =
            codec.toMessage(
                plainSession, p.event().encoded(JmsCloudEventCodec.wireFormat(p.event().format())));
        if (p.event().partitionKey() != null) {
          message.setStringProperty(GROUP_ID, p.event().partitionKey());
        }
      } catch (JMSException | RuntimeException e) {
        p.future().completeExceptionally(e);
        if (!(e instanceof RuntimeException)) {
          closeConnection();
        }
        return;
      }
      awaitingReceipt.add(p);
      try {
        int mode = p.persistent() ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT;
        plainProducer.send(
            p.destination(),
            message,
            mode,
            Message.DEFAULT_PRIORITY,
            Message.DEFAULT_TIME_TO_LIVE,
            new AsyncCallback() {
              @Override
              public void onSuccess() {
                awaitingReceipt.remove(p);
                p.future().complete(null);
              }

              @Override
              public void onException(JMSException e) {
                awaitingReceipt.remove(p);
                p.future().completeExceptionally(e);
              }
            });
      } catch (JMSException | RuntimeException e) {
        awaitingReceipt.remove(p);
        p.future().completeExceptionally(e);
        closeConnection();
      }
    }

    private void fail(List<Pending> events, Exception error) {
      for (Pending p : events) {
        p.future().completeExceptionally(error);
      }
    }

    private void open() throws JMSException {
      if (broken) {
        LOG.warn("JMS sender connection lost; reconnecting");
        closeConnection();
      }
      if (producer != null) {
        return;
      }
      broken = false;
      Connection c = factory.createConnection();
      try {
        c.setExceptionListener(e -> broken = true);
        c.start();
        Session s = c.createSession(true, Session.SESSION_TRANSACTED);
        MessageProducer txProducer = s.createProducer(null);
        Session plain = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
        plainProducer = (ActiveMQMessageProducer) plain.createProducer(null);
        plainSession = plain;
        producer = txProducer;
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
      plainSession = null;
      plainProducer = null;
      if (c != null) {
        closeQuietly(
            c); // a receipt still awaited fails with the connection: its callback completes the
        // future
      }
    }

    /** Waits for the thread to send what is queued; past the deadline fails what is left. */
    void awaitAndClose(long deadline) {
      try {
        thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      IllegalStateException closedError =
          new IllegalStateException("the jms adapter was closed before the event was sent");
      Pending p;
      while ((p = queue.poll()) != null) {
        p.future().completeExceptionally(closedError);
      }
      List<Pending> batch = inFlight;
      if (batch != null) {
        fail(batch, closedError);
      }
      for (Pending awaiting : awaitingReceipt) {
        awaiting.future().completeExceptionally(closedError);
      }
      awaitingReceipt.clear();
    }
  }

  /**
   * Whether the broker answered with a refusal (the connection works), as opposed to a broken
   * connection, where sending again could duplicate a commit whose answer was lost.
   */
  private static boolean refusedByBroker(JMSException e) {
    if (e instanceof org.apache.activemq.ConnectionClosedException
        || e instanceof org.apache.activemq.ConnectionFailedException) {
      return false;
    }
    Throwable t = e;
    for (int depth = 0; t != null && depth < 10; depth++) {
      if (t instanceof java.io.IOException) {
        return false;
      }
      t =
          t.getCause() != null
              ? t.getCause()
              : t instanceof JMSException j ? j.getLinkedException() : null;
    }
    return true;
  }

  private static int destinations(List<Pending> events) {
    Destination first = events.get(0).destination();
    for (Pending p : events) {
      if (!p.destination().equals(first)) {
        return 2;
      }
    }
    return 1;
  }

  private static Map<Destination, List<Pending>> byDestination(List<Pending> events) {
    Map<Destination, List<Pending>> groups = new LinkedHashMap<>();
    for (Pending p : events) {
      groups.computeIfAbsent(p.destination(), d -> new ArrayList<>()).add(p);
    }
    return groups;
  }

  private static JMSException wrap(RuntimeException e) {
    JMSException jms = new JMSException(e.toString());
    jms.setLinkedException(e);
    jms.initCause(e);
    return jms;
  }

  static void closeQuietly(Connection connection) {
    try {
      connection.close();
    } catch (JMSException | RuntimeException e) {
      LOG.debug("closing a JMS connection failed: {}", e.toString());
    }
  }
}
