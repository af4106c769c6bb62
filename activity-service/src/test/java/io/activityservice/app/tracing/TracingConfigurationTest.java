package io.activityservice.app.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.events.tracing.EventTracing;
import io.activityservice.events.tracing.OpenTelemetryTracing;
import io.opentelemetry.api.OpenTelemetry;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.mock.env.MockEnvironment;

/**
 * Which settings turn tracing on: an exporter must be configured; the SDK's defaults are the
 * documented ones; Spring properties reach the SDK.
 */
class TracingConfigurationTest {

  @Test
  void withoutAnExporterNothingIsTracedAndNoSdkIsBuilt() {
    TracingConfiguration.TracingSdk sdk =
        new TracingConfiguration()
            .tracingSdk(
                new StaticListableBeanFactory().getBeanProvider(OpenTelemetry.class),
                new MockEnvironment());
    assertThat(sdk.tracing()).isSameAs(EventTracing.NONE);
    assertThat(sdk.sdk()).isNull();
    sdk.close();
  }

  @Test
  void anOtlpEndpointTurnsTheSdkOnWithTheDocumentedDefaults() {
    MockEnvironment env =
        new MockEnvironment().withProperty("otel.exporter.otlp.endpoint", "http://127.0.0.1:1");
    TracingConfiguration.TracingSdk sdk =
        new TracingConfiguration()
            .tracingSdk(new StaticListableBeanFactory().getBeanProvider(OpenTelemetry.class), env);
    try {
      assertThat(sdk.tracing()).isInstanceOf(OpenTelemetryTracing.class);
      assertThat(sdk.sdk()).isNotNull();
      assertThat(sdk.sdk().getSdkTracerProvider().getSampler().getDescription())
          .startsWith("ParentBased{root:TraceIdRatioBased{0.100000}");
    } finally {
      sdk.close();
    }
  }

  @Test
  void settingsComeFromSpringPropertiesOverTheDefaults() {
    Map<String, String> s =
        TracingConfiguration.settings(
            Map.of("otel.traces.sampler.arg", " 1.0 ", "otel.service.name", "edge")::get);
    assertThat(s)
        .containsEntry("otel.traces.sampler", "parentbased_traceidratio")
        .containsEntry("otel.traces.sampler.arg", "1.0")
        .containsEntry("otel.service.name", "edge")
        .containsEntry("otel.exporter.otlp.protocol", "http/protobuf")
        .containsEntry("otel.metrics.exporter", "none")
        .containsEntry("otel.logs.exporter", "none");
  }

  @Test
  void anExporterIsConfiguredByAnEndpointOrAnExporterOtherThanNone() {
    assertThat(TracingConfiguration.exporterConfigured(Map.of())).isFalse();
    assertThat(
            TracingConfiguration.exporterConfigured(
                Map.of("otel.exporter.otlp.traces.endpoint", "http://c:4318/v1/traces")))
        .isTrue();
    assertThat(TracingConfiguration.exporterConfigured(Map.of("otel.traces.exporter", "zipkin")))
        .isTrue();
    assertThat(
            TracingConfiguration.exporterConfigured(
                Map.of(
                    "otel.traces.exporter",
                    "none",
                    "otel.exporter.otlp.endpoint",
                    "http://c:4318")))
        .isFalse();
    assertThat(
            TracingConfiguration.exporterConfigured(
                Map.of(
                    "otel.sdk.disabled", "TRUE", "otel.exporter.otlp.endpoint", "http://c:4318")))
        .isFalse();
  }
}
