package io.activityservice.channel.http;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Registers the webhook adapter and the outbound policy its targets pass ({@code
 * activity.outbound.*}). Disable with {@code activity.channels.http.enabled=false}. A {@link
 * HostResolver} bean, if there is one, replaces the system resolver (tests use it to simulate DNS
 * answers).
 */
@AutoConfiguration
@EnableConfigurationProperties({HttpChannelProperties.class, OutboundProperties.class})
@ConditionalOnProperty(prefix = "activity.channels.http", name = "enabled", matchIfMissing = true)
public class HttpChannelAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  OutboundPolicy outboundPolicy(
      OutboundProperties properties, ObjectProvider<HostResolver> resolver) {
    return properties.toPolicy(resolver.getIfAvailable(() -> HostResolver.SYSTEM));
  }

  @Bean(destroyMethod = "close")
  HttpChannelAdapter httpChannelAdapter(HttpChannelProperties properties, OutboundPolicy policy) {
    return new HttpChannelAdapter(properties, policy);
  }
}
