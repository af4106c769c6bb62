package io.activityservice.app.cep;

import io.activityservice.detector.DerivedEvents;
import io.activityservice.detector.DetectorEngine;
import io.activityservice.detector.DetectorMetrics;
import io.activityservice.detector.DetectorRepository;
import io.activityservice.detector.DetectorService;
import io.activityservice.detector.DetectorTap;
import io.activityservice.detector.esper.EsperDetectorEngine;
import io.activityservice.events.ingest.EventIngest;
import io.activityservice.events.registry.EventRegistry;
import io.activityservice.events.registry.EventType;
import io.activityservice.events.delivery.DeadLetters;
import io.activityservice.events.routing.EventRouter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
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
  DerivedEvents derivedEvents(EventIngest ingest, DeadLetters deadLetters, DetectorMetrics metrics,
                              DetectorProperties props) {
    return new DerivedEvents(ingest, deadLetters, metrics, props.maxHopCount(), props.queueCapacity());
  }

  @Bean(destroyMethod = "close")
  DetectorEngine detectorEngine(EventRegistry registry, DerivedEvents derived, DetectorMetrics metrics, Clock clock,
                                DetectorProperties props, EventRouter router) {
    EsperDetectorEngine engine = new EsperDetectorEngine(type -> registry.find(type).map(EventType::schema),
        derived, metrics, clock,
        props.toSettings());
    router.addTap(new DetectorTap(engine));
    return engine;
  }

  @Bean
  DetectorService detectorService(JdbcClient jdbc, DetectorEngine engine, Clock clock) {
    DetectorService service = new DetectorService(new DetectorRepository(jdbc), engine, clock);
    service.loadAll();
    return service;
  }
}
