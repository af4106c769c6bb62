package io.activityservice.channel.support;

import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Daemon threads with names that say what they do: the one way the project makes its background
 * threads (executors' thread factories and single worker threads). Daemon, so that a thread left
 * running never keeps the JVM alive; each owner still stops its threads in its own {@code close()}.
 */
public final class DaemonThreads {

  private DaemonThreads() {}

  /**
   * A factory of daemon threads named {@code prefix-1}, {@code prefix-2}, … (for pools).
   *
   * @param prefix the threads' name before the counter, e.g. {@code "rule-action"}
   */
  public static ThreadFactory factory(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    AtomicInteger count = new AtomicInteger();
    return task -> thread(prefix + "-" + count.incrementAndGet(), task);
  }

  /**
   * A factory of daemon threads that all carry the same name (for single-thread executors, whose
   * one thread is named after its job, e.g. {@code "delivery-timer"}).
   *
   * @param name every thread's name
   */
  public static ThreadFactory named(String name) {
    Objects.requireNonNull(name, "name");
    return task -> thread(name, task);
  }

  /**
   * A daemon thread that runs {@code task}, not yet started.
   *
   * @param name the thread's name
   * @param task what the thread runs
   */
  public static Thread thread(String name, Runnable task) {
    Thread t =
        new Thread(Objects.requireNonNull(task, "task"), Objects.requireNonNull(name, "name"));
    t.setDaemon(true);
    return t;
  }
}
