package io.activityservice.app.config;

import static io.activityservice.app.config.PropertiesBinding.defaults;
import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.channel.http.HttpChannelProperties;
import io.activityservice.channel.http.OutboundProperties;
import io.activityservice.channel.jms.JmsChannelProperties;
import io.activityservice.channel.sqs.SqsChannelProperties;
import io.activityservice.channel.stream.KafkaChannelProperties;
import org.junit.jupiter.api.Test;

/**
 * The adapters' settings records are also built outside Spring Boot (contract tests, perf-tests,
 * the fault suite): the jms and sqs ones with their builders, whose initial values are the
 * defaults; bound by Spring Boot, their {@code @DefaultValue}s (which docs/configuration.md shows)
 * fill them. Both must give the same settings.
 */
class AdapterPropertiesDefaultsTest {

  @Test
  void boundDefaultsEqualTheDefaultsOutsideSpring() {
    assertThat(defaults("activity.channels.http", HttpChannelProperties.class))
        .isEqualTo(HttpChannelProperties.defaults());
    assertThat(defaults("activity.outbound", OutboundProperties.class))
        .isEqualTo(new OutboundProperties(null, null));
    assertThat(defaults("activity.channels.jms", JmsChannelProperties.class))
        .isEqualTo(JmsChannelProperties.builder().build());
    assertThat(defaults("activity.channels.sqs", SqsChannelProperties.class))
        .isEqualTo(SqsChannelProperties.builder().build());
    assertThat(defaults("activity.channels.kafka", KafkaChannelProperties.class))
        .isEqualTo(KafkaChannelProperties.defaults());
  }
}
