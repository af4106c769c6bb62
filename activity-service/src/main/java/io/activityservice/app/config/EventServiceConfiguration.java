package io.activityservice.app.config;

import io.activityservice.app.cluster.ClusterProperties;
import io.activityservice.events.autoconfigure.EventServiceAutoConfiguration;
import io.activityservice.events.autoconfigure.EventServiceSettings;
import io.activityservice.events.ingest.InboundChannelDefinition;
import java.net.URI;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Hands the bound {@code activity.*} properties to the Event Service, which configures itself
 * ({@link EventServiceAutoConfiguration}); adapters arrive as beans from their own
 * auto-configurations.
 */
@Configuration(proxyBeanMethods = false)
public class EventServiceConfiguration {

  @Bean
  EventServiceSettings eventServiceSettings(
      ActivityProperties props,
      DeliveryProperties delivery,
      IngestProperties ingest,
      PatternProperties patterns,
      TransformProperties transforms,
      ClusterProperties cluster) {
    ActivityProperties.Routing r = props.routing();
    return new EventServiceSettings(
        cluster.replicaId(),
        props.unregisteredTypes(),
        new EventServiceSettings.Routing(
            r.maxInFlight(), r.deadLetter(), r.dedupWindow(), r.dedupMaxEntries()),
        delivery.toSettings(r.parkAfter(), cluster.replicaId()),
        delivery.maxSubscriptionTags(),
        patterns.limits(),
        ingest.maxAttributeLength(),
        new EventServiceSettings.Cluster(
            cluster.enabled(), cluster.heartbeat(), cluster.configPollInterval()),
        props.inbound().stream()
            .map(
                i ->
                    new InboundChannelDefinition(
                        i.uri(),
                        i.defaultType(),
                        i.defaultSource() == null ? null : URI.create(i.defaultSource()),
                        i.properties(),
                        "config",
                        null))
            .toList(),
        transforms.limits());
  }
}
