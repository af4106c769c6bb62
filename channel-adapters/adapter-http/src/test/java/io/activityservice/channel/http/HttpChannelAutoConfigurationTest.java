package io.activityservice.channel.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class HttpChannelAutoConfigurationTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(HttpChannelAutoConfiguration.class));

  @Test
  void bindsThePerHostLimits() {
    runner
        .withPropertyValues(
            "activity.channels.http.max-concurrency-per-host=8",
            "activity.channels.http.max-queued-per-host=100",
            "activity.channels.http.request-timeout=3s")
        .run(
            context -> {
              assertThat(context).hasSingleBean(HttpChannelAdapter.class);
              assertThat(context.getBean(HttpChannelProperties.class))
                  .isEqualTo(
                      new HttpChannelProperties(
                          Duration.ofSeconds(2), Duration.ofSeconds(3), 8, 100));
            });
  }

  @Test
  void badLimitsFailTheStartWithTheFix() {
    runner
        .withPropertyValues("activity.channels.http.max-concurrency-per-host=0")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("activity.channels.http.max-concurrency-per-host"));
  }

  @Test
  void bindsTheOutboundExceptionsAndUsesAResolverBean() {
    runner
        .withPropertyValues(
            "activity.outbound.allowed-networks=10.20.0.0/16,fd12::/16",
            "activity.outbound.allowed-hosts=*.corp.example")
        .withBean(
            HostResolver.class,
            () ->
                host ->
                    new java.net.InetAddress[] {
                      java.net.InetAddress.getByAddress(host, new byte[] {10, 20, 1, 1})
                    })
        .run(
            context -> {
              HttpChannelAdapter adapter = context.getBean(HttpChannelAdapter.class);
              assertThat(adapter.policy()).isSameAs(context.getBean(OutboundPolicy.class));
              assertThat(adapter.policy().toString())
                  .isEqualTo(
                      "OutboundPolicy[allowedNetworks=[10.20.0.0/16, fd12::/16], allowedHosts=[*.corp.example]]");
              // resolves through the bean: 10.20.1.1 is inside the allowed network
              adapter.validate(
                  io.activityservice.channel.ChannelUri.parse("https://anything.example/hook"));
            });
  }

  @Test
  void nothingInternalIsAllowedByDefault() {
    runner.run(
        context ->
            org.assertj.core.api.Assertions.assertThatThrownBy(
                    () ->
                        context
                            .getBean(HttpChannelAdapter.class)
                            .validate(
                                io.activityservice.channel.ChannelUri.parse("http://127.0.0.1/")))
                .hasMessageContaining("loopback")
                .hasMessageContaining("activity.outbound.allowed-networks"));
  }

  @Test
  void badExceptionsFailTheStartNamingTheSetting() {
    runner
        .withPropertyValues("activity.outbound.allowed-networks=10.0.0.0/40")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("activity.outbound.allowed-networks"));
  }
}
