package io.activityservice.app.cluster;

import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.cluster.ProcessorRouting;
import io.activityservice.events.routing.EventRouter;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Cluster mode: with {@code activity.cluster.enabled}, detector and rule-set input goes through
 * internal broker channels. The configuration change log, its propagator and the cluster view are
 * the Event Service's own ({@code EventServiceAutoConfiguration}).
 */
@Configuration(proxyBeanMethods = false)
public class ClusterConfiguration {

  /**
   * Detector and rule-set input through the broker; only with {@code
   * activity.cluster.enabled=true}.
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnProperty(name = "activity.cluster.enabled", havingValue = "true")
  ProcessorRouting processorRouting(
      ChannelRegistry channels, ClusterProperties props, EventRouter router) {
    ProcessorRouting routing = new ProcessorRouting(channels, props.internalChannel());
    router.addForwarder(routing::forward);
    return routing;
  }
}
