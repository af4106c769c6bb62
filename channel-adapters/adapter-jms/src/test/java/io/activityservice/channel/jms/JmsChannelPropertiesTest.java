package io.activityservice.channel.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class JmsChannelPropertiesTest {

  @Test
  void defaultsStartTheEmbeddedBroker() {
    JmsChannelProperties p = JmsChannelProperties.builder().build();
    assertThat(p.enabled()).isTrue();
    assertThat(p.useEmbeddedBroker()).isTrue();
    assertThat(p.subscriptionName()).isEqualTo("activity-service");
    assertThat(p.persistent()).isTrue();
    assertThat(p.maxInFlight()).isEqualTo(1000);
    assertThat(p.sendConcurrency()).isEqualTo(4);
    assertThat(p.sendTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(p.toBuilder().brokerUrl("tcp://mq:61616").build().useEmbeddedBroker()).isFalse();
    assertThat(p.batch())
        .isEqualTo(new JmsChannelProperties.Batch(null, Duration.ofMillis(10), 2, 100));
    assertThat(p.batch().sizeFor(1000, 2)).as("max-in-flight / sessions").isEqualTo(500);
    assertThat(p.batch().sizeFor(5, 2)).isEqualTo(3);
    assertThat(new JmsChannelProperties.Batch(100, null, null, null).sizeFor(1000, 2))
        .isEqualTo(100);
    assertThat(new JmsChannelProperties.Batch(100, null, null, null).sizeFor(50, 2)).isEqualTo(50);
  }

  @Test
  void rejectsBadBatchSettingsSayingHowToFixThem() {
    assertThatThrownBy(() -> new JmsChannelProperties.Batch(0, null, null, null))
        .hasMessageContaining("activity.channels.jms.batch.size")
        .hasMessageContaining("e.g. 500");
    assertThatThrownBy(
            () -> new JmsChannelProperties.Batch(null, Duration.ofMillis(-1), null, null))
        .hasMessageContaining("activity.channels.jms.batch.linger")
        .hasMessageContaining("between 0 and 10s");
    assertThatThrownBy(
            () -> new JmsChannelProperties.Batch(null, Duration.ofSeconds(11), null, null))
        .hasMessageContaining("batch.linger");
    assertThatThrownBy(() -> new JmsChannelProperties.Batch(null, null, 17, null))
        .hasMessageContaining("activity.channels.jms.batch.sessions")
        .hasMessageContaining("between 1 and 16");
    assertThatThrownBy(() -> new JmsChannelProperties.Batch(null, null, null, 0))
        .hasMessageContaining("activity.channels.jms.batch.send-size");
    assertThat(new JmsChannelProperties.Batch(null, Duration.ZERO, null, null).linger()).isZero();
  }

  @Test
  void rejectsBadValuesSayingHowToFixThem() {
    assertThatThrownBy(() -> JmsChannelProperties.builder().subscriptionName("a.b").build())
        .hasMessageContaining("activity.channels.jms.subscription-name")
        .hasMessageContaining("letters, digits");
    assertThatThrownBy(() -> JmsChannelProperties.builder().maxInFlight(0).build())
        .hasMessageContaining("activity.channels.jms.max-in-flight")
        .hasMessageContaining("e.g. 1000");
    assertThatThrownBy(() -> JmsChannelProperties.builder().sendConcurrency(0).build())
        .hasMessageContaining("send-concurrency");
    assertThatThrownBy(() -> JmsChannelProperties.builder().sendTimeout(Duration.ZERO).build())
        .hasMessageContaining("send-timeout must be positive");
    assertThatThrownBy(
            () -> JmsChannelProperties.builder().redeliveryDelay(Duration.ofSeconds(-1)).build())
        .hasMessageContaining("redelivery-delay");
  }

  @Test
  void adapterRefusesAnEmptyBrokerUrl() {
    assertThatThrownBy(() -> new JmsChannelAdapter(JmsChannelProperties.forBroker("")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("broker-url");
  }

  @Test
  void plainUrlsAreWrappedInFailover() {
    assertThat(
            JmsConnections.failoverUrl(
                "tcp://mq:61616", Duration.ofSeconds(3), Duration.ofSeconds(5)))
        .startsWith("failover:(tcp://mq:61616)?timeout=3000&")
        .contains("maxReconnectDelay=5000");
    assertThat(
            JmsConnections.failoverUrl(
                "failover:(tcp://a:1,tcp://b:1)", Duration.ofSeconds(3), Duration.ofSeconds(5)))
        .isEqualTo("failover:(tcp://a:1,tcp://b:1)");
  }

  @Test
  void toStringHidesThePassword() {
    JmsChannelProperties p =
        JmsChannelProperties.builder()
            .brokerUrl("tcp://mq:61616")
            .user("app")
            .password("hunter2")
            .build();
    assertThat(p.toString())
        .contains("user=app")
        .contains("password=***")
        .contains("brokerUrl=tcp://mq:61616")
        .doesNotContain("hunter2");
  }
}
