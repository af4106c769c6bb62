package io.activityservice.app.config;

import io.activityservice.channel.ChannelAdapter;
import io.activityservice.app.cluster.ClusterProperties;
import io.activityservice.channel.ChannelUri;
import io.activityservice.events.cluster.ConfigChangeLog;
import io.activityservice.events.cluster.ConfigPropagator;
import io.activityservice.events.derive.DerivedEventEmitter;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.ingest.EventIngest;
import io.activityservice.events.ingest.InboundChannelDefinition;
import io.activityservice.events.ingest.InboundChannelRepository;
import io.activityservice.events.ingest.InboundChannels;
import io.activityservice.events.registry.EventRegistry;
import io.activityservice.events.registry.EventTypeRepository;
import io.activityservice.events.delivery.DeadLetters;
import io.activityservice.events.delivery.DeliveryMetrics;
import io.activityservice.events.delivery.DeliveryStore;
import io.activityservice.events.delivery.DurableDelivery;
import io.activityservice.events.routing.DuplicateFilter;
import io.activityservice.events.routing.EventRouter;
import io.activityservice.events.routing.RoutingMetrics;
import io.activityservice.events.subscription.SubscriptionIndex;
import io.activityservice.events.subscription.SubscriptionRepository;
import io.activityservice.events.subscription.SubscriptionService;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.time.Clock;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.simple.JdbcClient;

/** Wires the Event Service core; adapters arrive as {@link ChannelAdapter} beans from auto-configuration. */
@Configuration(proxyBeanMethods = false)
public class EventServiceConfiguration {

  @Bean
  Clock clock() {
    return Clock.systemUTC();
  }

  @Bean
  EventRegistry eventRegistry(JdbcClient jdbc, ActivityProperties props, Clock clock, ConfigChangeLog changes,
                              ConfigPropagator propagator) {
    EventRegistry registry = new EventRegistry(new EventTypeRepository(jdbc), props.unregisteredTypes(), clock,
        changes);
    // Detectors and rule sets compile against event types: a type change applies between, not beside, them.
    propagator.registerBarrier(EventRegistry.CHANGE_KIND, registry::reload);
    return registry;
  }

  @Bean(destroyMethod = "close")
  ChannelRegistry channelRegistry(List<ChannelAdapter> adapters) {
    return new ChannelRegistry(adapters);
  }

  @Bean
  SubscriptionIndex subscriptionIndex() {
    return new SubscriptionIndex();
  }

  /**
   * Durable delivery: first attempts, parking in the database after {@code activity.routing.park-after}, retries
   * claimed from there by the retry worker. Started once subscriptions are loaded, so claimed deliveries find them.
   */
  @DependsOnDatabaseInitialization
  @Bean(destroyMethod = "close")
  DurableDelivery durableDelivery(DataSource dataSource, ChannelRegistry channels, SubscriptionIndex index,
                                  MeterRegistry meters, Clock clock, ActivityProperties props,
                                  DeliveryProperties delivery, ClusterProperties cluster) {
    String dl = props.routing().deadLetter();
    ChannelUri fallback = dl == null || dl.isBlank() ? null : channels.parse("activity.routing.dead-letter", dl);
    return new DurableDelivery(new DeliveryStore(dataSource), channels, fallback, index::get,
        new DeliveryMetrics(meters, delivery.maxSubscriptionTags()), clock,
        delivery.toSettings(props.routing().parkAfter(), cluster.replicaId()));
  }

  @Bean
  DeadLetters deadLetters(DurableDelivery delivery) {
    return delivery.deadLetters();
  }

  @Bean
  SubscriptionService subscriptionService(JdbcClient jdbc, SubscriptionIndex index, ChannelRegistry channels,
                                          Clock clock, DurableDelivery delivery, ConfigChangeLog changes,
                                          ConfigPropagator propagator, PatternProperties patterns) {
    SubscriptionService service = new SubscriptionService(new SubscriptionRepository(jdbc), index, channels, clock,
        delivery::subscriptionDeleted, changes, patterns.limits());
    service.loadAll();
    propagator.register(SubscriptionService.CHANGE_KIND, service::reload);
    delivery.start();
    return service;
  }

  @Bean
  EventRouter eventRouter(SubscriptionIndex index, DurableDelivery delivery, MeterRegistry meters,
                          ActivityProperties props, SubscriptionService subscriptionsLoaded, EventRegistry registry) {
    ActivityProperties.Routing r = props.routing();
    // Type tags for registered types only: publishers cannot grow the metric with random types.
    return new EventRouter(index, delivery, new DuplicateFilter(r.dedupWindow(), r.dedupMaxEntries()),
        new RoutingMetrics(meters, registry::isRegistered, registry::version), r.maxInFlight());
  }

  @Bean
  EventIngest eventIngest(EventRegistry registry, EventRouter router, Clock clock, IngestProperties ingest) {
    return new EventIngest(registry, router, clock, ingest.maxAttributeLength());
  }

  /** Derived events (detector rows, rule actions) leave their producer through this one emitter. */
  @Bean
  DerivedEventEmitter derivedEventEmitter(EventIngest ingest, DeadLetters deadLetters) {
    return new DerivedEventEmitter(ingest, deadLetters);
  }

  @Bean(destroyMethod = "close")
  InboundChannels inboundChannels(ChannelRegistry channels, JdbcClient jdbc, EventIngest ingest,
                                  DeadLetters deadLetters, Clock clock, ConfigChangeLog changes,
                                  ConfigPropagator propagator) {
    InboundChannels inbound = new InboundChannels(channels, new InboundChannelRepository(jdbc), ingest,
        deadLetters, clock, changes);
    propagator.register(InboundChannels.CHANGE_KIND, inbound::reload);
    return inbound;
  }

  /** Inbound channels start only when everything else is ready, so no message arrives half-wired. */
  @Bean
  InboundStarter inboundStarter(InboundChannels inbound, ActivityProperties props) {
    return new InboundStarter(inbound, props);
  }

  /** Starts the inbound channels once the application is ready. */
  public static final class InboundStarter {
    private final InboundChannels inbound;
    private final ActivityProperties props;

    InboundStarter(InboundChannels inbound, ActivityProperties props) {
      this.inbound = inbound;
      this.props = props;
    }

    @EventListener(ApplicationReadyEvent.class)
    public void start() {
      inbound.startAll(props.inbound().stream()
          .map(i -> new InboundChannelDefinition(i.uri(), i.defaultType(),
              i.defaultSource() == null ? null : URI.create(i.defaultSource()), i.properties(), "config", null))
          .toList());
    }
  }
}
