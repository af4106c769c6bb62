package io.activityservice.perf.peer.camel;

import java.net.URI;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The peer's settings, given by the runner on the command line.
 *
 * @param jmsBrokerUrl ActiveMQ broker URL for the pooled connection factory (null: no JMS routes)
 * @param jmsMaxConnections connections in the pool (1: what a small relay uses)
 * @param sqsEndpoint SQS endpoint override (LocalStack), or null for AWS's default
 * @param sqsRegion SQS region
 * @param routes the relays: {@code from} and {@code to} are Camel endpoint URIs, written by the
 *     runner as a team would configure a plain relay (perf-tests/README.md lists them)
 */
@ConfigurationProperties("peer")
public record PeerProperties(
    String jmsBrokerUrl,
    Integer jmsMaxConnections,
    URI sqsEndpoint,
    String sqsRegion,
    List<Route> routes) {

  /** Defaults and checks. */
  public PeerProperties {
    routes = routes == null ? List.of() : List.copyOf(routes);
    jmsMaxConnections = jmsMaxConnections == null ? 1 : jmsMaxConnections;
    sqsRegion = sqsRegion == null || sqsRegion.isBlank() ? "us-east-1" : sqsRegion;
    for (Route r : routes) {
      if (r.id() == null || r.from() == null || r.to() == null) {
        throw new IllegalArgumentException(
            "peer.routes[*] needs id, from and to, e.g. --peer.routes[0].id=CT2"
                + " --peer.routes[0].from=jms:queue:in --peer.routes[0].to=jms:topic:out; got "
                + r);
      }
    }
  }

  /**
   * One relay.
   *
   * @param id route id (the suite's scenario id, e.g. {@code CT2})
   * @param from consumer endpoint URI
   * @param to producer endpoint URI
   * @param structured turn a binary-mode JMS CloudEvent (properties {@code cloudEvents_*}, data as
   *     body) into a structured-mode JSON body before sending (JMS → SQS, whose consumers read
   *     structured events)
   */
  public record Route(String id, String from, String to, boolean structured) {}
}
