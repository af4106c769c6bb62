package io.activityservice.app.rules;

import io.activityservice.channel.http.HttpChannelAdapter;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.ingest.EventIngest;
import io.activityservice.events.delivery.DeadLetters;
import io.activityservice.events.routing.EventRouter;
import io.activityservice.rules.RuleService;
import io.activityservice.rules.action.ActionDispatcher;
import io.activityservice.rules.action.ActionHandler;
import io.activityservice.rules.action.LogAction;
import io.activityservice.rules.action.PublishAction;
import io.activityservice.rules.action.SendAction;
import io.activityservice.rules.action.WebhookAction;
import io.activityservice.rules.compile.RuleCompiler;
import io.activityservice.rules.engine.RuleEngine;
import io.activityservice.rules.store.RuleRepository;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Wires the rule execution service: the built-in action handlers (further {@link ActionHandler}
 * beans are picked up automatically), the action dispatcher, the engine (registered as a router
 * tap) and the rule service, which redeploys the stored rules at start-up.
 */
@Configuration(proxyBeanMethods = false)
public class RulesConfiguration {

  /**
   * Posts through the http channel adapter's client, so that rule webhooks pass the same outbound policy
   * ({@code activity.outbound.*}) and per-host limits as webhook subscriptions, and follow no redirects.
   */
  @Bean
  WebhookAction webhookAction(RulesProperties props, ObjectProvider<HttpChannelAdapter> http) {
    RulesProperties.Webhook w = props.webhook();
    HttpChannelAdapter adapter = http.getIfAvailable();
    return new WebhookAction(adapter == null ? null : adapter.webhookClient(), w.timeout(), w.maxAttempts(),
        w.initialBackoff(), w.maxBackoff());
  }

  @Bean
  PublishAction publishAction(EventIngest ingest, DeadLetters deadLetters, RulesProperties props) {
    return new PublishAction(ingest, deadLetters, props.maxHops());
  }

  @Bean
  SendAction sendAction(ChannelRegistry channels, DeadLetters deadLetters, RulesProperties props) {
    return new SendAction(channels, deadLetters, props.maxHops());
  }

  @Bean
  LogAction logAction() {
    return new LogAction();
  }

  @Bean(destroyMethod = "close")
  ActionDispatcher actionDispatcher(List<ActionHandler> handlers, RulesProperties props, MeterRegistry meters) {
    ActionDispatcher dispatcher = new ActionDispatcher(handlers, props.actionConcurrency(), props.actionQueueCapacity());
    Gauge.builder("activity.rules.actions.waiting", dispatcher, ActionDispatcher::waiting)
        .description("Actions waiting for a slot").register(meters);
    return dispatcher;
  }

  @Bean(destroyMethod = "close")
  RuleEngine ruleEngine(ActionDispatcher dispatcher, MeterRegistry meters, RulesProperties props, EventRouter router) {
    RuleEngine engine = new RuleEngine(dispatcher, meters, props.toSettings());
    router.addTap(engine);
    return engine;
  }

  @Bean
  RuleService ruleService(JdbcClient jdbc, RuleEngine engine, RulesProperties props, Clock clock) {
    RuleService service = new RuleService(new RuleRepository(jdbc), new RuleCompiler(props.eventExpiry()), engine,
        clock);
    service.loadAll();
    return service;
  }
}
