package io.activityservice.perf.peer.camel;

import java.io.IOException;
import java.io.InputStream;
import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * A plain Apache Camel relay, started by perf-tests' runner as a process of its own ({@code --peer
 * camel}): the routes given as {@code peer.routes[i]} (see {@link PeerProperties}) with Camel's own
 * JMS (pooled connection factory), AWS SQS and Kafka components. Prints {@code READY <routes>} on
 * standard output once every route is started, and exits when its standard input closes (the runner
 * died or is done).
 */
@SpringBootApplication
@EnableConfigurationProperties(PeerProperties.class)
public class CamelPeerApplication {

  /** Starts the peer. */
  public static void main(String[] args) {
    ConfigurableApplicationContext context =
        SpringApplication.run(CamelPeerApplication.class, args);
    Thread watcher =
        new Thread(
            () -> {
              try {
                InputStream in = System.in;
                while (in.read() >= 0) {
                  // the runner writes nothing; only EOF matters
                }
              } catch (IOException e) {
                // treat as closed
              }
              context.close();
              System.exit(0);
            },
            "peer-stdin-watcher");
    watcher.start(); // not a daemon: keeps the JVM alive while the runner is
  }

  /**
   * Announces readiness once Camel started every route (runners run after the context was
   * refreshed).
   */
  @Bean
  CommandLineRunner ready(org.apache.camel.CamelContext camel, PeerProperties props) {
    return args -> {
      long started =
          camel.getRoutes().stream()
              .filter(r -> camel.getRouteController().getRouteStatus(r.getRouteId()).isStarted())
              .count();
      if (started != props.routes().size()) {
        throw new IllegalStateException(
            "only " + started + " of " + props.routes().size() + " routes started");
      }
      System.out.println("READY " + started);
      System.out.flush();
    };
  }
}
