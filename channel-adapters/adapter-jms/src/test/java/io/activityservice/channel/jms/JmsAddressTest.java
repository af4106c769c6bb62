package io.activityservice.channel.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.activityservice.channel.ChannelUri;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JmsAddressTest {

  @Test
  void parsesTopicsQueuesAndThePersistenceOption() {
    JmsAddress topic = JmsAddress.parse(ChannelUri.parse("jms:topic:activity.events.in"));
    assertThat(topic.topic()).isTrue();
    assertThat(topic.name()).isEqualTo("activity.events.in");
    assertThat(topic.persistentOr(true)).isTrue();
    assertThat(topic.consumerQueue("replicas", false).getPhysicalName())
        .isEqualTo("Consumer.replicas.activity.events.in");

    JmsAddress queue = JmsAddress.parse(ChannelUri.parse("jms:queue:orders?persistent=false"));
    assertThat(queue.topic()).isFalse();
    assertThat(queue.name()).isEqualTo("orders");
    assertThat(queue.persistentOr(true)).isFalse();
    assertThat(queue.consumerQueue("ignored", false).getPhysicalName()).isEqualTo("orders");
    assertThat(queue.consumerQueue("ignored", true).getPhysicalName()).isEqualTo("orders");
    assertThat(queue.consumerQueue("ignored", true).getOptions())
        .containsEntry("consumer.exclusive", "true");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "jms:orders",
        "jms:mailbox:orders",
        "jms:topic:",
        "jms:queue:a*b",
        "jms:topic:a.>",
        "jms:queue:a,b",
        "jms:queue:x?durable=true",
        "jms:queue:x?persistent=maybe",
        "jms:queue:with space"
      })
  void rejectsOtherFormsNamingTheValidOnes(String text) {
    assertThatThrownBy(() -> JmsAddress.parse(ChannelUri.parse(text)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jms")
        .hasMessageContaining("jms:topic:<name>")
        .hasMessageContaining("jms:queue:<name>");
  }
}
