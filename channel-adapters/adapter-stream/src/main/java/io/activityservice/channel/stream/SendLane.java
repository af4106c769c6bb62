package io.activityservice.channel.stream;

import io.activityservice.channel.batching.BatchPolicy;
import io.activityservice.channel.support.DaemonThreads;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread that hands records of its channels to the Kafka producer, in the order they were sent
 * (so the records of a key keep their order), and binds a channel on its first send. It never waits
 * for Kafka's acknowledgement: {@code KafkaProducer.send} only appends to the producer's buffer and
 * the acknowledgement arrives on the producer's callback. The lane exists because {@code send} may
 * still block (metadata of a topic not yet known, buffer full while the broker is down) and that
 * must not happen on the caller's thread.
 *
 * <p>When records go to the producer is the {@link BatchPolicy}'s decision: the adaptive policy
 * hands each record over at once at low load (the producer, with {@code linger.ms=0}, sends it at
 * once), and under load holds records for up to its linger so that a burst enters the producer
 * together and leaves in few, full produce requests. The producer's own {@code linger.ms} is fixed
 * per producer; this hand-off is what can adapt.
 */
final class SendLane implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(SendLane.class);

  /** One unit of work: hand a record to the producer, or bind a channel first. Must not throw. */
  interface Task {
    /** Runs on the lane's thread. */
    void run();

    /** The lane is closed: the task will not run. */
    void reject(Throwable reason);
  }

  private record Queued(Task task, long at) {}

  private final String name;
  private final BatchPolicy policy;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final ArrayDeque<Queued> queue = new ArrayDeque<>();
  private final Thread thread;
  private boolean closed;

  /** While the lane waits for a batch to fill: the queue length at which it should go at once. */
  private int wakeAt = 1;

  SendLane(String name, BatchPolicy policy) {
    this.name = name;
    this.policy = policy;
    this.thread = DaemonThreads.thread(name, this::run);
    thread.start();
  }

  /**
   * Queues a task; never blocks.
   *
   * @return false if the lane is closed (the task was not queued)
   */
  boolean offer(Task task) {
    lock.lock();
    try {
      if (closed) {
        return false;
      }
      long now = System.nanoTime();
      queue.addLast(new Queued(task, now));
      policy.arrived(now);
      if (queue.size() == 1 || queue.size() >= wakeAt) {
        changed.signal();
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * A record handed over earlier was acknowledged (or failed) {@code latencyNanos} after the
   * hand-over.
   */
  void completed(long latencyNanos) {
    lock.lock();
    try {
      policy.completed(1, latencyNanos);
    } finally {
      lock.unlock();
    }
  }

  private void run() {
    List<Task> batch = new ArrayList<>();
    while (true) {
      lock.lock();
      try {
        while (true) {
          if (queue.isEmpty()) {
            if (closed) {
              return;
            }
            changed.await();
            continue;
          }
          long now = System.nanoTime();
          // In flight = 0: the producer itself batches records behind its in-flight produce
          // requests,
          // so the lane never holds records back for that.
          BatchPolicy.Decision decision =
              closed
                  ? BatchPolicy.Decision.send(queue.size())
                  : policy.decide(now, queue.size(), now - queue.peekFirst().at(), 0);
          if (decision.send() > 0) {
            for (int i = 0; i < decision.send() && !queue.isEmpty(); i++) {
              batch.add(queue.pollFirst().task());
            }
            wakeAt = 1;
            break;
          }
          wakeAt = Math.max(1, policy.sendsAt(now));
          changed.awaitNanos(decision.waitNanos());
        }
      } catch (InterruptedException e) {
        failQueued(new IllegalStateException("kafka send lane " + name + " was interrupted"));
        Thread.currentThread().interrupt();
        return;
      } finally {
        lock.unlock();
      }
      for (Task task : batch) {
        try {
          task.run();
        } catch (RuntimeException e) {
          LOG.error("kafka send lane {}: a task failed unexpectedly", name, e);
        }
      }
      batch.clear();
    }
  }

  private void failQueued(Throwable reason) {
    Queued q;
    while ((q = queue.pollFirst()) != null) {
      q.task().reject(reason);
    }
  }

  /**
   * Stops accepting tasks; what is queued is still handed to the producer. Waits up to {@code
   * timeoutMillis} for that, then fails what is left.
   */
  void close(long timeoutMillis) {
    lock.lock();
    try {
      closed = true;
      changed.signal();
    } finally {
      lock.unlock();
    }
    try {
      thread.join(timeoutMillis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      thread.interrupt();
    }
  }

  @Override
  public void close() {
    close(TimeUnit.SECONDS.toMillis(5));
  }
}
