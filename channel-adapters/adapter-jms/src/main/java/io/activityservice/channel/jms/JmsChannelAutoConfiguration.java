package io.activityservice.channel.jms;

import java.io.File;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Registers the jms adapter and, when {@code activity.channels.jms.broker-url} is empty, an
 * embedded ActiveMQ broker it connects to over TCP (stopped with the context). Disable with
 * {@code activity.channels.jms.enabled=false}.
 */
@AutoConfiguration
@ConditionalOnClass(org.apache.activemq.ActiveMQConnectionFactory.class)
@EnableConfigurationProperties(JmsChannelProperties.class)
@ConditionalOnProperty(prefix = "activity.channels.jms", name = "enabled", matchIfMissing = true)
public class JmsChannelAutoConfiguration {

  @Bean(destroyMethod = "close")
  @Conditional(NoBrokerUrl.class)
  EmbeddedActiveMqBroker jmsEmbeddedBroker(JmsChannelProperties properties) {
    JmsChannelProperties.EmbeddedBroker broker = properties.embeddedBroker();
    return EmbeddedActiveMqBroker.start(broker.host(), broker.port(), new File(broker.dataDir()),
        broker.persistent());
  }

  @Bean(destroyMethod = "close")
  JmsChannelAdapter jmsChannelAdapter(JmsChannelProperties properties,
      ObjectProvider<EmbeddedActiveMqBroker> embeddedBroker) {
    EmbeddedActiveMqBroker broker = properties.useEmbeddedBroker() ? embeddedBroker.getIfAvailable() : null;
    return new JmsChannelAdapter(
        broker == null ? properties : properties.withBrokerUrl(broker.connectUri().toString()));
  }

  /** Matches when no broker URL is configured. */
  static final class NoBrokerUrl extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
      String url = Binder.get(context.getEnvironment())
          .bind("activity.channels.jms.broker-url", String.class).orElse("");
      return url.isBlank()
          ? ConditionOutcome.match("no activity.channels.jms.broker-url: embedded broker")
          : ConditionOutcome.noMatch("activity.channels.jms.broker-url is set");
    }
  }
}
