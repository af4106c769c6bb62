package io.activityservice.channel.sqs.embedded;

import io.activityservice.channel.support.EmbeddedServer;
import java.net.URI;
import org.elasticmq.RelaxedSQSLimits$;
import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import org.elasticmq.rest.sqs.TheSQSRestServerBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An in-memory ElasticMQ server speaking the SQS protocol, for development and tests. Queue URLs
 * look like {@code http://127.0.0.1:9324/000000000000/<name>}. Its queues are lost when it stops.
 * It runs with ElasticMQ's relaxed limits so that 1 MiB messages are accepted as on AWS.
 */
public final class EmbeddedElasticMq implements EmbeddedServer {

  private static final Logger log = LoggerFactory.getLogger(EmbeddedElasticMq.class);

  private final SQSRestServer server;
  private final URI endpoint;

  private EmbeddedElasticMq(SQSRestServer server, URI endpoint) {
    this.server = server;
    this.endpoint = endpoint;
  }

  /**
   * Starts a server and waits until it listens.
   *
   * @param host interface to bind, e.g. {@code 127.0.0.1}
   * @param port port to bind; 0 picks a free one
   * @throws IllegalStateException if it cannot start (e.g. the port is taken)
   */
  public static EmbeddedElasticMq start(String host, int port) {
    // Relaxed limits: ElasticMQ's strict limits still cap messages at 256 KiB, AWS allows 1 MiB
    // now.
    // The adapter enforces the SQS limits (entries, bytes, names) itself.
    TheSQSRestServerBuilder builder =
        SQSRestServerBuilder.withInterface(host)
            .withAWSRegion("us-east-1")
            .withSQSLimits(RelaxedSQSLimits$.MODULE$);
    builder = port == 0 ? builder.withDynamicPort() : builder.withPort(port);
    SQSRestServer server = builder.start();
    int actualPort;
    try {
      actualPort = server.waitUntilStarted().localAddress().getPort();
    } catch (RuntimeException e) {
      try {
        server.stopAndWait();
      } catch (RuntimeException ignored) {
        // nothing more to release
      }
      throw new IllegalStateException(
          "cannot start the embedded ElasticMQ on "
              + host
              + ":"
              + port
              + " ("
              + e.getMessage()
              + "); free the port, set activity.channels.sqs.embedded.port, "
              + "or configure activity.channels.sqs.endpoint",
          e);
    }
    URI endpoint = URI.create("http://" + host + ":" + actualPort);
    log.info("embedded ElasticMQ (SQS) listening on {}", endpoint);
    return new EmbeddedElasticMq(server, endpoint);
  }

  /** {@code "sqs"}. */
  @Override
  public String transport() {
    return "sqs";
  }

  /** The SQS endpoint, e.g. {@code http://127.0.0.1:9324}. */
  @Override
  public URI endpoint() {
    return endpoint;
  }

  /** Stops the server. Never throws. */
  @Override
  public void close() {
    try {
      server.stopAndWait();
      log.info("embedded ElasticMQ on {} stopped", endpoint);
    } catch (RuntimeException e) {
      log.warn("stopping the embedded ElasticMQ failed: {}", e.toString());
    }
  }
}
