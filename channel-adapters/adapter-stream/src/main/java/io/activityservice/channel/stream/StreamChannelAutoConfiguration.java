package io.activityservice.channel.stream;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.cloud.stream.binder.BinderFactory;
import org.springframework.cloud.stream.config.BindingServiceConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * Registers the {@code kafka:} channel adapter when Kafka is configured: when {@code
 * activity.channels.kafka.enabled=true}, or, if that is not set, when {@code
 * spring.cloud.stream.kafka.binder.brokers} is. Without either, nothing is registered and nothing
 * connects to Kafka (bindings are created only when channels are opened).
 */
@AutoConfiguration(after = BindingServiceConfiguration.class)
@Conditional(KafkaChannelsCondition.class)
@EnableConfigurationProperties(KafkaChannelProperties.class)
public class StreamChannelAutoConfiguration {

  @Bean(destroyMethod = "close")
  StreamChannelAdapter streamChannelAdapter(
      BinderFactory binderFactory, KafkaChannelProperties properties) {
    return new StreamChannelAdapter(binderFactory, properties);
  }
}
