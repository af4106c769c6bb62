package io.activityservice.channel.sqs;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Registers the {@code sqs:} adapter. With no {@code activity.channels.sqs.endpoint} it starts an
 * embedded ElasticMQ (stopped with the context) unless {@code activity.channels.sqs.embedded.enabled}
 * is false, in which case it talks to real AWS. Disable with {@code activity.channels.sqs.enabled=false}.
 */
@AutoConfiguration
@ConditionalOnClass(name = "software.amazon.awssdk.services.sqs.SqsAsyncClient")
@EnableConfigurationProperties(SqsChannelProperties.class)
@ConditionalOnProperty(prefix = "activity.channels.sqs", name = "enabled", matchIfMissing = true)
public class SqsChannelAutoConfiguration {

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  SqsChannelAdapter sqsChannelAdapter(SqsChannelProperties properties,
      ObjectProvider<EmbeddedElasticMq> embedded) {
    EmbeddedElasticMq server = embedded.getIfAvailable();
    return SqsChannelAdapter.connect(server != null ? properties.withEndpoint(server.endpoint()) : properties);
  }

  /** The embedded server, when no endpoint is configured and it is enabled. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.elasticmq.rest.sqs.SQSRestServerBuilder")
  @Conditional(UsesEmbeddedServer.class)
  static class EmbeddedServerConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    EmbeddedElasticMq embeddedElasticMq(SqsChannelProperties properties) {
      return EmbeddedElasticMq.start(properties.embedded().host(), properties.embedded().port());
    }
  }

  /** Matches when no endpoint is configured and the embedded server is not disabled. */
  static class UsesEmbeddedServer extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
      String endpoint = context.getEnvironment().getProperty("activity.channels.sqs.endpoint", "");
      boolean enabled = context.getEnvironment()
          .getProperty("activity.channels.sqs.embedded.enabled", Boolean.class, true);
      if (!endpoint.isBlank()) {
        return ConditionOutcome.noMatch("activity.channels.sqs.endpoint is set: " + endpoint);
      }
      return enabled ? ConditionOutcome.match("no SQS endpoint configured: embedded ElasticMQ")
          : ConditionOutcome.noMatch("activity.channels.sqs.embedded.enabled=false: real AWS");
    }
  }
}
