package io.activityservice.detector;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.channel.ChannelAdapter;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundHandler;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.OutboundChannel;
import io.activityservice.detector.esper.EsperDetectorEngine;
import io.activityservice.detector.internal.DerivedRows;
import io.activityservice.detector.internal.DetectorRepository;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.delivery.DeadLetters;
import io.activityservice.events.delivery.DeliveryMetrics;
import io.activityservice.events.delivery.DeliverySettings;
import io.activityservice.events.delivery.DeliveryStore;
import io.activityservice.events.delivery.DurableDelivery;
import io.activityservice.events.derive.DerivedEventEmitter;
import io.activityservice.events.ingest.EventIngest;
import io.activityservice.events.json.Json;
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
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.h2.jdbcx.JdbcDataSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The real detector path without Spring: H2 + Flyway, registry, router, ingest, dead letters to an
 * in-memory channel, the Esper engine and the derived-event publisher. Every routed event is
 * recorded by a second router tap.
 */
final class Harness implements AutoCloseable {

  /** An in-memory channel adapter (scheme {@code mem}) that records what is sent to it. */
  static final class MemoryAdapter implements ChannelAdapter {
    final List<CloudEvent> sent = new CopyOnWriteArrayList<>();

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
          sent.add(event);
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
  }

  static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");

  final JdbcClient jdbc;
  final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  final EventRegistry registry;
  final EventRouter router;
  final EventIngest ingest;
  final MemoryAdapter memory = new MemoryAdapter();
  final List<RoutableEvent> routed = new CopyOnWriteArrayList<>();
  final DetectorMetrics metrics = new DetectorMetrics(meters);
  final DerivedRows derived;
  final EsperDetectorEngine engine;
  final DetectorService service;
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  private final ChannelRegistry channels;
  private final DurableDelivery delivery;

  Harness(int maxHopCount) {
    this("mem:" + UUID.randomUUID(), maxHopCount, 10_000);
  }

  Harness(String db, int maxHopCount, int queueCapacity) {
    this(
        db, maxHopCount, new EsperDetectorEngine.Settings(2, queueCapacity, Duration.ofMillis(50)));
  }

  Harness(String db, int maxHopCount, EsperDetectorEngine.Settings settings) {
    int queueCapacity = settings.queueCapacity();
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:" + db + ";DB_CLOSE_DELAY=-1");
    ds.setUser("sa");
    ModuleMigrations.on(ds, EventsSchema.SCHEMA, DetectorSchema.SCHEMA).migrate();
    jdbc = JdbcClient.create(ds);
    Clock clock = Clock.systemUTC();
    registry =
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
    DeadLetters deadLetters = delivery.deadLetters();
    router =
        new EventRouter(
            index,
            delivery,
            new DuplicateFilter(Duration.ofMinutes(10), 100_000),
            new RoutingMetrics(meters, type -> true),
            100_000);
    ingest = new EventIngest(registry, router, clock);
    derived =
        DerivedRows.of(
            new DerivedEventEmitter(ingest, deadLetters), metrics, maxHopCount, queueCapacity);
    engine =
        new EsperDetectorEngine(
            type -> registry.find(type).map(t -> t.schema()), derived, metrics, clock, settings);
    router.addTap(new DetectorTap(engine));
    router.addTap(routed::add);
    service = new DetectorService(new DetectorRepository(jdbc), engine, clock);
  }

  /** Registers the example types (examples/types.json). */
  void registerExampleTypes() throws Exception {
    for (JsonNode t : Json.MAPPER.readTree(Files.readString(Path.of("examples/types.json")))) {
      registry.create(
          t.get("type").asText(),
          t.path("description").asText(null),
          t.path("owner").asText(null),
          t.get("schema"));
    }
  }

  /** Creates a detector from an example file. */
  DetectorDefinition createExample(String file) throws Exception {
    return create(Json.MAPPER.readTree(Files.readString(Path.of("examples", file))));
  }

  DetectorDefinition create(JsonNode d) {
    Map<String, String> inputs = new LinkedHashMap<>();
    Iterator<Map.Entry<String, JsonNode>> it = d.get("inputs").fields();
    it.forEachRemaining(e -> inputs.put(e.getKey(), e.getValue().asText()));
    return service.create(
        d.get("name").asText(),
        inputs,
        d.get("epl").asText(),
        d.get("emits").asText(),
        ClockMode.parse(d.path("clock").asText(null)));
  }

  /** Publishes through ingest (prepare + route) as a producer would. */
  void publish(String id, String type, String source, Instant time, String dataJson) {
    CloudEventBuilder b =
        CloudEventBuilder.v1()
            .withId(id)
            .withType(type)
            .withSource(URI.create(source))
            .withTime(OffsetDateTime.ofInstant(time, ZoneOffset.UTC));
    if (dataJson != null) {
      b.withDataContentType("application/json").withData(dataJson.getBytes(StandardCharsets.UTF_8));
    }
    ingest.publish(b.build()).join();
  }

  /** Routed events of a type (derived events show up here after re-entering ingest). */
  List<RoutableEvent> routedOf(String type) {
    return routed.stream().filter(e -> e.event().getType().equals(type)).toList();
  }

  static String data(RoutableEvent e) {
    return Json.write(e.data());
  }

  @Override
  public void close() {
    engine.close();
    derived.close();
    channels.close();
    delivery.close();
    timer.shutdownNow();
  }
}
