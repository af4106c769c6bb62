package io.activityservice.channel.jms;

import io.activityservice.channel.support.EmbeddedServer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Registers the jms adapter. When {@code activity.channels.jms.broker-url} is empty it connects
 * over TCP to the embedded broker that {@code adapter-jms-embedded} starts (the quick-start jar has
 * it); without that module an empty broker URL fails the start-up with a message saying what to
 * set. Disable with {@code activity.channels.jms.enabled=false}.
 */
@AutoConfiguration(
    afterName = "io.activityservice.channel.jms.embedded.EmbeddedActiveMqAutoConfiguration")
@ConditionalOnClass(org.apache.activemq.ActiveMQConnectionFactory.class)
@EnableConfigurationProperties(JmsChannelProperties.class)
@ConditionalOnProperty(prefix = "activity.channels.jms", name = "enabled", matchIfMissing = true)
public class JmsChannelAutoConfiguration {

  @Bean(destroyMethod = "close")
  JmsChannelAdapter jmsChannelAdapter(
      JmsChannelProperties properties, ObjectProvider<EmbeddedServer> servers) {
    if (!properties.useEmbeddedBroker()) {
      return new JmsChannelAdapter(properties);
    }
    EmbeddedServer broker =
        servers
            .orderedStream()
            .filter(s -> "jms".equals(s.transport()))
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "activity.channels.jms.broker-url is empty and no embedded"
                            + " broker is on the class path: set it to your ActiveMQ broker (e.g. tcp://mq:61616), run the"
                            + " quick-start jar (it has adapter-jms-embedded), or disable the channel with"
                            + " activity.channels.jms.enabled=false"));
    return new JmsChannelAdapter(
        properties.toBuilder().brokerUrl(broker.endpoint().toString()).build());
  }
}
