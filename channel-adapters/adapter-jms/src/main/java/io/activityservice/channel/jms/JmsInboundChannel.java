package io.activityservice.channel.jms;

import io.activityservice.channel.Acknowledgement;
import io.activityservice.channel.Backoff;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundHandler;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OnceOnlyAcknowledgement;
import io.cloudevents.CloudEvent;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
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
import org.apache.activemq.command.ActiveMQQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listens on one queue (for a topic: the subscription's virtual-topic consumer queue) with a few
 * transacted sessions, each with its own connection and a thread that owns the session.
 *
 * <p><b>Batches.</b> A session's thread waits for a first message ({@code receive()}, blocking:
 * nothing runs while the queue is idle), then takes what has arrived and keeps taking for up to the
 * linger time, until the batch has {@code batchSize} messages or the channel's in-flight permits
 * run out. Each message is handed to the handler as soon as it is taken. When every message of the
 * batch is {@linkplain Acknowledgement#ack() acknowledged}, the thread commits the session's
 * transaction: one commit (the only synchronous broker round trip) per batch, no acknowledgement
 * per message, no ack thread. The last {@code ack()} of a sealed batch wakes the thread (one
 * wake-up per batch). While one session waits for its batch to settle and commits, the channel's
 * other sessions take messages (pipelining).
 *
 * <p><b>In flight.</b> At most {@code maxInFlight} messages of the channel are received and not
 * yet committed (a semaphore; permits are taken per message and given back per commit). A crash
 * before a commit brings the batch back from the broker, acknowledged or not: at-least-once, at
 * most {@code maxInFlight} duplicates per channel, which the core's deduplication absorbs.
 *
 * <p><b>Nacks.</b> A {@link Acknowledgement#nack(Throwable) nack} keeps the message in its batch
 * (uncommitted on the broker) and hands the same event to the handler again after the redelivery
 * backoff, from the adapter's redelivery thread; the batch commits once that event is finally
 * acknowledged. Nothing else is redelivered and nothing goes to the broker: the SPI's contract
 * (only the nacked message comes again, after the backoff) at no cost. A nacked message holds its
 * session's batch meanwhile; the channel's other sessions go on.
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
  /** The longest single wait while a batch lingers: a close() is noticed within it. */
  private static final long LINGER_SLICE_MS = 100;

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

  JmsInboundChannel(ChannelUri uri, ActiveMQQueue queue, InboundSettings settings, InboundHandler handler,
      JmsCloudEventCodec codec, ActiveMQConnectionFactory factory, int maxInFlight, int sessions,
      JmsChannelProperties props, ScheduledExecutorService redeliverer, Runnable onClose) {
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

  /** Starts the sessions' threads and waits up to {@code wait} for their consumers to be registered. */
  void start(Duration wait) {
    for (Worker w : workers) {
      w.thread.start();
    }
    try {
      if (!subscribed.await(wait.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn("jms inbound channel {} could not subscribe within {}; it keeps trying in the background",
            uri, wait);
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
    permits.release(workers.length); // a session waiting for a permit wakes up and sees the channel closed
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

    private static final int BUSY = 0;
    private static final int RECEIVING = 1;
    private static final int STOPPED = 2;

    final Thread thread;
    /** RECEIVING while the thread waits for the first message of a batch; the closer then closes the connection. */
    private final AtomicInteger state = new AtomicInteger(BUSY);
    private volatile ActiveMQConnection connection;
    private boolean subscribedOnce;
    // Used by the worker's thread only.
    private Session session;
    private MessageConsumer consumer;

    Worker(String name) {
      this.thread = new Thread(this, name);
      thread.setDaemon(true);
    }

    /** Called by close(): wakes the thread, closing the connection if it waits for a message. */
    void stop() {
      if (state.compareAndSet(RECEIVING, STOPPED)) {
        ActiveMQConnection c = connection;
        if (c != null) {
          JmsSenderPool.closeQuietly(c);
        }
      }
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
          runBatch();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        } catch (JMSException | RuntimeException e) {
          if (closed) {
            break;
          }
          LOG.warn("jms inbound channel {} failed ({}); reconnecting in {}", uri, e.toString(), reconnectDelay);
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
        consumer = s.createConsumer(queue);
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

    /** Takes one batch, hands it out, waits for it to settle and commits it. */
    private void runBatch() throws JMSException, InterruptedException {
      permits.acquire();
      if (closed) {
        permits.release();
        return;
      }
      Message first;
      state.set(RECEIVING);
      try {
        first = closed ? null : consumer.receive(); // blocks until a message comes or the connection closes
      } catch (JMSException | RuntimeException e) {
        permits.release();
        state.compareAndSet(RECEIVING, BUSY);
        throw e;
      }
      if (!state.compareAndSet(RECEIVING, BUSY) || first == null) {
        permits.release();
        if (closed) {
          return; // a message taken meanwhile is not committed: the broker redelivers it
        }
        throw new JMSException("the consumer of " + queue.getPhysicalName() + " was closed");
      }
      Batch batch = new Batch(thread);
      try {
        take(batch, first);
        long deadline = System.nanoTime() + lingerNanos;
        while (batch.received < batchSize && !closed && permits.tryAcquire()) {
          Message next = consumer.receiveNoWait();
          if (next == null && lingerNanos > 0) {
            long left = deadline - System.nanoTime();
            if (left > 0) {
              // receive(0) would wait forever: at least 1 ms; at most LINGER_SLICE_MS, so that a close is seen.
              next = consumer.receive(Math.max(1, Math.min(LINGER_SLICE_MS, TimeUnit.NANOSECONDS.toMillis(left))));
              if (next == null && System.nanoTime() - deadline < 0 && !closed) {
                permits.release();
                continue; // one slice of the linger time passed: wait for the next
              }
            }
          }
          if (next == null) {
            permits.release();
            break;
          }
          take(batch, next);
        }
      } catch (JMSException | RuntimeException e) {
        abandon(batch);
        throw e;
      }
      if (!batch.awaitSettled()) {
        abandon(batch);
        if (closed) {
          return;
        }
        throw new JMSException("a batch of " + batch.received + " messages could not be settled");
      }
      commit(batch);
    }

    /** Adds a received message (its permit taken) to the batch and hands it out. */
    private void take(Batch batch, Message message) throws JMSException {
      batch.received++;
      String id = message.getJMSMessageID();
      if (message.getJMSRedelivered() && settledIds.remove(id)) {
        return; // handled before a commit that failed: committed with this batch, not handed out again
      }
      CloudEvent event;
      try {
        event = codec.decode(message, uri, settings);
      } catch (IllegalArgumentException e) {
        LOG.warn("jms inbound channel {}: dropping message {} that is not a CloudEvent: {}", uri, id, e.getMessage());
        return; // committed with the batch
      }
      Delivery delivery = new Delivery(batch, id, event);
      batch.add(delivery);
      handOut(delivery);
    }

    private void commit(Batch batch) throws JMSException {
      try {
        session.commit();
      } catch (TransactionRolledBackException e) {
        // The client rolled the batch back itself (a failover while it was open): its messages come again,
        // those already handled are committed without being handed out again. The session stays usable.
        LOG.info("jms inbound channel {}: a batch of {} was rolled back ({}); it comes again", uri,
            batch.received, e.getMessage());
        abandon(batch);
        return;
      } catch (JMSException | RuntimeException e) {
        abandon(batch);
        throw e;
      }
      permits.release(batch.received);
    }

    /** The batch will not be committed here: remember what was handled, give its permits back. */
    private void abandon(Batch batch) {
      if (batch.abandoned) {
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

  /** Hands an event to the handler with a fresh acknowledgement; a throwing handler counts as a nack. */
  private void handOut(Delivery delivery) {
    Settlement settlement = new Settlement(delivery);
    try {
      handler.onEvent(delivery.event, settlement);
    } catch (RuntimeException e) {
      LOG.warn("jms inbound channel {}: handler failed on event {}; it will be redelivered", uri,
          delivery.event.getId(), e);
      settlement.nack(e);
    }
  }

  /** Hands a nacked event out again after the backoff, unless its batch was given up meanwhile. */
  private void redispatch(Delivery delivery, Throwable cause) {
    int attempt = ++delivery.nacks;
    Duration delay = redelivery.delay(attempt);
    LOG.debug("jms inbound channel {}: event {} nacked ({} time(s): {}); redelivering in {}", uri,
        delivery.event.getId(), attempt, cause, delay);
    Batch batch = delivery.batch;
    batch.waitingForRedelivery.incrementAndGet();
    try {
      redeliverer.schedule(() -> {
        batch.waitingForRedelivery.decrementAndGet();
        if (closed || batch.abandoned) {
          batch.giveUp(); // uncommitted: the broker redelivers it
          return;
        }
        handOut(delivery);
      }, delay.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      batch.giveUp(); // adapter closed: the broker redelivers the message
    }
  }

  /**
   * The messages of one transaction. {@code unsettled} counts the handed-out messages not yet
   * acknowledged, plus one while the session still takes messages; whoever brings it to zero after
   * that wakes the session's thread.
   */
  private final class Batch {
    final Thread owner;
    final AtomicInteger unsettled = new AtomicInteger(1);
    final AtomicInteger waitingForRedelivery = new AtomicInteger();
    final List<Delivery> deliveries = new ArrayList<>();
    /** Messages in the transaction (handed out, skipped or dropped). Owner thread only. */
    int received;
    volatile boolean abandoned;
    volatile boolean cannotSettle;

    Batch(Thread owner) {
      this.owner = owner;
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

    /**
     * Seals the batch and waits until every message is acknowledged. Returns false if the batch
     * cannot settle: a redelivery was cancelled, or the channel is closing and the batch did not
     * settle within the close timeout (or waits for a redelivery).
     */
    boolean awaitSettled() {
      if (unsettled.decrementAndGet() == 0) {
        return true;
      }
      long closingDeadline = 0;
      while (unsettled.get() != 0) {
        if (cannotSettle) {
          return false;
        }
        if (closed) {
          if (waitingForRedelivery.get() > 0) {
            return false;
          }
          if (closingDeadline == 0) {
            closingDeadline = System.nanoTime() + closeWait.toNanos();
          }
          long left = closingDeadline - System.nanoTime();
          if (left <= 0) {
            return false;
          }
          LockSupport.parkNanos(this, left);
        } else {
          LockSupport.park(this);
        }
        Thread.interrupted(); // only close() and settlements wake this thread; an interrupt is not ours to keep
      }
      return true;
    }
  }

  /** One received message; {@code nacks} is only touched by the one current hand-out. */
  private static final class Delivery {
    final Batch batch;
    final String messageId;
    final CloudEvent event;
    int nacks;
    volatile boolean acked;

    Delivery(Batch batch, String messageId, CloudEvent event) {
      this.batch = batch;
      this.messageId = messageId;
      this.event = event;
    }
  }

  /** Settles one hand-out of a message: ack counts it settled in its batch, nack redispatches it. */
  private final class Settlement extends OnceOnlyAcknowledgement {

    private final Delivery delivery;

    Settlement(Delivery delivery) {
      this.delivery = delivery;
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
      this.ids = new LinkedHashMap<>(64, 0.75f, false) {
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
