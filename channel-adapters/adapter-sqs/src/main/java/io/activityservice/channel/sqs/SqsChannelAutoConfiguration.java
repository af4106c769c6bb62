package io.activityservice.channel.sqs;

import io.activityservice.channel.support.EmbeddedServer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Registers the {@code sqs:} adapter. With no {@code activity.channels.sqs.endpoint} it connects to
 * the embedded ElasticMQ that {@code adapter-sqs-embedded} starts (the quick-start jar has it)
 * unless {@code activity.channels.sqs.embedded.enabled} is false, in which case it talks to real
 * AWS; with neither an endpoint nor that module the start-up fails with a message saying what to
 * set. Disable with {@code activity.channels.sqs.enabled=false}.
 */
@AutoConfiguration(
    afterName = "io.activityservice.channel.sqs.embedded.EmbeddedElasticMqAutoConfiguration")
@ConditionalOnClass(name = "software.amazon.awssdk.services.sqs.SqsAsyncClient")
@EnableConfigurationProperties(SqsChannelProperties.class)
@ConditionalOnProperty(prefix = "activity.channels.sqs", name = "enabled", matchIfMissing = true)
public class SqsChannelAutoConfiguration {

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  SqsChannelAdapter sqsChannelAdapter(
      SqsChannelProperties properties, ObjectProvider<EmbeddedServer> servers) {
    if (!properties.endpoint().isEmpty() || !properties.embedded().enabled()) {
      return SqsChannelAdapter.connect(properties);
    }
    EmbeddedServer server =
        servers
            .orderedStream()
            .filter(s -> "sqs".equals(s.transport()))
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "activity.channels.sqs.endpoint is empty and no embedded"
                            + " ElasticMQ is on the class path: set the endpoint (e.g. http://127.0.0.1:4566 for LocalStack),"
                            + " set activity.channels.sqs.embedded.enabled=false to use AWS, run the quick-start jar (it has"
                            + " adapter-sqs-embedded), or disable the channel with activity.channels.sqs.enabled=false"));
    return SqsChannelAdapter.connect(
        properties.toBuilder().endpoint(server.endpoint().toString()).build());
  }
}
