package io.activityservice.perf.peer.camel;

import org.apache.camel.builder.RouteBuilder;
import org.springframework.stereotype.Component;

/**
 * The relays: {@code from(uri).to(uri)}, nothing else, as a team would write a plain relay; a JMS →
 * SQS route also rewrites the binary-mode event as a structured one ({@link StructuredCloudEvents})
 * and drops the JMS headers (SQS takes at most 10 message attributes, and its consumers read
 * structured events).
 */
@Component
public class RelayRoutes extends RouteBuilder {

  private final PeerProperties props;

  RelayRoutes(PeerProperties props) {
    this.props = props;
  }

  @Override
  public void configure() {
    for (PeerProperties.Route r : props.routes()) {
      var route = from(r.from()).routeId(r.id());
      if (r.structured()) {
        route.process(
            e -> {
              String json =
                  StructuredCloudEvents.fromBinary(
                      e.getMessage().getHeaders(), e.getMessage().getBody(String.class));
              e.getMessage().removeHeaders("*");
              e.getMessage().setBody(json);
            });
      }
      route.to(r.to());
    }
  }
}
