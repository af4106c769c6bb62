package io.activityservice.channel.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.sqs.embedded.EmbeddedElasticMq;
import io.activityservice.channel.sqs.embedded.EmbeddedElasticMqAutoConfiguration;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The auto-configuration: embedded server lifecycle, disabling, property validation at start-up.
 */
class SqsChannelAutoConfigurationTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  SqsChannelAutoConfiguration.class, EmbeddedElasticMqAutoConfiguration.class));

  @Test
  void startsTheEmbeddedServerAndRoundTripsThroughIt() {
    URI[] endpoint = new URI[1];
    runner
        .withPropertyValues(
            "activity.channels.sqs.embedded.port=0", "activity.channels.sqs.wait-time=1s")
        .run(
            context -> {
              assertThat(context)
                  .hasSingleBean(SqsChannelAdapter.class)
                  .hasSingleBean(EmbeddedElasticMq.class);
              endpoint[0] = context.getBean(EmbeddedElasticMq.class).endpoint();
              SqsChannelAdapter adapter = context.getBean(SqsChannelAdapter.class);
              assertThat(adapter.properties().endpoint()).isEqualTo(endpoint[0].toString());
              ChannelUri uri = ChannelUri.parse("sqs:activity-events-in");
              CompletableFuture<CloudEvent> got = new CompletableFuture<>();
              adapter.openInbound(
                  uri,
                  InboundSettings.strict(),
                  (e, ack) -> {
                    got.complete(e);
                    ack.ack();
                  });
              CloudEvent sent =
                  CloudEventBuilder.v1()
                      .withId("1")
                      .withSource(URI.create("/a"))
                      .withType("t")
                      .build();
              adapter.openOutbound(uri).send(sent).get(10, TimeUnit.SECONDS);
              assertThat(got.get(10, TimeUnit.SECONDS).getId()).isEqualTo("1");
              assertThat(adapter.queueUrl(uri).join())
                  .isEqualTo(endpoint[0] + "/000000000000/activity-events-in");
            });
    assertThat(LocalStackSqs.healthy(endpoint[0])).isFalse();
    assertThat(portIsFree(endpoint[0].getPort())).isTrue();
  }

  @Test
  void noEmbeddedServerWithAnEndpoint() {
    runner
        .withPropertyValues(
            "activity.channels.sqs.endpoint=http://127.0.0.1:4566",
            "activity.channels.sqs.redelivery.initial=2s",
            "activity.channels.sqs.redelivery.jitter=false")
        .run(
            context -> {
              assertThat(context)
                  .hasSingleBean(SqsChannelAdapter.class)
                  .doesNotHaveBean(EmbeddedElasticMq.class);
              assertThat(context.getBean(SqsChannelProperties.class).redelivery())
                  .isEqualTo(
                      new io.activityservice.channel.RedeliverySettings(
                          java.time.Duration.ofSeconds(2),
                          java.time.Duration.ofSeconds(60),
                          false));
            });
  }

  @Test
  void canBeDisabled() {
    runner
        .withPropertyValues("activity.channels.sqs.enabled=false")
        .run(
            context ->
                assertThat(context)
                    .doesNotHaveBean(SqsChannelAdapter.class)
                    .doesNotHaveBean(EmbeddedElasticMq.class));
  }

  @Test
  void withoutEndpointOrEmbeddedModuleTheStartSaysWhatToSet() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(SqsChannelAutoConfiguration.class))
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("activity.channels.sqs.endpoint is empty")
                    .hasMessageContaining("activity.channels.sqs.embedded.enabled=false"));
  }

  @Test
  void invalidPropertiesFailTheStartWithAHint() {
    runner
        .withPropertyValues(
            "activity.channels.sqs.wait-time=30s", "activity.channels.sqs.embedded.enabled=false")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("activity.channels.sqs.wait-time"));
  }

  private static boolean portIsFree(int port) {
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(port, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      return true;
    } catch (java.io.IOException e) {
      return false;
    }
  }
}
