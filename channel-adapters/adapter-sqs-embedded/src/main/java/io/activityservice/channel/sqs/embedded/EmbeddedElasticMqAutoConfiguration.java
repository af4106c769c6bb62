package io.activityservice.channel.sqs.embedded;

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
 * Starts the {@link EmbeddedElasticMq} (stopped with the context) when the sqs channel is enabled,
 * no {@code activity.channels.sqs.endpoint} is set and {@code
 * activity.channels.sqs.embedded.enabled} is not false; the sqs adapter's auto-configuration then
 * connects to it. On the class path of the quick-start jar only: a deployment that sets an endpoint
 * (or uses AWS) runs without this module (the {@code lean} jar).
 */
@AutoConfiguration(beforeName = "io.activityservice.channel.sqs.SqsChannelAutoConfiguration")
@ConditionalOnProperty(prefix = "activity.channels.sqs", name = "enabled", matchIfMissing = true)
@Conditional(EmbeddedElasticMqAutoConfiguration.UsesEmbeddedServer.class)
public class EmbeddedElasticMqAutoConfiguration {

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  EmbeddedElasticMq embeddedElasticMq(Environment environment) {
    EmbeddedElasticMqProperties settings =
        Binder.get(environment)
            .bindOrCreate(EmbeddedElasticMqProperties.PREFIX, EmbeddedElasticMqProperties.class);
    return EmbeddedElasticMq.start(settings.host(), settings.port());
  }

  /** Matches when no endpoint is configured and the embedded server is not disabled. */
  static final class UsesEmbeddedServer extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      String endpoint = context.getEnvironment().getProperty("activity.channels.sqs.endpoint", "");
      boolean enabled =
          context
              .getEnvironment()
              .getProperty(EmbeddedElasticMqProperties.PREFIX + ".enabled", Boolean.class, true);
      if (!endpoint.isBlank()) {
        return ConditionOutcome.noMatch("activity.channels.sqs.endpoint is set: " + endpoint);
      }
      return enabled
          ? ConditionOutcome.match("no SQS endpoint configured: embedded ElasticMQ")
          : ConditionOutcome.noMatch(
              EmbeddedElasticMqProperties.PREFIX + ".enabled=false: real AWS");
    }
  }
}
