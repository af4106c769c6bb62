package io.activityservice.perf.broker;

import io.activityservice.channel.jms.EmbeddedActiveMqBroker;
import java.io.File;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the project's {@link EmbeddedActiveMqBroker} (persistent KahaDB, virtual topics) as a process of its own,
 * so that the suite can measure the service's CPU time without the broker's: {@code java -cp perf-runner.jar
 * io.activityservice.perf.broker.ActiveMqBrokerMain <port> <data dir>}. Prints {@code READY <url>} on stdout once
 * it accepts connections and runs until its standard input closes or it is terminated.
 */
public final class ActiveMqBrokerMain {

  private ActiveMqBrokerMain() {
  }

  /** Starts the broker; see the class comment. */
  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: ActiveMqBrokerMain <port> <data dir>");
      System.exit(2);
    }
    EmbeddedActiveMqBroker broker = EmbeddedActiveMqBroker.start("127.0.0.1", Integer.parseInt(args[0]),
        new File(args[1]), true);
    CountDownLatch stop = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      broker.close();
      stop.countDown();
    }, "broker-shutdown"));
    System.out.println("READY " + broker.connectUri());
    System.out.flush();
    // The parent closes our stdin (or dies): stop then.
    Thread watcher = new Thread(() -> {
      try {
        while (System.in.read() >= 0) {
          // ignore input
        }
      } catch (java.io.IOException e) {
        // parent gone
      }
      System.exit(0);
    }, "stdin-watcher");
    watcher.setDaemon(true);
    watcher.start();
    stop.await();
  }
}
