package io.activityservice.channel.http;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/** Registers the webhook adapter. Disable with {@code activity.channels.http.enabled=false}. */
@AutoConfiguration
@EnableConfigurationProperties(HttpChannelProperties.class)
@ConditionalOnProperty(prefix = "activity.channels.http", name = "enabled", matchIfMissing = true)
public class HttpChannelAutoConfiguration {

  @Bean(destroyMethod = "close")
  HttpChannelAdapter httpChannelAdapter(HttpChannelProperties properties) {
    return new HttpChannelAdapter(properties);
  }
}
