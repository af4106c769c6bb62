package io.activityservice.app.capacity;

import io.activityservice.app.console.ConsoleProperties;
import io.activityservice.app.stats.StatsSampler;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The run-time capacity model ({@code GET /api/v1/capacity}) and its warning metrics. */
@Configuration(proxyBeanMethods = false)
public class CapacityConfiguration {

  @Bean
  CapacityMonitor capacityMonitor(
      StatsSampler sampler,
      CapacityProperties settings,
      ConsoleProperties console,
      MeterRegistry registry) {
    return new CapacityMonitor(sampler, settings, console.stats(), registry);
  }
}
