package io.activityservice.detector.autoconfigure;

import io.activityservice.detector.DetectorEngine;
import io.activityservice.detector.DetectorMetrics;
import io.activityservice.detector.DetectorSchema;
import io.activityservice.detector.DetectorService;
import io.activityservice.detector.DetectorTap;
import io.activityservice.detector.esper.EsperDetectorEngine;
import io.activityservice.detector.internal.DerivedRows;
import io.activityservice.detector.internal.DetectorRepository;
import io.activityservice.events.cluster.ConfigChangeLog;
import io.activityservice.events.cluster.ConfigPropagator;
import io.activityservice.events.cluster.ProcessorRouting;
import io.activityservice.events.derive.DerivedEventEmitter;
import io.activityservice.events.registry.EventRegistry;
import io.activityservice.events.registry.EventType;
import io.activityservice.events.routing.EventRouter;
import io.activityservice.events.schema.ModuleSchema;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Complex event detectors configure themselves: the Esper engine behind {@link DetectorEngine}, the
 * derived-row publisher that feeds rows back into ingest, the router tap (one node) or the
 * processor routing (several replicas), and the {@link DetectorService}, which redeploys the stored
 * detectors when the context starts (before inbound channels start). It uses the Event Service's
 * beans (registry, router, emitter, configuration log, JDBC, clock, meters).
 *
 * <p>Settings: a {@link Settings} bean if the application defines one (activity-service binds
 * {@code activity.detectors.*} into it), else {@link Settings#defaults()}. The module does not bind
 * properties itself: the application owns property binding, so the settings keep one prefix and one
 * validation.
 */
@AutoConfiguration
public class DetectorAutoConfiguration {

  /**
   * The module's settings.
   *
   * @param maxHopCount derived events whose hop count exceeds it are dead-lettered, breaking
   *     detector loops
   * @param engine the engine's threads, queues, clock tick and sandbox limits; its queue capacity
   *     also bounds the rows waiting to be emitted
   */
  public record Settings(int maxHopCount, EsperDetectorEngine.Settings engine) {

    /** Default of {@link #maxHopCount()}. */
    public static final int DEFAULT_MAX_HOP_COUNT = 8;

    public Settings {
      if (maxHopCount < 1) {
        throw new IllegalArgumentException(
            "maxHopCount must be at least 1, e.g. 8; got " + maxHopCount);
      }
      java.util.Objects.requireNonNull(engine, "engine");
    }

    /**
     * The defaults: 8 hops, one engine thread, 10,000 queued events, a 100 ms tick, the default
     * sandbox limits.
     */
    public static Settings defaults() {
      return new Settings(
          DEFAULT_MAX_HOP_COUNT,
          new EsperDetectorEngine.Settings(1, 10_000, java.time.Duration.ofMillis(100)));
    }
  }

  /** The detectors' migrations (after event-service's; docs/migrations.md). */
  @Bean
  ModuleSchema detectorSchema() {
    return DetectorSchema.SCHEMA;
  }

  @Bean
  @ConditionalOnMissingBean
  DetectorMetrics detectorMetrics(MeterRegistry meters) {
    return new DetectorMetrics(meters);
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  DerivedRows detectorDerivedRows(
      DerivedEventEmitter emitter, DetectorMetrics metrics, ObjectProvider<Settings> settings) {
    Settings s = settings.getIfAvailable(Settings::defaults);
    return DerivedRows.of(emitter, metrics, s.maxHopCount(), s.engine().queueCapacity());
  }

  /**
   * One node: the router's tap feeds the engine. Several replicas: detectors get input from
   * internal channels.
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  DetectorEngine detectorEngine(
      EventRegistry registry,
      DerivedRows derived,
      DetectorMetrics metrics,
      Clock clock,
      ObjectProvider<Settings> settings,
      EventRouter router,
      ObjectProvider<ProcessorRouting> cluster) {
    EsperDetectorEngine engine =
        new EsperDetectorEngine(
            type -> registry.find(type).map(EventType::schema),
            derived,
            metrics,
            clock,
            settings.getIfAvailable(Settings::defaults).engine());
    if (cluster.getIfAvailable() == null) {
      router.addTap(new DetectorTap(engine));
    }
    return engine;
  }

  @Bean
  @ConditionalOnMissingBean
  DetectorService detectorService(
      JdbcClient jdbc,
      DetectorEngine engine,
      Clock clock,
      ConfigChangeLog changes,
      ConfigPropagator propagator,
      ObjectProvider<ProcessorRouting> cluster) {
    DetectorService service =
        new DetectorService(
            new DetectorRepository(jdbc),
            engine,
            clock,
            changes,
            DetectorService.placement(cluster.getIfAvailable(), engine));
    service.loadAll();
    propagator.register(DetectorService.KIND, service::reload);
    return service;
  }
}
