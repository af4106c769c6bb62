package io.activityservice.channel.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.activityservice.channel.ChannelAdapter;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.jms.embedded.EmbeddedActiveMqAutoConfiguration;
import io.activityservice.channel.jms.embedded.EmbeddedActiveMqBroker;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.io.File;
import java.net.Socket;
import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class JmsChannelAutoConfigurationTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  JmsChannelAutoConfiguration.class, EmbeddedActiveMqAutoConfiguration.class));

  @Test
  void withoutBrokerUrlStartsTheEmbeddedBrokerAndStopsItOnClose() {
    File dataDir = TestBrokers.tempDir();
    int[] port = new int[1];
    runner
        .withPropertyValues(
            "activity.channels.jms.embedded-broker.port=0",
            "activity.channels.jms.embedded-broker.data-dir=" + dataDir.getAbsolutePath(),
            "activity.channels.jms.send-timeout=5s")
        .run(
            context -> {
              assertThat(context)
                  .hasSingleBean(EmbeddedActiveMqBroker.class)
                  .hasSingleBean(ChannelAdapter.class);
              port[0] = context.getBean(EmbeddedActiveMqBroker.class).port();
              assertThat(new File(dataDir, "kahadb")).isDirectory();

              ChannelAdapter adapter = context.getBean(ChannelAdapter.class);
              ChannelUri uri = ChannelUri.parse("jms:topic:activity.events.in");
              CompletableFuture<CloudEvent> received = new CompletableFuture<>();
              adapter.openInbound(
                  uri,
                  InboundSettings.strict(),
                  (e, ack) -> {
                    ack.ack();
                    received.complete(e);
                  });
              CloudEvent sent =
                  CloudEventBuilder.v1()
                      .withId("auto-1")
                      .withSource(URI.create("/auto"))
                      .withType("com.example.auto")
                      .build();
              adapter.openOutbound(uri).send(sent).get(30, TimeUnit.SECONDS);
              assertThat(received.get(30, TimeUnit.SECONDS).getId()).isEqualTo("auto-1");
            });
    assertThatThrownBy(() -> new Socket("127.0.0.1", port[0]).close())
        .isInstanceOf(java.io.IOException.class);
  }

  @Test
  void withBrokerUrlUsesThatBrokerOnly() {
    EmbeddedActiveMqBroker external = TestBrokers.inMemory();
    try {
      runner
          .withPropertyValues(
              "activity.channels.jms.broker-url=" + TestBrokers.tcpUrl(external),
              "activity.channels.jms.subscription-name=replica-set",
              "activity.channels.jms.redelivery.max=30s",
              "activity.channels.jms.batch.size=7",
              "activity.channels.jms.batch.linger=250ms",
              "activity.channels.jms.batch.send-size=9")
          .run(
              context -> {
                assertThat(context)
                    .doesNotHaveBean(EmbeddedActiveMqBroker.class)
                    .hasSingleBean(JmsChannelAdapter.class);
                JmsChannelProperties properties = context.getBean(JmsChannelProperties.class);
                assertThat(properties.subscriptionName()).isEqualTo("replica-set");
                assertThat(properties.redelivery())
                    .isEqualTo(
                        new io.activityservice.channel.RedeliverySettings(
                            java.time.Duration.ofSeconds(1),
                            java.time.Duration.ofSeconds(30),
                            true));
                assertThat(properties.batch())
                    .isEqualTo(
                        new JmsChannelProperties.Batch(7, java.time.Duration.ofMillis(250), 2, 9));
              });
    } finally {
      external.close();
    }
  }

  @Test
  void canBeDisabled() {
    runner
        .withPropertyValues("activity.channels.jms.enabled=false")
        .run(
            context ->
                assertThat(context)
                    .doesNotHaveBean(ChannelAdapter.class)
                    .doesNotHaveBean(EmbeddedActiveMqBroker.class));
  }

  @Test
  void withoutBrokerUrlOrEmbeddedModuleTheStartupSaysWhatToSet() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JmsChannelAutoConfiguration.class))
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("activity.channels.jms.broker-url is empty")
                    .hasMessageContaining("activity.channels.jms.enabled=false"));
  }

  @Test
  void invalidPropertiesFailTheStartupWithTheFix() {
    runner
        .withPropertyValues(
            "activity.channels.jms.broker-url=tcp://127.0.0.1:1",
            "activity.channels.jms.max-in-flight=0")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("activity.channels.jms.max-in-flight"));
  }
}
