package io.activityservice.channel.stream;

import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Lowest-precedence default {@code spring.cloud.stream.function.autodetect=false}: the adapter
 * binds programmatically, and Spring Cloud Stream must not bind the application's unrelated {@code
 * Function}/{@code Supplier}/{@code Consumer} beans to Kafka (which would connect to {@code
 * localhost:9092} even when Kafka is not configured). Any explicit setting wins.
 */
public class StreamDefaultsEnvironmentPostProcessor implements EnvironmentPostProcessor {

  static final String AUTODETECT = "spring.cloud.stream.function.autodetect";

  @Override
  public void postProcessEnvironment(
      ConfigurableEnvironment environment, SpringApplication application) {
    if (!environment.getPropertySources().contains("activityKafkaChannelDefaults")) {
      environment
          .getPropertySources()
          .addLast(
              new MapPropertySource("activityKafkaChannelDefaults", Map.of(AUTODETECT, "false")));
    }
  }
}
