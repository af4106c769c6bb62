package io.activityservice.channel.jms.embedded;

import io.activityservice.channel.support.DaemonThreads;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the service's {@link EmbeddedActiveMqBroker} (persistent KahaDB, virtual topics) as a
 * process of its own, so that several replicas of the service can share one broker without an
 * ActiveMQ installation. It ships inside the service jar, which starts it through Spring Boot's
 * {@code PropertiesLauncher}:
 *
 * <pre>
 * java -cp activity-service.jar -Dloader.main=io.activityservice.channel.jms.embedded.StandaloneActiveMqBroker \
 *   org.springframework.boot.loader.launch.PropertiesLauncher &lt;port&gt; &lt;data dir&gt; [host]
 * </pre>
 *
 * ({@code infra/deploy.sh localstack} with {@code REPLICAS} &gt; 1 does). The host defaults to
 * {@code 127.0.0.1}. Prints {@code READY <url>} on stdout once it accepts connections and runs
 * until it is terminated (SIGTERM stops the broker cleanly); it runs as a daemon with stdin closed.
 * With {@value #EXIT_WITH_STDIN} it also stops when its standard input closes, so that a broker
 * started by a measurement run (perf-tests' {@code BrokerProcess}) never outlives its parent.
 */
public final class StandaloneActiveMqBroker {

  /** Option: stop when standard input closes (the parent process ended). */
  public static final String EXIT_WITH_STDIN = "--exit-with-stdin";

  private StandaloneActiveMqBroker() {}

  /**
   * Starts the broker; see the class comment. Exits with status 2 on bad arguments, 1 if the broker
   * cannot start.
   */
  public static void main(String[] given) throws InterruptedException {
    List<String> list = new ArrayList<>(List.of(given));
    boolean exitWithStdin = list.remove(EXIT_WITH_STDIN);
    String[] args = list.toArray(String[]::new);
    if (args.length < 2 || args.length > 3 || !args[0].matches("[0-9]{1,5}")) {
      System.err.println(
          "usage: StandaloneActiveMqBroker <port> <data dir> [host, default 127.0.0.1]"
              + " ["
              + EXIT_WITH_STDIN
              + "]");
      System.exit(2);
    }
    EmbeddedActiveMqBroker broker;
    try {
      broker =
          EmbeddedActiveMqBroker.start(
              args.length == 3 ? args[2] : "127.0.0.1",
              Integer.parseInt(args[0]),
              new File(args[1]),
              true);
    } catch (IllegalStateException e) {
      System.err.println(e.getMessage());
      System.exit(1);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  broker.close();
                  stopped.countDown();
                },
                "broker-shutdown"));
    System.out.println("READY " + broker.connectUri());
    System.out.flush();
    if (exitWithStdin) {
      Thread watcher =
          DaemonThreads.thread(
              "stdin-watcher",
              () -> {
                try {
                  while (System.in.read() >= 0) {
                    // input is ignored; only its end matters
                  }
                } catch (java.io.IOException e) {
                  // the parent is gone
                }
                System.exit(0);
              });
      watcher.start();
    }
    stopped.await();
  }
}
