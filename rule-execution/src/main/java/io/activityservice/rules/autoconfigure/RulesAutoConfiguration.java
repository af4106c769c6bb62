package io.activityservice.rules.autoconfigure;

import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.cluster.ConfigChangeLog;
import io.activityservice.events.cluster.ConfigPropagator;
import io.activityservice.events.cluster.ProcessorRouting;
import io.activityservice.events.derive.DerivedEventEmitter;
import io.activityservice.events.routing.EventRouter;
import io.activityservice.events.schema.ModuleSchema;
import io.activityservice.rules.RuleSettings;
import io.activityservice.rules.action.ActionDispatcher;
import io.activityservice.rules.action.ActionHandler;
import io.activityservice.rules.action.LogAction;
import io.activityservice.rules.action.PublishAction;
import io.activityservice.rules.action.SendAction;
import io.activityservice.rules.action.WebhookAction;
import io.activityservice.rules.action.WebhookPoster;
import io.activityservice.rules.compile.RuleCompiler;
import io.activityservice.rules.engine.RuleEngine;
import io.activityservice.rules.internal.RuleRepository;
import io.activityservice.rules.service.RuleService;
import io.activityservice.rules.store.RulesSchema;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The rule execution service configures itself: the built-in action handlers (further {@link
 * ActionHandler} beans are picked up automatically), the action dispatcher, the engine (a router
 * tap on one node; fed by the processor routing with several replicas) and the {@link RuleService},
 * which redeploys the stored rule sets at start-up. It uses the Event Service's beans (router,
 * emitter, channels, configuration log, JDBC, clock, meters).
 *
 * <p>Settings: a {@link RuleSettings} bean if the application defines one (activity-service binds
 * {@code activity.rules.*} into it), else {@link RuleSettings#defaults()}. The module does not bind
 * properties itself: the application owns property binding, so the settings keep one prefix and one
 * validation. The {@code webhook} action posts through a {@link WebhookPoster} bean (the
 * application's http channel adapter); without one it fails every execution saying so.
 */
@AutoConfiguration
public class RulesAutoConfiguration {

  private static RuleSettings settings(ObjectProvider<RuleSettings> settings) {
    return settings.getIfAvailable(RuleSettings::defaults);
  }

  /** The rule sets' migrations (after event-service's; docs/migrations.md). */
  @Bean
  ModuleSchema rulesSchema() {
    return RulesSchema.SCHEMA;
  }

  @Bean
  @ConditionalOnMissingBean
  WebhookAction webhookAction(
      ObjectProvider<RuleSettings> settings, ObjectProvider<WebhookPoster> poster) {
    RuleSettings s = settings(settings);
    return new WebhookAction(
        poster.getIfAvailable(),
        s.webhookTimeout(),
        s.webhookMaxAttempts(),
        s.webhookInitialBackoff(),
        s.webhookMaxBackoff());
  }

  @Bean
  @ConditionalOnMissingBean
  PublishAction publishAction(DerivedEventEmitter emitter, ObjectProvider<RuleSettings> settings) {
    return new PublishAction(emitter, settings(settings).maxHops());
  }

  @Bean
  @ConditionalOnMissingBean
  SendAction sendAction(
      ChannelRegistry channels,
      DerivedEventEmitter emitter,
      ObjectProvider<RuleSettings> settings) {
    return new SendAction(channels, emitter, settings(settings).maxHops());
  }

  @Bean
  @ConditionalOnMissingBean
  LogAction logAction() {
    return new LogAction();
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  ActionDispatcher actionDispatcher(
      List<ActionHandler> handlers, ObjectProvider<RuleSettings> settings, MeterRegistry meters) {
    RuleSettings s = settings(settings);
    ActionDispatcher dispatcher =
        new ActionDispatcher(handlers, s.actionConcurrency(), s.actionQueueCapacity());
    Gauge.builder("activity.rules.actions.waiting", dispatcher, ActionDispatcher::waiting)
        .description("Actions waiting for a slot")
        .register(meters);
    return dispatcher;
  }

  /**
   * One node: the router's tap feeds the engine. Several replicas: rule sets get input from
   * internal channels.
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  RuleEngine ruleEngine(
      ActionDispatcher dispatcher,
      MeterRegistry meters,
      ObjectProvider<RuleSettings> settings,
      EventRouter router,
      ObjectProvider<ProcessorRouting> cluster) {
    RuleEngine engine = new RuleEngine(dispatcher, meters, settings(settings));
    if (cluster.getIfAvailable() == null) {
      router.addTap(engine);
    }
    return engine;
  }

  @Bean
  @ConditionalOnMissingBean
  RuleService ruleService(
      JdbcClient jdbc,
      RuleEngine engine,
      ObjectProvider<RuleSettings> settings,
      Clock clock,
      ConfigChangeLog changes,
      ConfigPropagator propagator,
      ObjectProvider<ProcessorRouting> cluster) {
    RuleService service =
        new RuleService(
            new RuleRepository(jdbc),
            new RuleCompiler(settings(settings).eventExpiry()),
            engine,
            clock,
            changes,
            RuleService.placement(cluster.getIfAvailable(), engine));
    service.loadAll();
    propagator.register(RuleService.KIND, service::reload);
    return service;
  }
}
