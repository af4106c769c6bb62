package io.activityservice.app.rules;

import io.activityservice.channel.http.HttpChannelAdapter;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.cluster.ConfigChangeLog;
import io.activityservice.events.cluster.ConfigPropagator;
import io.activityservice.events.cluster.PartitionKey;
import io.activityservice.events.cluster.ProcessorRouting;
import io.activityservice.events.derive.DerivedEventEmitter;
import io.activityservice.events.routing.EventRouter;
import io.activityservice.rules.RuleService;
import io.activityservice.rules.action.ActionDispatcher;
import io.activityservice.rules.action.ActionHandler;
import io.activityservice.rules.action.LogAction;
import io.activityservice.rules.action.PublishAction;
import io.activityservice.rules.action.SendAction;
import io.activityservice.rules.action.WebhookAction;
import io.activityservice.rules.compile.CompiledRule;
import io.activityservice.rules.compile.RuleCompiler;
import io.activityservice.rules.store.RuleDefinition;
import io.activityservice.rules.engine.RuleEngine;
import io.activityservice.rules.store.RuleRepository;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.List;
import java.util.Set;
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
    return new WebhookAction(adapter == null ? null : new HttpWebhookPoster(adapter.webhookClient()), w.timeout(),
        w.maxAttempts(),
        w.initialBackoff(), w.maxBackoff());
  }

  @Bean
  PublishAction publishAction(DerivedEventEmitter emitter, RulesProperties props) {
    return new PublishAction(emitter, props.maxHops());
  }

  @Bean
  SendAction sendAction(ChannelRegistry channels, DerivedEventEmitter emitter, RulesProperties props) {
    return new SendAction(channels, emitter, props.maxHops());
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
  RuleEngine ruleEngine(ActionDispatcher dispatcher, MeterRegistry meters, RulesProperties props, EventRouter router,
                        ObjectProvider<ProcessorRouting> cluster) {
    RuleEngine engine = new RuleEngine(dispatcher, meters, props.toSettings());
    if (cluster.getIfAvailable() == null) {
      router.addTap(engine);
    }
    return engine;
  }

  @Bean
  RuleService ruleService(JdbcClient jdbc, RuleEngine engine, RulesProperties props, Clock clock,
                          ConfigChangeLog changes, ConfigPropagator propagator,
                          ObjectProvider<ProcessorRouting> cluster) {
    ProcessorRouting routing = cluster.getIfAvailable();
    RuleService.Placement placement = routing == null ? RuleService.Placement.LOCAL : new RuleService.Placement() {
      @Override
      public void deployed(RuleDefinition def, CompiledRule compiled) {
        routing.register(new ProcessorRouting.Processor(RuleService.KIND, def.name(),
            PartitionKey.parse(def.partitionBy()),
            compiled.types().all() ? Set.of() : Set.copyOf(compiled.types().types()),
            event -> engine.submitTo(def.name(), event)));
      }

      @Override
      public void undeployed(String name) {
        routing.unregister(RuleService.KIND, name);
      }
    };
    RuleService service = new RuleService(new RuleRepository(jdbc), new RuleCompiler(props.eventExpiry()), engine,
        clock, changes, placement);
    service.loadAll();
    propagator.register(RuleService.KIND, service::reload);
    return service;
  }
}
