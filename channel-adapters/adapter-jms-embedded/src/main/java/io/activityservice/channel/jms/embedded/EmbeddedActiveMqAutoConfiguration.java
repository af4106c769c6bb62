package io.activityservice.channel.jms.embedded;

import java.io.File;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Starts the {@link EmbeddedActiveMqBroker} (stopped with the context) when the jms channel is
 * enabled and {@code activity.channels.jms.broker-url} is empty; the jms adapter's
 * auto-configuration then connects to it. On the class path of the quick-start jar only: a
 * deployment that sets {@code broker-url} runs without this module (the {@code lean} jar).
 */
@AutoConfiguration(beforeName = "io.activityservice.channel.jms.JmsChannelAutoConfiguration")
@ConditionalOnProperty(prefix = "activity.channels.jms", name = "enabled", matchIfMissing = true)
@Conditional(EmbeddedActiveMqAutoConfiguration.NoBrokerUrl.class)
public class EmbeddedActiveMqAutoConfiguration {

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  EmbeddedActiveMqBroker jmsEmbeddedBroker(Environment environment) {
    EmbeddedActiveMqProperties broker =
        Binder.get(environment)
            .bindOrCreate(EmbeddedActiveMqProperties.PREFIX, EmbeddedActiveMqProperties.class);
    return EmbeddedActiveMqBroker.start(
        broker.host(), broker.port(), new File(broker.dataDir()), broker.persistent());
  }

  /** Matches when no broker URL is configured. */
  static final class NoBrokerUrl extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      String url =
          Binder.get(context.getEnvironment())
              .bind("activity.channels.jms.broker-url", String.class)
              .orElse("");
      return url.isBlank()
          ? ConditionOutcome.match("no activity.channels.jms.broker-url: embedded broker")
          : ConditionOutcome.noMatch("activity.channels.jms.broker-url is set");
    }
  }
}
