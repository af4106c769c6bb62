package io.activityservice.app.support;

import io.activityservice.channel.jms.JmsChannelAdapter;
import io.activityservice.channel.jms.JmsChannelProperties;
import io.activityservice.channel.jms.embedded.EmbeddedActiveMqBroker;
import io.activityservice.testsupport.ServiceProcess;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Packaged replicas in cluster mode as separate processes on one embedded PostgreSQL and one
 * embedded ActiveMQ broker, as a team would run them (the cluster ITs' shared set-up). Broker data
 * and the replicas' logs stay under {@code target/<name>/<time>} for a look after a failure.
 */
public final class ServiceCluster implements AutoCloseable {

  private final Path dir;
  private EmbeddedPostgres postgres;
  private EmbeddedActiveMqBroker broker;
  private JmsChannelAdapter client;
  private final List<ServiceProcess> replicas = new ArrayList<>();
  private final List<Api> apis = new ArrayList<>();

  private ServiceCluster(Path dir) {
    this.dir = dir;
  }

  /**
   * Starts PostgreSQL, the broker and one replica per name (the first alone, for Flyway's first
   * migration; then the others in parallel), each with the cluster arguments, no SQS, no
   * dead-letter channel, a 5 s delivery lease, and {@code more.apply(name)}. Whatever started is
   * stopped if a start fails.
   *
   * @param name the directory under {@code target} for the broker's data and the logs
   * @param jar the service jar
   * @param names the replicas' ids
   * @param more further arguments per replica id
   */
  public static ServiceCluster start(
      String name, Path jar, List<String> names, Function<String, List<String>> more)
      throws Exception {
    ServiceCluster cluster =
        new ServiceCluster(
            Files.createDirectories(
                Path.of("target", name, String.valueOf(System.currentTimeMillis()))));
    try {
      cluster.startAll(jar, names, more);
      return cluster;
    } catch (Exception | Error e) {
      cluster.close();
      throw e;
    }
  }

  private void startAll(Path jar, List<String> names, Function<String, List<String>> more)
      throws Exception {
    postgres = EmbeddedPostgres.builder().start();
    broker = EmbeddedActiveMqBroker.start("127.0.0.1", 0, dir.resolve("broker").toFile(), true);
    client =
        new JmsChannelAdapter(
            JmsChannelProperties.builder()
                .brokerUrl(broker.connectUri().toString())
                .sendTimeout(Duration.ofSeconds(60))
                .reconnectDelay(Duration.ofSeconds(1))
                .build());
    List<CompletableFuture<Void>> starting = new ArrayList<>();
    for (String id : names) {
      List<String> args =
          PackagedService.concat(
              List.of(
                  "--spring.datasource.url=jdbc:postgresql://127.0.0.1:"
                      + postgres.getPort()
                      + "/postgres",
                  "--spring.datasource.username=postgres",
                  "--spring.datasource.password=postgres",
                  "--activity.channels.jms.broker-url=" + broker.connectUri(),
                  "--activity.cluster.enabled=true",
                  "--activity.cluster.replica-id=" + id,
                  "--activity.routing.dead-letter=",
                  "--activity.delivery.lease=5s",
                  "--activity.channels.sqs.embedded.enabled=false",
                  "--activity.channels.sqs.enabled=false"),
              more.apply(id));
      ServiceProcess p = PackagedService.process(jar, dir.resolve("replica-" + id + ".log"), args);
      replicas.add(p);
      apis.add(new Api(p.port()));
      if (starting.isEmpty()) {
        p.start(PackagedService.START);
        starting.add(CompletableFuture.completedFuture(null));
      } else {
        starting.add(CompletableFuture.runAsync(() -> p.start(PackagedService.START)));
      }
    }
    CompletableFuture.allOf(starting.toArray(CompletableFuture[]::new))
        .get(2 * PackagedService.START.toSeconds(), TimeUnit.SECONDS);
  }

  /** Where the broker's data and the logs are. */
  public Path dir() {
    return dir;
  }

  /** The replicas' database server. */
  public EmbeddedPostgres postgres() {
    return postgres;
  }

  /** The replicas' broker. */
  public EmbeddedActiveMqBroker broker() {
    return broker;
  }

  /** A JMS client of the broker, for the tests' own producers and receivers. */
  public JmsChannelAdapter client() {
    return client;
  }

  /** The replicas, in the order of their names. */
  public List<ServiceProcess> replicas() {
    return replicas;
  }

  /** An API client per replica, in the same order. */
  public List<Api> apis() {
    return apis;
  }

  @Override
  public void close() throws Exception {
    for (ServiceProcess p : replicas) {
      p.close();
    }
    if (client != null) {
      client.close();
    }
    if (broker != null) {
      broker.close();
    }
    if (postgres != null) {
      postgres.close();
    }
  }
}
