package io.activityservice.channel.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class HttpChannelAutoConfigurationTest {

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(HttpChannelAutoConfiguration.class));

  @Test
  void bindsThePerHostLimits() {
    runner.withPropertyValues("activity.channels.http.max-concurrency-per-host=8",
            "activity.channels.http.max-queued-per-host=100", "activity.channels.http.request-timeout=3s")
        .run(context -> {
          assertThat(context).hasSingleBean(HttpChannelAdapter.class);
          assertThat(context.getBean(HttpChannelProperties.class))
              .isEqualTo(new HttpChannelProperties(Duration.ofSeconds(2), Duration.ofSeconds(3), 8, 100));
        });
  }

  @Test
  void badLimitsFailTheStartWithTheFix() {
    runner.withPropertyValues("activity.channels.http.max-concurrency-per-host=0")
        .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
            .hasMessageContaining("activity.channels.http.max-concurrency-per-host"));
  }
}
