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
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.apache.activemq.ActiveMQConnection;
import org.apache.activemq.ActiveMQConnectionFactory;
import org.apache.activemq.ActiveMQSession;
import org.apache.activemq.command.ActiveMQQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listens on one queue (for a topic: the subscription's virtual-topic consumer queue) with its own
 * connection and a dedicated thread that owns the session.
 *
 * <p>Acknowledgement: the session uses ActiveMQ's {@code INDIVIDUAL_ACKNOWLEDGE}, so
 * {@link Acknowledgement#ack()} removes exactly that message, in any order, from any thread (acks
 * are sent by the adapter's ack thread, never by the caller). At most {@code maxInFlight} messages
 * are handed out and not yet settled (a semaphore; the prefetch is the same size). A
 * {@link Acknowledgement#nack(Throwable) nack} leaves the message unacknowledged on the broker and
 * hands the same event to the handler again after the redelivery backoff (growing with each nack of
 * that message), from the adapter's redelivery thread; the connection stays up, other messages are
 * not affected, and the message keeps its in-flight permit until it is acked. If the connection is
 * torn down meanwhile, the pending redispatch is dropped: the broker redelivers the message itself.
 *
 * <p>Connection failures are handled by the failover transport; any other error tears the
 * connection down and the thread reconnects after the reconnect delay, forever, until closed.
 */
final class JmsInboundChannel implements InboundChannel {

  private static final Logger LOG = LoggerFactory.getLogger(JmsInboundChannel.class);
  private static final long POLL_MS = 200;

  private final ChannelUri uri;
  private final ActiveMQQueue queue;
  private final InboundSettings settings;
  private final InboundHandler handler;
  private final JmsCloudEventCodec codec;
  private final ActiveMQConnectionFactory factory;
  private final int maxInFlight;
  private final Backoff redelivery;
  private final Duration reconnectDelay;
  private final Duration closeWait;
  private final Executor acker;
  private final ScheduledExecutorService redeliverer;
  private final Runnable onClose;
  private final Semaphore permits;
  private final CountDownLatch connected = new CountDownLatch(1);
  private final Thread thread;
  private volatile boolean closed;
  /** Incremented on every teardown: a redispatch of a message of an older connection is dropped. */
  private volatile int generation;

  // Used by the channel's thread only.
  private ActiveMQConnection connection;
  private MessageConsumer consumer;

  JmsInboundChannel(ChannelUri uri, ActiveMQQueue queue, InboundSettings settings, InboundHandler handler,
      JmsCloudEventCodec codec, ActiveMQConnectionFactory factory, int maxInFlight, JmsChannelProperties props,
      Executor acker, ScheduledExecutorService redeliverer, Runnable onClose) {
    this.uri = uri;
    this.queue = queue;
    this.settings = settings;
    this.handler = handler;
    this.codec = codec;
    this.factory = factory;
    this.maxInFlight = maxInFlight;
    this.redelivery = props.redelivery().backoff();
    this.reconnectDelay = props.reconnectDelay();
    this.closeWait = props.sendTimeout().plusSeconds(2);
    this.acker = acker;
    this.redeliverer = redeliverer;
    this.onClose = onClose;
    this.permits = new Semaphore(maxInFlight);
    this.thread = new Thread(this::run, "jms-inbound-" + queue.getPhysicalName());
    thread.setDaemon(true);
  }

  /** Starts the thread and waits up to {@code wait} for the consumer to be registered. */
  void start(Duration wait) {
    thread.start();
    try {
      if (!connected.await(wait.toMillis(), TimeUnit.MILLISECONDS)) {
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

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    onClose.run();
    if (Thread.currentThread() != thread) {
      try {
        thread.join(closeWait.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void run() {
    while (!closed) {
      try {
        if (consumer == null) {
          open();
          connected.countDown();
        }
        if (!permits.tryAcquire(POLL_MS, TimeUnit.MILLISECONDS)) {
          continue;
        }
        Message message;
        try {
          message = consumer.receive(POLL_MS);
        } catch (JMSException | RuntimeException e) {
          permits.release();
          throw e;
        }
        if (message == null) {
          permits.release();
        } else {
          dispatch(message);
        }
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
      c.getPrefetchPolicy().setQueuePrefetch(maxInFlight);
      c.setExceptionListener(e -> LOG.debug("jms inbound channel {}: {}", uri, e.toString()));
      c.start();
      Session session = c.createSession(false, ActiveMQSession.INDIVIDUAL_ACKNOWLEDGE);
      consumer = session.createConsumer(queue);
      connection = c;
    } catch (JMSException | RuntimeException e) {
      consumer = null;
      JmsSenderPool.closeQuietly(c);
      throw e;
    }
  }

  private void teardown() {
    generation++;
    consumer = null;
    if (connection != null) {
      JmsSenderPool.closeQuietly(connection);
      connection = null;
    }
  }

  private void pause(Duration delay) throws InterruptedException {
    long end = System.nanoTime() + delay.toNanos();
    long left;
    while (!closed && (left = end - System.nanoTime()) > 0) {
      Thread.sleep(Math.max(1, Math.min(POLL_MS, TimeUnit.NANOSECONDS.toMillis(left))));
    }
  }

  private void dispatch(Message message) throws JMSException {
    if (closed) {
      permits.release(); // not acknowledged: the broker redelivers it to the next consumer
      return;
    }
    CloudEvent event;
    try {
      event = codec.decode(message, uri, settings);
    } catch (IllegalArgumentException e) {
      LOG.warn("jms inbound channel {}: dropping message {} that is not a CloudEvent: {}",
          uri, message.getJMSMessageID(), e.getMessage());
      new Settlement(new Delivery(message, null, generation)).ack();
      return;
    } catch (JMSException | RuntimeException e) {
      permits.release();
      throw e;
    }
    handOut(new Delivery(message, event, generation));
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

  /** Hands a nacked event out again after the backoff, unless its connection is gone meanwhile. */
  private void redispatch(Delivery delivery, Throwable cause) {
    int attempt = ++delivery.nacks;
    Duration delay = redelivery.delay(attempt);
    LOG.debug("jms inbound channel {}: event {} nacked ({} time(s): {}); redelivering in {}", uri,
        delivery.event.getId(), attempt, cause, delay);
    try {
      redeliverer.schedule(() -> {
        if (closed || delivery.generation != generation) {
          permits.release(); // unacknowledged: the broker redelivers it after the reconnect
          return;
        }
        handOut(delivery);
      }, delay.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      permits.release(); // adapter closed: the broker redelivers the message
    }
  }

  /** One received message; {@code nacks} is only touched by the one current hand-out. */
  private static final class Delivery {
    final Message message;
    final CloudEvent event;
    final int generation;
    int nacks;

    Delivery(Message message, CloudEvent event, int generation) {
      this.message = message;
      this.event = event;
      this.generation = generation;
    }
  }

  /** Settles one hand-out of a message: ack sends the individual acknowledgement, nack redispatches. */
  private final class Settlement extends OnceOnlyAcknowledgement {

    private final Delivery delivery;

    Settlement(Delivery delivery) {
      this.delivery = delivery;
    }

    @Override
    protected void onAck() {
      try {
        acker.execute(this::acknowledge);
      } catch (RejectedExecutionException e) {
        permits.release(); // adapter closed: the broker redelivers the message
      }
    }

    private void acknowledge() {
      try {
        delivery.message.acknowledge();
      } catch (JMSException | RuntimeException e) {
        LOG.debug("jms inbound channel {}: ack not delivered ({}); the message will come again", uri, e.toString());
      } finally {
        permits.release();
      }
    }

    @Override
    protected void onNack(Throwable cause) {
      redispatch(delivery, cause);
    }
  }
}
