package io.activityservice.events.autoconfigure;

import io.activityservice.channel.ChannelAdapter;
import io.activityservice.channel.ChannelUri;
import io.activityservice.events.archive.ArchiveService;
import io.activityservice.events.archive.ReplayService;
import io.activityservice.events.archive.ReplayTarget;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.cluster.ClusterMembers;
import io.activityservice.events.cluster.ClusterModeGuard;
import io.activityservice.events.cluster.ConfigApplyWaiter;
import io.activityservice.events.cluster.ConfigChangeLog;
import io.activityservice.events.cluster.ConfigPropagator;
import io.activityservice.events.cluster.ProcessorRouting;
import io.activityservice.events.delivery.DeadLetters;
import io.activityservice.events.delivery.DeliveryMetrics;
import io.activityservice.events.delivery.DeliveryStore;
import io.activityservice.events.delivery.DurableDelivery;
import io.activityservice.events.derive.DerivedEventEmitter;
import io.activityservice.events.ingest.EventIngest;
import io.activityservice.events.ingest.InboundChannelRepository;
import io.activityservice.events.ingest.InboundChannels;
import io.activityservice.events.registry.EventRegistry;
import io.activityservice.events.registry.EventTypeRepository;
import io.activityservice.events.routing.DuplicateFilter;
import io.activityservice.events.routing.EventRouter;
import io.activityservice.events.routing.RoutingMetrics;
import io.activityservice.events.schema.EventsSchema;
import io.activityservice.events.schema.ModuleSchema;
import io.activityservice.events.secret.SecretCipher;
import io.activityservice.events.subscription.SubscriptionIndex;
import io.activityservice.events.subscription.SubscriptionRepository;
import io.activityservice.events.subscription.SubscriptionService;
import io.activityservice.events.tracing.EventTracing;
import io.activityservice.events.transform.OutputCheck;
import io.activityservice.events.webhook.Connections;
import io.activityservice.events.webhook.FlowControl;
import io.activityservice.events.webhook.SigningSecrets;
import io.activityservice.events.webhook.TokenClient;
import io.activityservice.events.webhook.WebhookTargets;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The Event Service configures itself: registry, subscriptions, router, durable delivery, ingest,
 * inbound channels, archives and replays, and the replicas' configuration propagation and cluster
 * view, from one {@link EventServiceSettings} bean that the application hands in (it binds its
 * properties; this module names none). Channel adapters arrive as {@link ChannelAdapter} beans from
 * their own auto-configurations.
 *
 * <p>The application adds, when it wants them, an {@link ArchiveService.Settings} bean (archives),
 * a {@link ReplayService.Settings} and a {@link ReplayTarget} (replays into its detectors and rule
 * sets; without them there is no {@link ReplayService}) and a {@link ProcessorRouting} (cluster
 * mode).
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration"
    })
@ConditionalOnBean(EventServiceSettings.class)
public class EventServiceAutoConfiguration {

  /** Event-service's migrations (run first; docs/migrations.md). */
  @Bean
  ModuleSchema eventsSchema() {
    return EventsSchema.SCHEMA;
  }

  @Bean
  @ConditionalOnMissingBean
  Clock clock() {
    return Clock.systemUTC();
  }

  /**
   * No tracing unless the application provides an {@link EventTracing} (the Activity Service does,
   * with the OpenTelemetry SDK, once an exporter is configured): events pass through with their
   * trace context unchanged.
   */
  @Bean
  @ConditionalOnMissingBean
  EventTracing eventTracing() {
    return EventTracing.NONE;
  }

  // ---- cluster: configuration changes and the replicas' view ----

  /**
   * This replica's heartbeat, started once the {@link ClusterModeGuard} has found no live replica
   * of the other mode on the database: before any other service is built, so nothing consumes or
   * answers when the guard refuses.
   */
  @DependsOnDatabaseInitialization
  @Bean(destroyMethod = "close")
  ClusterMembers clusterMembers(DataSource dataSource, EventServiceSettings settings, Clock clock) {
    EventServiceSettings.Cluster cluster = settings.cluster();
    new ClusterModeGuard(dataSource, clock)
        .check(settings.replicaId(), null, cluster.enabled(), cluster.heartbeat());
    return new ClusterMembers(
            dataSource, settings.replicaId(), clock, cluster.heartbeat(), cluster.enabled())
        .start();
  }

  /** Built after the cluster-mode check: every service that changes configuration needs it. */
  @DependsOnDatabaseInitialization
  @Bean
  ConfigChangeLog configChangeLog(
      DataSource dataSource, EventServiceSettings settings, Clock clock, ClusterMembers members) {
    return new ConfigChangeLog(dataSource, settings.replicaId(), clock);
  }

  @DependsOnDatabaseInitialization
  @Bean(destroyMethod = "close")
  ConfigPropagator configPropagator(
      ConfigChangeLog changes, DataSource dataSource, EventServiceSettings settings) {
    return new ConfigPropagator(changes, dataSource, settings.cluster().configPollInterval());
  }

  @Bean
  ClusterStarter clusterStarter(
      ConfigPropagator propagator,
      ClusterMembers members,
      ObjectProvider<ProcessorRouting> routing,
      Environment environment) {
    return new ClusterStarter(propagator, members, routing, environment);
  }

  /** What a definition write waits on until every live replica runs its version. */
  @Bean
  ConfigApplyWaiter configApplyWaiter(
      EventServiceSettings settings, ConfigPropagator propagator, ClusterStarter starter) {
    ConfigApplyWaiter waiter =
        new ConfigApplyWaiter(settings.replicaId(), propagator::appliedVersion, starter::members);
    propagator.onOthersApplied(waiter::signal);
    starter.waiter = waiter;
    return waiter;
  }

  // ---- the core ----

  @Bean
  EventRegistry eventRegistry(
      DataSource dataSource,
      EventServiceSettings settings,
      Clock clock,
      ConfigChangeLog changes,
      ConfigPropagator propagator) {
    EventRegistry registry =
        new EventRegistry(
            new EventTypeRepository(JdbcClient.create(dataSource)),
            settings.unregisteredTypes(),
            clock,
            changes);
    // Detectors and rule sets compile against event types: a type change applies between, not
    // beside, them.
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
   * Durable delivery: first attempts, parking in the database after the park-after delay, retries
   * claimed from there by the retry worker. Started once subscriptions are loaded, so claimed
   * deliveries find them.
   */
  @DependsOnDatabaseInitialization
  @Bean(destroyMethod = "close")
  DurableDelivery durableDelivery(
      DataSource dataSource,
      ChannelRegistry channels,
      SubscriptionIndex index,
      MeterRegistry meters,
      Clock clock,
      EventServiceSettings settings,
      EventTracing tracing) {
    String dl = settings.routing().deadLetter();
    ChannelUri fallback =
        dl == null || dl.isBlank() ? null : channels.parse("activity.routing.dead-letter", dl);
    return new DurableDelivery(
            new DeliveryStore(dataSource),
            channels,
            fallback,
            index::get,
            new DeliveryMetrics(meters, settings.maxSubscriptionTags()),
            clock,
            settings.delivery())
        .tracing(tracing);
  }

  /**
   * Signing secrets, connections and per-delivery webhook settings. The {@link SecretCipher} comes
   * from the application ({@code activity.secrets.*}); without one, a key is made up for this run
   * only (secrets stored now cannot be read after a restart), which suits tests of this module.
   */
  @DependsOnDatabaseInitialization
  @Bean(destroyMethod = "close")
  WebhookTargets webhookTargets(
      DataSource dataSource,
      ObjectProvider<SecretCipher> cipher,
      ObjectProvider<TokenClient> tokens,
      Clock clock,
      ConfigChangeLog changes,
      ConfigPropagator propagator,
      ClusterMembers members,
      MeterRegistry meters,
      EventServiceSettings settings) {
    SecretCipher c =
        cipher.getIfAvailable(
            () -> {
              LoggerFactory.getLogger(EventServiceAutoConfiguration.class)
                  .warn(
                      "no SecretCipher bean: webhook secrets are encrypted with a key of this run"
                          + " only");
              return new SecretCipher(SecretCipher.newKey());
            });
    JdbcClient jdbc = JdbcClient.create(dataSource);
    SigningSecrets secrets = new SigningSecrets(jdbc, c, clock, changes);
    Connections connections = new Connections(jdbc, c, clock, changes, tokens.getIfAvailable());
    propagator.register(SigningSecrets.CHANGE_KIND, secrets::reload);
    propagator.register(Connections.CHANGE_KIND, connections::reload);
    // The live replicas share each target's rate.
    FlowControl flow =
        new FlowControl(
            clock,
            () -> (int) members.members().stream().filter(ClusterMembers.Member::live).count(),
            meters,
            settings.maxSubscriptionTags());
    return new WebhookTargets(secrets, connections, flow, clock);
  }

  @Bean(destroyMethod = "close")
  Connections webhookConnections(WebhookTargets targets) {
    return targets.connections();
  }

  @Bean
  DeadLetters deadLetters(DurableDelivery delivery) {
    return delivery.deadLetters();
  }

  @Bean
  SubscriptionService subscriptionService(
      DataSource dataSource,
      SubscriptionIndex index,
      ChannelRegistry channels,
      Clock clock,
      DurableDelivery delivery,
      ConfigChangeLog changes,
      ConfigPropagator propagator,
      EventServiceSettings settings,
      WebhookTargets webhooks,
      EventRegistry registry) {
    delivery.webhooks(webhooks);
    SubscriptionService service =
        new SubscriptionService(
            new SubscriptionRepository(JdbcClient.create(dataSource)),
            index,
            channels,
            clock,
            delivery::subscriptionDeleted,
            changes,
            settings.patterns(),
            settings.transforms(),
            OutputCheck.againstSchemas(registry));
    service.webhooks(webhooks);
    service.loadAll();
    propagator.register(SubscriptionService.CHANGE_KIND, service::reload);
    delivery.start();
    return service;
  }

  @Bean
  EventRouter eventRouter(
      SubscriptionIndex index,
      DurableDelivery delivery,
      MeterRegistry meters,
      EventServiceSettings settings,
      SubscriptionService subscriptionsLoaded,
      EventRegistry registry,
      EventTracing tracing) {
    EventServiceSettings.Routing r = settings.routing();
    // Type tags for registered types only: publishers cannot grow the metric with random types.
    return new EventRouter(
            index,
            delivery,
            new DuplicateFilter(r.dedupWindow(), r.dedupMaxEntries()),
            new RoutingMetrics(meters, registry::isRegistered, registry::version),
            r.maxInFlight())
        .tracing(tracing);
  }

  @Bean
  EventIngest eventIngest(
      EventRegistry registry,
      EventRouter router,
      Clock clock,
      EventServiceSettings settings,
      EventTracing tracing) {
    return new EventIngest(registry, router, clock, settings.maxAttributeLength()).tracing(tracing);
  }

  /** Derived events (detector rows, rule actions) leave their producer through this one emitter. */
  @Bean
  DerivedEventEmitter derivedEventEmitter(EventIngest ingest, DeadLetters deadLetters) {
    return new DerivedEventEmitter(ingest, deadLetters);
  }

  @Bean(destroyMethod = "close")
  InboundChannels inboundChannels(
      ChannelRegistry channels,
      DataSource dataSource,
      EventIngest ingest,
      DeadLetters deadLetters,
      Clock clock,
      ConfigChangeLog changes,
      ConfigPropagator propagator) {
    InboundChannels inbound =
        new InboundChannels(
            channels,
            new InboundChannelRepository(JdbcClient.create(dataSource)),
            ingest,
            deadLetters,
            clock,
            changes);
    propagator.register(InboundChannels.CHANGE_KIND, inbound::reload);
    return inbound;
  }

  /**
   * Inbound channels start only when everything else is ready, so no message arrives half-wired.
   */
  @Bean
  InboundStarter inboundStarter(InboundChannels inbound, EventServiceSettings settings) {
    return new InboundStarter(inbound, settings);
  }

  // ---- archives and replays ----

  /** Archives: a router forwarder that queues matching events for a batch writer. */
  @DependsOnDatabaseInitialization
  @Bean(destroyMethod = "close")
  @ConditionalOnBean(ArchiveService.Settings.class)
  ArchiveService archiveService(
      DataSource dataSource,
      ConfigChangeLog changes,
      ConfigPropagator propagator,
      Clock clock,
      MeterRegistry meters,
      ArchiveService.Settings settings,
      EventRouter router) {
    ArchiveService archives = new ArchiveService(dataSource, changes, clock, meters, settings);
    router.addRecordingForwarder(archives::archive);
    propagator.register(ArchiveService.CHANGE_KIND, archives::reload);
    return archives.start();
  }

  /** Replays, run by one replica at a time into the application's {@link ReplayTarget}. */
  @DependsOnDatabaseInitialization
  @Bean(destroyMethod = "close")
  @ConditionalOnBean({
    ReplayTarget.class,
    ReplayService.Settings.class,
    ArchiveService.Settings.class
  })
  ReplayService replayService(
      DataSource dataSource,
      ArchiveService archives,
      ReplayTarget target,
      Clock clock,
      EventServiceSettings settings,
      ReplayService.Settings replay,
      EventTracing tracing) {
    return new ReplayService(dataSource, archives, target, clock, settings.replicaId(), replay)
        .tracing(tracing)
        .start();
  }

  /** Starts the inbound channels once the application is ready. */
  public static final class InboundStarter {
    private final InboundChannels inbound;
    private final EventServiceSettings settings;

    InboundStarter(InboundChannels inbound, EventServiceSettings settings) {
      this.inbound = inbound;
      this.settings = settings;
    }

    /** Starts the configured inbound channels and those added through the API. */
    @EventListener(ApplicationReadyEvent.class)
    public void start() {
      inbound.startAll(settings.inbound());
    }
  }

  /**
   * Starts propagation, and the heartbeat's full report, once every service has registered how it
   * applies changes.
   */
  public static final class ClusterStarter {
    private final ConfigPropagator propagator;
    private final ClusterMembers members;
    private final ObjectProvider<ProcessorRouting> routing;
    private final Environment environment;
    private volatile boolean started;
    private volatile ConfigApplyWaiter waiter;

    ClusterStarter(
        ConfigPropagator propagator,
        ClusterMembers members,
        ObjectProvider<ProcessorRouting> routing,
        Environment environment) {
      this.propagator = propagator;
      this.members = members;
      this.routing = routing;
      this.environment = environment;
    }

    /** Starts the propagator and the heartbeat's full report. */
    @EventListener(ApplicationReadyEvent.class)
    public void start() {
      // The port the web server listens on, as Spring Boot publishes it once the server runs (none
      // without one).
      String port = environment.getProperty("local.server.port");
      String address = port == null ? null : "port " + port;
      // As soon as this replica applied a newer version: written for the other replicas' waiting
      // writers (and
      // announced), and this replica's own waiting writers woken.
      propagator.onApplied(
          v -> {
            members.reportApplied(v);
            ConfigApplyWaiter w = waiter;
            if (w != null) {
              w.signal();
            }
          });
      members.report(
          address,
          propagator::appliedVersion,
          () -> {
            ProcessorRouting r = routing.getIfAvailable();
            return r == null ? List.of() : r.ownership();
          });
      started = true;
      propagator.start();
    }

    /**
     * The cluster view once this replica runs, or null before: until then writers wait for this
     * process only.
     */
    public ClusterMembers members() {
      return started ? members : null;
    }
  }
}
