package io.activityservice.app.rules;

import io.activityservice.channel.http.HttpChannelAdapter;
import io.activityservice.events.webhook.Connections;
import io.activityservice.rules.RuleSettings;
import io.activityservice.rules.action.WebhookPoster;
import io.activityservice.rules.autoconfigure.RulesAutoConfiguration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Hands the rule module, which configures itself ({@link RulesAutoConfiguration}), what only the
 * application has: the bound {@code activity.rules.*} properties and, when http channels are
 * enabled, the http channel adapter's guarded client for the {@code webhook} action, so that rule
 * webhooks pass the same outbound policy ({@code activity.outbound.*}) and per-host limits as
 * webhook subscriptions, and follow no redirects.
 */
@Configuration(proxyBeanMethods = false)
public class RulesConfiguration {

  @Bean
  RuleSettings ruleSettings(RulesProperties props) {
    return props.toSettings();
  }

  /**
   * The http adapter's guarded client, or none (a null bean) when http channels are disabled.
   * Resolved when the rule module asks for it, after the adapter's auto-configuration registered
   * the adapter (a condition here would be evaluated before that).
   */
  @Bean
  WebhookPoster ruleWebhookPoster(
      ObjectProvider<HttpChannelAdapter> http, ObjectProvider<Connections> connections) {
    HttpChannelAdapter adapter = http.getIfAvailable();
    return adapter == null
        ? null
        : new HttpWebhookPoster(adapter.webhookClient(), connections.getIfAvailable());
  }
}
