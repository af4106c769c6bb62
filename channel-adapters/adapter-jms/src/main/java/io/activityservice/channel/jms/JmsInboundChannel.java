package io.activityservice.channel.jms;

import io.activityservice.channel.Acknowledgement;
import io.activityservice.channel.Backoff;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundHandler;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OnceOnlyAcknowledgement;
import io.activityservice.channel.support.DaemonThreads;
import io.cloudevents.CloudEvent;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.Session;
import jakarta.jms.TransactionRolledBackException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.activemq.ActiveMQConnection;
import org.apache.activemq.ActiveMQConnectionFactory;
import org.apache.activemq.ActiveMQMessageConsumer;
import org.apache.activemq.command.ActiveMQQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listens on one queue (for a topic: the subscription's virtual-topic consumer queue) with a few
 * transacted sessions, each with its own connection and a thread that owns the session.
 *
 * <p><b>Batches.</b> A session's thread parks until a message arrives (ActiveMQ's {@code
 * MessageAvailableListener} wakes it from the transport thread: nothing runs while the queue is
 * idle, no polling). It takes the message and every one that has arrived, each handed to the
 * handler as soon as it is taken, and keeps taking new ones as they arrive while the batch is open.
 * The batch commits once every message of it is {@linkplain Acknowledgement#ack() acknowledged} and
 * the linger time since its first message has passed, or once it is full ({@code batchSize}) or the
 * channel's in-flight permits run out and all of it is acknowledged: one commit (the only
 * synchronous broker round trip) per batch, no acknowledgement per message, no ack thread. The last
 * {@code ack()} wakes the thread. Because a batch keeps taking messages while it waits for slow
 * settlements, an event that settles slowly (e.g. parked after {@code park-after} behind a slow
 * subscriber) does not hold up the hand-out of the next ones, only the commit. While one session
 * waits for a full batch to settle and commits, the channel's other sessions take messages
 * (pipelining).
 *
 * <p><b>In flight.</b> At most {@code maxInFlight} messages of the channel are received and not yet
 * committed (a semaphore; permits are taken per message and given back per commit). A crash before
 * a commit brings the batch back from the broker, acknowledged or not: at-least-once, at most
 * {@code maxInFlight} duplicates per channel (the core's deduplication window is in memory and does
 * not survive a crash).
 *
 * <p><b>Nacks.</b> A {@link Acknowledgement#nack(Throwable) nack} keeps the message in its batch
 * (uncommitted on the broker) and hands the same event to the handler again after the redelivery
 * backoff, from the adapter's redelivery thread; the batch commits once that event is finally
 * acknowledged. Nothing else is redelivered and nothing goes to the broker: the SPI's contract
 * (only the nacked message comes again, after the backoff) at no cost. A nacked message holds up
 * its batch's commit meanwhile (the batch keeps taking messages until it is full; the channel's
 * other sessions go on).
 *
 * <p><b>Failures.</b> The failover transport reconnects on its own. If a commit fails, the batch
 * comes again from the broker; the ids of its messages the handler had already acknowledged are
 * remembered (a bounded set), and when they come again they are committed with the next batch
 * without being handed out again. Any other error tears the session's connection down (the broker
 * then redelivers its uncommitted messages) and the thread reconnects after the reconnect delay,
 * until the channel is closed.
 *
 * <p><b>Close.</b> A session waiting for a message stops at once; one with an open batch waits up
 * to the close timeout for it to settle and commits it, else drops it (the broker redelivers it).
 */
final class JmsInboundChannel implements InboundChannel {

  private static final Logger LOG = LoggerFactory.getLogger(JmsInboundChannel.class);

  private final ChannelUri uri;
  private final ActiveMQQueue queue;
  private final InboundSettings settings;
  private final InboundHandler handler;
  private final JmsCloudEventCodec codec;
  private final ActiveMQConnectionFactory factory;
  private final int batchSize;
  private final long lingerNanos;
  private final int prefetch;
  private final Backoff redelivery;
  private final Duration reconnectDelay;
  private final Duration closeWait;
  private final ScheduledExecutorService redeliverer;
  private final Runnable onClose;

  /** Messages received and not yet committed, across the channel's sessions. */
  private final Semaphore permits;

  private final SettledIds settledIds;
  private final Worker[] workers;
  private final CountDownLatch subscribed;
  private volatile boolean closed;

  JmsInboundChannel(
      ChannelUri uri,
      ActiveMQQueue queue,
      InboundSettings settings,
      InboundHandler handler,
      JmsCloudEventCodec codec,
      ActiveMQConnectionFactory factory,
      int maxInFlight,
      int sessions,
      JmsChannelProperties props,
      ScheduledExecutorService redeliverer,
      Runnable onClose) {
    this.uri = uri;
    this.queue = queue;
    this.settings = settings;
    this.handler = handler;
    this.codec = codec;
    this.factory = factory;
    int n = Math.min(sessions, maxInFlight);
    this.batchSize = props.batch().sizeFor(maxInFlight, n);
    this.lingerNanos = props.batch().linger().toNanos();
    // Together the sessions prefetch about maxInFlight messages; at least a batch's worth each.
    this.prefetch = Math.max(batchSize, (maxInFlight + n - 1) / n);
    this.redelivery = props.redelivery().backoff();
    this.reconnectDelay = props.reconnectDelay();
    this.closeWait = props.sendTimeout().plusSeconds(2);
    this.redeliverer = redeliverer;
    this.onClose = onClose;
    this.permits = new Semaphore(maxInFlight);
    this.settledIds = new SettledIds(Math.max(1000, 4 * maxInFlight));
    this.subscribed = new CountDownLatch(n);
    this.workers = new Worker[n];
    for (int i = 0; i < n; i++) {
      workers[i] = new Worker("jms-inbound-" + queue.getPhysicalName() + (n == 1 ? "" : "-" + i));
    }
  }

  /**
   * Starts the sessions' threads and waits up to {@code wait} for their consumers to be registered.
   */
  void start(Duration wait) {
    for (Worker w : workers) {
      w.thread.start();
    }
    try {
      if (!subscribed.await(wait.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn(
            "jms inbound channel {} could not subscribe within {}; it keeps trying in the background",
            uri,
            wait);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public ChannelUri uri() {
    return uri;
  }

  /** The queue this channel consumes. */
  String queueName() {
    return queue.getPhysicalName();
  }

  /** The number of transacted sessions of this channel. */
  int sessions() {
    return workers.length;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    onClose.run();
    permits.release(
        workers.length); // a session waiting for a permit wakes up and sees the channel closed
    for (Worker w : workers) {
      w.stop();
    }
    long deadline = System.nanoTime() + closeWait.plusSeconds(1).toNanos();
    for (Worker w : workers) {
      if (Thread.currentThread() == w.thread) {
        continue;
      }
      try {
        w.thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** One transacted session: its connection, consumer and thread. */
  private final class Worker implements Runnable {

    final Thread thread;
    private boolean subscribedOnce;
    // Used by the worker's thread only.
    private ActiveMQConnection connection;
    private Session session;
    private ActiveMQMessageConsumer consumer;

    Worker(String name) {
      this.thread = DaemonThreads.thread(name, this);
    }

    /** Called by close(): the thread finishes its batch (bounded by the close timeout) and ends. */
    void stop() {
      LockSupport.unpark(thread);
    }

    @Override
    public void run() {
      while (!closed) {
        try {
          if (consumer == null) {
            open();
            if (!subscribedOnce) {
              subscribedOnce = true;
              subscribed.countDown();
            }
          }
          serve();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        } catch (JMSException | RuntimeException e) {
          if (closed) {
            break;
          }
          LOG.warn(
              "jms inbound channel {} failed ({}); reconnecting in {}",
              uri,
              e.toString(),
              reconnectDelay);
          teardown();
          try {
            pause(reconnectDelay);
          } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            break;
          }
        }
      }
      teardown();
    }

    private void open() throws JMSException {
      ActiveMQConnection c = (ActiveMQConnection) factory.createConnection();
      try {
        c.getPrefetchPolicy().setQueuePrefetch(prefetch);
        c.setExceptionListener(e -> LOG.debug("jms inbound channel {}: {}", uri, e.toString()));
        c.start();
        Session s = c.createSession(true, Session.SESSION_TRANSACTED);
        ActiveMQMessageConsumer mc = (ActiveMQMessageConsumer) s.createConsumer(queue);
        // Called on the transport thread for every message put in the consumer's buffer: wakes this
        // thread, which
        // parks instead of blocking in receive() so that a settlement or a close can wake it too.
        mc.setAvailableListener(available -> LockSupport.unpark(thread));
        consumer = mc;
        session = s;
        connection = c;
      } catch (JMSException | RuntimeException e) {
        consumer = null;
        session = null;
        JmsSenderPool.closeQuietly(c);
        throw e;
      }
    }

    private void teardown() {
      consumer = null;
      session = null;
      ActiveMQConnection c = connection;
      connection = null;
      if (c != null) {
        JmsSenderPool.closeQuietly(c);
      }
    }

    private void pause(Duration delay) throws InterruptedException {
      long end = System.nanoTime() + delay.toNanos();
      long left;
      while (!closed && (left = end - System.nanoTime()) > 0) {
        LockSupport.parkNanos(this, left); // close() unparks
        if (Thread.interrupted()) {
          throw new InterruptedException();
        }
      }
    }

    /**
     * Takes messages into batches and commits them, until the channel closes. The thread only ever
     * parks (no timed polling): a message put in the consumer's buffer, a batch's last settlement,
     * a permit given back and close() wake it; a timed park only runs out a batch's linger.
     */
    private void serve() throws JMSException, InterruptedException {
      Batch batch = null;
      try {
        while (true) {
          if (batch == null) {
            if (closed) {
              return;
            }
            permits.acquire(); // close() gives permits out, so this wait ends then too
            Message first = closed ? null : consumer.receiveNoWait();
            if (first == null) {
              permits.release();
              if (closed) {
                return;
              }
              LockSupport.park(this); // idle: until a message arrives or the channel closes
              checkInterrupt();
              continue;
            }
            batch = new Batch(thread, System.nanoTime() + lingerNanos);
            take(batch, first);
          }
          // Take what has arrived, each handed out at once, until the batch is full or the permits
          // run out.
          while (!batch.sealed && !closed) {
            if (batch.received >= batchSize || !permits.tryAcquire()) {
              batch.sealed = true;
              break;
            }
            Message next = consumer.receiveNoWait();
            if (next == null) {
              permits.release();
              break;
            }
            take(batch, next);
          }
          if (batch.cannotSettle || (closed && batch.waitingForRedelivery.get() > 0)) {
            abandon(batch); // a redelivery will not happen here: the broker redelivers the message
            int size = batch.received;
            batch = null;
            if (closed) {
              return;
            }
            throw new JMSException("a batch of " + size + " messages could not be settled");
          }
          if (batch.unsettled.get() == 0) {
            long lingerLeft = batch.lingerDeadline - System.nanoTime();
            if (batch.sealed || closed || lingerLeft <= 0) {
              commit(batch);
              batch = null;
              continue;
            }
            LockSupport.parkNanos(
                this, lingerLeft); // settled: more messages may join until the linger ends
          } else if (closed) {
            if (batch.closingDeadline == 0) {
              batch.closingDeadline = System.nanoTime() + closeWait.toNanos();
            }
            long left = batch.closingDeadline - System.nanoTime();
            if (left <= 0) {
              abandon(batch); // not settled in time: not committed, the broker redelivers the batch
              return;
            }
            LockSupport.parkNanos(this, left);
          } else {
            LockSupport.park(this); // until a settlement, a message or close()
          }
          checkInterrupt();
        }
      } catch (JMSException | RuntimeException | InterruptedException e) {
        if (batch != null) {
          abandon(batch);
        }
        throw e;
      }
    }

    /** Nothing in the adapter interrupts this thread; an interrupt ends it (the flag stays set). */
    private void checkInterrupt() throws InterruptedException {
      if (Thread.currentThread().isInterrupted()) {
        throw new InterruptedException();
      }
    }

    /** Adds a received message (its permit taken) to the batch and hands it out. */
    private void take(Batch batch, Message message) throws JMSException {
      batch.received++;
      String id = message.getJMSMessageID();
      if (message.getJMSRedelivered() && settledIds.remove(id)) {
        return; // handled before a commit that failed: committed with this batch, not handed out
        // again
      }
      CloudEvent event;
      try {
        event = codec.decode(message, uri, settings);
      } catch (IllegalArgumentException e) {
        LOG.warn(
            "jms inbound channel {}: dropping message {} that is not a CloudEvent: {}",
            uri,
            id,
            e.getMessage());
        return; // committed with the batch
      }
      Delivery delivery = new Delivery(batch, id, event, sentAt(message));
      batch.add(delivery);
      handOut(delivery);
    }

    private void commit(Batch batch) throws JMSException {
      try {
        session.commit();
      } catch (TransactionRolledBackException e) {
        // The client rolled the batch back itself (a failover while it was open): its messages come
        // again,
        // those already handled are committed without being handed out again. The session stays
        // usable.
        LOG.info(
            "jms inbound channel {}: a batch of {} was rolled back ({}); it comes again",
            uri,
            batch.received,
            e.getMessage());
        abandon(batch);
        return;
      } catch (JMSException | RuntimeException e) {
        abandon(batch);
        throw e;
      }
      batch.committed = true;
      permits.release(batch.received);
    }

    /** The batch will not be committed here: remember what was handled, give its permits back. */
    private void abandon(Batch batch) {
      if (batch.abandoned || batch.committed) {
        return;
      }
      batch.abandoned = true;
      for (Delivery d : batch.deliveries) {
        if (d.acked) {
          settledIds.add(d.messageId);
        }
      }
      permits.release(batch.received);
    }
  }

  /**
   * Hands an event to the handler with a fresh acknowledgement; a throwing handler counts as a
   * nack.
   */
  private void handOut(Delivery delivery) {
    Settlement settlement = new Settlement(delivery);
    try {
      handler.onEvent(delivery.event, settlement);
    } catch (RuntimeException e) {
      LOG.warn(
          "jms inbound channel {}: handler failed on event {}; it will be redelivered",
          uri,
          delivery.event.getId(),
          e);
      settlement.nack(e);
    }
  }

  /** Hands a nacked event out again after the backoff, unless its batch was given up meanwhile. */
  private void redispatch(Delivery delivery, Throwable cause) {
    int attempt = ++delivery.nacks;
    Duration delay = redelivery.delay(attempt);
    LOG.debug(
        "jms inbound channel {}: event {} nacked ({} time(s): {}); redelivering in {}",
        uri,
        delivery.event.getId(),
        attempt,
        cause,
        delay);
    Batch batch = delivery.batch;
    batch.waitingForRedelivery.incrementAndGet();
    try {
      redeliverer.schedule(
          () -> {
            batch.waitingForRedelivery.decrementAndGet();
            if (closed || batch.abandoned) {
              batch.giveUp(); // uncommitted: the broker redelivers it
              return;
            }
            handOut(delivery);
          },
          delay.toNanos(),
          TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      batch.giveUp(); // adapter closed: the broker redelivers the message
    }
  }

  /**
   * The messages of one transaction. {@code unsettled} counts the handed-out messages not yet
   * acknowledged; whoever brings it to zero wakes the session's thread. Only the owner thread adds
   * messages and reads {@code deliveries}.
   */
  private final class Batch {
    final Thread owner;
    final long lingerDeadline;
    final AtomicInteger unsettled = new AtomicInteger();
    final AtomicInteger waitingForRedelivery = new AtomicInteger();
    final List<Delivery> deliveries = new ArrayList<>();

    /** Messages in the transaction (handed out, skipped or dropped). Owner thread only. */
    int received;

    /** No more messages join: full, or out of permits. Owner thread only. */
    boolean sealed;

    /** When a closing channel stops waiting for the batch. Owner thread only. */
    long closingDeadline;

    boolean committed;
    volatile boolean abandoned;
    volatile boolean cannotSettle;

    Batch(Thread owner, long lingerDeadline) {
      this.owner = owner;
      this.lingerDeadline = lingerDeadline;
    }

    /** Called by the owner before handing the delivery out. */
    void add(Delivery delivery) {
      deliveries.add(delivery);
      unsettled.incrementAndGet();
    }

    void settled() {
      if (unsettled.decrementAndGet() == 0) {
        LockSupport.unpark(owner);
      }
    }

    /** A redelivery cannot happen (channel or adapter closed): the owner drops the batch. */
    void giveUp() {
      cannotSettle = true;
      LockSupport.unpark(owner);
    }
  }

  /**
   * The message's {@code JMSTimestamp} (when the provider took it from the producer), or {@link
   * Acknowledgement#NO_SENT_TIME} when the producer disabled timestamps (0).
   */
  static long sentAt(Message message) throws JMSException {
    long timestamp = message.getJMSTimestamp();
    return timestamp > 0 ? timestamp : Acknowledgement.NO_SENT_TIME;
  }

  /** One received message; {@code nacks} is only touched by the one current hand-out. */
  private static final class Delivery {
    final Batch batch;
    final String messageId;
    final CloudEvent event;
    final long sentAt;
    int nacks;
    volatile boolean acked;

    Delivery(Batch batch, String messageId, CloudEvent event, long sentAt) {
      this.batch = batch;
      this.messageId = messageId;
      this.event = event;
      this.sentAt = sentAt;
    }
  }

  /**
   * Settles one hand-out of a message: ack counts it settled in its batch, nack redispatches it.
   */
  private final class Settlement extends OnceOnlyAcknowledgement {

    private final Delivery delivery;

    Settlement(Delivery delivery) {
      this.delivery = delivery;
    }

    @Override
    public long sentAtMillis() {
      return delivery.sentAt;
    }

    @Override
    protected void onAck() {
      delivery.acked = true;
      delivery.batch.settled();
    }

    @Override
    protected void onNack(Throwable cause) {
      redispatch(delivery, cause);
    }
  }

  /**
   * JMS message ids of messages the handler acknowledged in a batch that was not committed, so that
   * they are not handed out again when the broker redelivers them. Bounded: the oldest ids go first
   * (a message redelivered to another replica never comes back here).
   */
  private static final class SettledIds {
    private final Map<String, Boolean> ids;

    SettledIds(int capacity) {
      this.ids =
          new LinkedHashMap<>(64, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
              return size() > capacity;
            }
          };
    }

    synchronized void add(String id) {
      ids.put(id, Boolean.TRUE);
    }

    synchronized boolean remove(String id) {
      return ids.remove(id) != null;
    }
  }
}
