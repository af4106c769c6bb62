package io.activityservice.app.cep;

import io.activityservice.detector.DerivedEvents;
import io.activityservice.detector.DetectorDefinition;
import io.activityservice.detector.DetectorEngine;
import io.activityservice.detector.DetectorMetrics;
import io.activityservice.detector.DetectorRepository;
import io.activityservice.detector.DetectorService;
import io.activityservice.detector.DetectorTap;
import io.activityservice.detector.esper.EsperDetectorEngine;
import io.activityservice.events.cluster.ConfigChangeLog;
import io.activityservice.events.cluster.ConfigPropagator;
import io.activityservice.events.cluster.PartitionKey;
import io.activityservice.events.cluster.ProcessorRouting;
import io.activityservice.events.derive.DerivedEventEmitter;
import io.activityservice.events.registry.EventRegistry;
import io.activityservice.events.registry.EventType;
import io.activityservice.events.routing.EventRouter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Set;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Wires complex event detectors: the Esper engine behind {@link DetectorEngine}, the derived-event
 * publisher that feeds rows back into ingest, the router tap, and the service that redeploys stored
 * detectors when the context starts (before inbound channels start).
 */
@Configuration(proxyBeanMethods = false)
public class DetectorConfiguration {

  @Bean
  DetectorMetrics detectorMetrics(MeterRegistry meters) {
    return new DetectorMetrics(meters);
  }

  @Bean(destroyMethod = "close")
  DerivedEvents derivedEvents(DerivedEventEmitter emitter, DetectorMetrics metrics, DetectorProperties props) {
    return new DerivedEvents(emitter, metrics, props.maxHopCount(), props.queueCapacity());
  }

  /** One node: the router's tap feeds the engine. Several replicas: detectors get input from internal channels. */
  @Bean(destroyMethod = "close")
  DetectorEngine detectorEngine(EventRegistry registry, DerivedEvents derived, DetectorMetrics metrics, Clock clock,
                                DetectorProperties props, EventRouter router, ObjectProvider<ProcessorRouting> cluster) {
    EsperDetectorEngine engine = new EsperDetectorEngine(type -> registry.find(type).map(EventType::schema),
        derived, metrics, clock, props.toSettings());
    if (cluster.getIfAvailable() == null) {
      router.addTap(new DetectorTap(engine));
    }
    return engine;
  }

  @Bean
  DetectorService detectorService(JdbcClient jdbc, DetectorEngine engine, Clock clock, ConfigChangeLog changes,
                                  ConfigPropagator propagator, ObjectProvider<ProcessorRouting> cluster) {
    ProcessorRouting routing = cluster.getIfAvailable();
    DetectorService.Placement placement = routing == null ? DetectorService.Placement.LOCAL
        : new DetectorService.Placement() {
          @Override
          public void deployed(DetectorDefinition d) {
            routing.register(new ProcessorRouting.Processor(DetectorService.KIND, d.name(),
                PartitionKey.parse(d.partitionBy()), Set.copyOf(d.inputs().values()),
                event -> engine.submitTo(d.name(), event)));
          }

          @Override
          public void undeployed(String name) {
            routing.unregister(DetectorService.KIND, name);
          }
        };
    DetectorService service = new DetectorService(new DetectorRepository(jdbc), engine, clock, changes, placement);
    service.loadAll();
    propagator.register(DetectorService.KIND, service::reload);
    return service;
  }
}
