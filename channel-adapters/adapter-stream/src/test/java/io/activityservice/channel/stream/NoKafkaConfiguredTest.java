package io.activityservice.channel.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.channel.ChannelAdapter;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.stream.binder.BinderFactory;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/** Without Kafka configuration the module stays inert: no adapter, no connection attempts. */
class NoKafkaConfiguredTest {

  /** An application with an unrelated functional bean that Spring Cloud Stream could auto-bind. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    Function<String, String> upperCase() {
      return String::toUpperCase;
    }
  }

  @Test
  void contextStartsWithoutAdapterAndWithoutKafkaClients() {
    Set<Thread> before = Thread.getAllStackTraces().keySet();
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(App.class)
            .web(WebApplicationType.NONE)
            .properties("spring.main.banner-mode=off")
            .run()) {
      assertThat(context.getBeansOfType(ChannelAdapter.class)).isEmpty();
      assertThat(context.getBeansOfType(BinderFactory.class)).hasSize(1);
      assertThat(
              context
                  .getEnvironment()
                  .getProperty(StreamDefaultsEnvironmentPostProcessor.AUTODETECT))
          .isEqualTo("false");
      Set<String> kafkaClients =
          Thread.getAllStackTraces().keySet().stream()
              .filter(t -> !before.contains(t))
              .map(Thread::getName)
              .filter(
                  n ->
                      n.contains("kafka-producer")
                          || n.contains("kafka-admin-client")
                          || n.contains("kafka-coordinator")
                          || n.contains("consumer_background")
                          || n.contains("-C-"))
              .collect(Collectors.toSet());
      assertThat(kafkaClients)
          .as("Kafka client threads started without Kafka configured")
          .isEmpty();
    }
  }

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(StreamChannelAutoConfiguration.class))
          .withBean(BinderFactory.class, () -> org.mockito.Mockito.mock(BinderFactory.class));

  @Test
  void registeredOnlyWhenBrokersAreSetOrExplicitlyEnabled() {
    runner.run(ctx -> assertThat(ctx).doesNotHaveBean(StreamChannelAdapter.class));
    runner
        .withPropertyValues("spring.cloud.stream.kafka.binder.brokers=broker:9092")
        .run(ctx -> assertThat(ctx).hasSingleBean(StreamChannelAdapter.class));
    runner
        .withPropertyValues("activity.channels.kafka.enabled=true")
        .run(ctx -> assertThat(ctx).hasSingleBean(StreamChannelAdapter.class));
    runner
        .withPropertyValues(
            "spring.cloud.stream.kafka.binder.brokers=broker:9092",
            "activity.channels.kafka.enabled=false")
        .run(ctx -> assertThat(ctx).doesNotHaveBean(StreamChannelAdapter.class));
  }

  @Test
  void invalidPropertiesFailWithAFixItMessage() {
    runner
        .withPropertyValues(
            "activity.channels.kafka.enabled=true", "activity.channels.kafka.send-timeout=0s")
        .run(
            ctx ->
                assertThat(ctx)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining(
                        "activity.channels.kafka.send-timeout must be at least 1s"));
    runner
        .withPropertyValues(
            "activity.channels.kafka.enabled=true", "activity.channels.kafka.group= ")
        .run(
            ctx ->
                assertThat(ctx)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("group must not be blank"));
  }

  @Test
  void defaults() {
    KafkaChannelProperties p = KafkaChannelProperties.defaults();
    assertThat(p.group()).isEqualTo("activity-service");
    assertThat(p.sendTimeout()).hasSeconds(30);
    assertThat(p.maxInFlight()).isEqualTo(10_000);
    assertThat(p.binder()).isNull();
  }
}
