package io.activityservice.app.webhooks;

import io.activityservice.channel.http.HttpChannelAdapter;
import io.activityservice.events.webhook.TokenClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Hands event-service's webhook connections their way to OAuth 2 token endpoints: the http channel
 * adapter's guarded client, or none when http channels are disabled (OAuth 2 connections then fail
 * their deliveries saying so).
 */
@Configuration(proxyBeanMethods = false)
class WebhooksConfiguration {

  @Bean
  TokenClient webhookTokenClient(ObjectProvider<HttpChannelAdapter> http) {
    HttpChannelAdapter adapter = http.getIfAvailable();
    return adapter == null ? null : new HttpTokenClient(adapter.webhookClient());
  }
}
