package io.activityservice.app.stats;

import io.activityservice.app.console.ConsoleProperties;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The statistics behind the console's charts: meters sampled once the application is ready. */
@Configuration(proxyBeanMethods = false)
public class StatsConfiguration {

  /** Samples the meters once the application is ready. */
  @Bean(destroyMethod = "close")
  StatsSampler statsSampler(MeterRegistry registry, Clock clock, ConsoleProperties props) {
    return new StatsSampler(registry, clock, props.stats());
  }

  @Bean
  ApplicationListener<ApplicationReadyEvent> statsSamplerStarter(StatsSampler sampler) {
    return ready -> sampler.start();
  }
}
