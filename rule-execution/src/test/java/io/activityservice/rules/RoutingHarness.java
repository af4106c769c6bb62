package io.activityservice.rules;

import io.activityservice.channel.ChannelAdapter;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundHandler;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.delivery.DeliveryMetrics;
import io.activityservice.events.delivery.DeliverySettings;
import io.activityservice.events.delivery.DeliveryStore;
import io.activityservice.events.delivery.DurableDelivery;
import io.activityservice.events.derive.DerivedEventEmitter;
import io.activityservice.events.ingest.EventIngest;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.registry.EventRegistry;
import io.activityservice.events.registry.EventTypeRepository;
import io.activityservice.events.registry.UnregisteredTypePolicy;
import io.activityservice.events.routing.DuplicateFilter;
import io.activityservice.events.routing.EventRouter;
import io.activityservice.events.routing.RoutingMetrics;
import io.activityservice.events.schema.EventsSchema;
import io.activityservice.events.schema.ModuleMigrations;
import io.activityservice.events.subscription.SubscriptionIndex;
import io.activityservice.rules.TestEvents.Recorder;
import io.activityservice.rules.action.ActionDispatcher;
import io.activityservice.rules.action.ActionHandler;
import io.activityservice.rules.action.LogAction;
import io.activityservice.rules.action.PublishAction;
import io.activityservice.rules.action.SendAction;
import io.activityservice.rules.compile.RuleCompiler;
import io.activityservice.rules.engine.RuleEngine;
import io.activityservice.rules.internal.RuleRepository;
import io.activityservice.rules.service.RuleService;
import io.activityservice.rules.store.RulesSchema;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.h2.jdbcx.JdbcDataSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The real path of rules without Spring: H2 + Flyway, registry, router, ingest, durable delivery
 * with dead letters to an in-memory channel, the derived-event emitter, the rule engine with the
 * real {@code publish}, {@code send} and {@code log} actions (and a recording {@code webhook}), and
 * the rule service. Every routed event is recorded by a router tap: what subscriptions would be
 * handed. Channels of scheme {@code mem} record what is sent to them.
 */
public final class RoutingHarness implements AutoCloseable {

  /**
   * An in-memory channel adapter (scheme {@code mem}) that records what is sent to each address.
   */
  public static final class MemoryAdapter implements ChannelAdapter {
    public final Map<String, List<CloudEvent>> sent = new ConcurrentHashMap<>();

    @Override
    public Set<String> schemes() {
      return Set.of("mem");
    }

    @Override
    public void validate(ChannelUri uri) {}

    @Override
    public OutboundChannel openOutbound(ChannelUri uri) {
      return new OutboundChannel() {
        @Override
        public ChannelUri uri() {
          return uri;
        }

        @Override
        public CompletableFuture<Void> send(CloudEvent event) {
          sent.computeIfAbsent(uri.address(), a -> new CopyOnWriteArrayList<>()).add(event);
          return CompletableFuture.completedFuture(null);
        }

        @Override
        public void close() {}
      };
    }

    @Override
    public InboundChannel openInbound(
        ChannelUri uri, InboundSettings settings, InboundHandler handler) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void close() {}

    /** What was sent to {@code mem:<address>}. */
    public List<CloudEvent> to(String address) {
      return sent.getOrDefault(address, List.of());
    }
  }

  public static final long T0 = 1_700_000_000_000L;

  public final MemoryAdapter memory = new MemoryAdapter();
  public final List<RoutableEvent> routed = new CopyOnWriteArrayList<>();
  public final Recorder webhook = new Recorder("webhook");
  public final RuleRepository repository;
  public final RuleEngine engine;
  public final RuleService service;
  public final RuleCompiler compiler;
  public final EventIngest ingest;
  private final ActionDispatcher dispatcher;
  private final ChannelRegistry channels;
  private final DurableDelivery delivery;

  public RoutingHarness() {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    ds.setUser("sa");
    ModuleMigrations.on(ds, EventsSchema.SCHEMA, RulesSchema.SCHEMA).migrate();
    JdbcClient jdbc = JdbcClient.create(ds);
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    Clock clock = Clock.systemUTC();
    EventRegistry registry =
        new EventRegistry(new EventTypeRepository(jdbc), UnregisteredTypePolicy.ACCEPT, clock);
    channels = new ChannelRegistry(List.of(memory));
    SubscriptionIndex index = new SubscriptionIndex();
    delivery =
        new DurableDelivery(
                new DeliveryStore(ds),
                channels,
                ChannelUri.parse("mem:dead"),
                index::get,
                new DeliveryMetrics(meters, 100),
                clock,
                DeliverySettings.defaults("test"))
            .start();
    EventRouter router =
        new EventRouter(
            index,
            delivery,
            new DuplicateFilter(Duration.ofMinutes(10), 100_000),
            new RoutingMetrics(meters, type -> true),
            100_000);
    ingest = new EventIngest(registry, router, clock);
    DerivedEventEmitter emitter = new DerivedEventEmitter(ingest, delivery.deadLetters());
    RuleSettings settings = RuleSettings.defaults();
    List<ActionHandler> handlers =
        new ArrayList<>(
            List.of(
                new PublishAction(emitter, settings.maxHops()),
                new SendAction(channels, emitter, settings.maxHops()),
                new LogAction(),
                webhook));
    dispatcher =
        new ActionDispatcher(
            handlers, settings.actionConcurrency(), settings.actionQueueCapacity());
    engine = new RuleEngine(dispatcher, meters, settings);
    router.addTap(engine);
    router.addTap(routed::add);
    repository = new RuleRepository(jdbc);
    compiler = new RuleCompiler(settings.eventExpiry());
    service = new RuleService(repository, compiler, engine, clock);
  }

  /** Publishes through ingest (prepare + route) as a producer would. */
  public void publish(String id, String type, String dataJson) {
    ingest
        .publish(
            CloudEventBuilder.v1()
                .withId(id)
                .withType(type)
                .withSource(URI.create("/producer"))
                .withTime(OffsetDateTime.ofInstant(Instant.ofEpochMilli(T0), ZoneOffset.UTC))
                .withDataContentType("application/json")
                .withData(dataJson.getBytes(StandardCharsets.UTF_8))
                .build())
        .join();
  }

  /** Routed events whose type starts with {@code prefix}. */
  public List<RoutableEvent> routedOf(String prefix) {
    return routed.stream().filter(e -> e.event().getType().startsWith(prefix)).toList();
  }

  /** Dead letters sent to the dead-letter channel. */
  public List<CloudEvent> deadLetters() {
    return memory.to("dead");
  }

  @Override
  public void close() {
    engine.close();
    dispatcher.close();
    channels.close();
    delivery.close();
  }
}
