package io.activityservice.app.stream;

import io.activityservice.app.cluster.ClusterProperties;
import io.activityservice.app.config.PatternProperties;
import io.activityservice.app.console.ConsoleProperties;
import io.activityservice.app.security.Callers;
import io.activityservice.events.routing.EventRouter;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The console's live event streams, fed by a router tap, and who may read which events on them. */
@Configuration(proxyBeanMethods = false)
public class StreamConfiguration {

  /** Live event streams, fed by a router tap. */
  @Bean(destroyMethod = "close")
  EventStreamHub eventStreamHub(
      ConsoleProperties props,
      ClusterProperties cluster,
      EventRouter router,
      PatternProperties patterns) {
    EventStreamHub hub = new EventStreamHub(props.stream(), cluster.replicaId(), patterns.limits());
    router.addTap(hub::onEvent);
    return hub;
  }

  /**
   * Authorisation of event streams: the event types of the caller's scope (every type for admins,
   * and for everybody when {@code activity.security.enabled=false}).
   */
  @Bean
  StreamAccess streamAccess() {
    return () -> Callers.current().scope()::allows;
  }
}
