package io.activityservice.app.cep;

import io.activityservice.detector.autoconfigure.DetectorAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Hands the bound {@code activity.detectors.*} properties to the detector module, which configures
 * itself ({@link DetectorAutoConfiguration}: engine, derived rows, router tap or processor routing,
 * service).
 */
@Configuration(proxyBeanMethods = false)
public class DetectorConfiguration {

  @Bean
  DetectorAutoConfiguration.Settings detectorSettings(DetectorProperties props) {
    return new DetectorAutoConfiguration.Settings(props.maxHopCount(), props.toSettings());
  }
}
