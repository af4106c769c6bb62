package io.activityservice.app.tracing;

import io.activityservice.events.tracing.EventTracing;
import io.activityservice.events.tracing.OpenTelemetryTracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Tracing (docs/tracing.md): the OpenTelemetry SDK, configured by its own autoconfiguration from
 * the standard {@code OTEL_*} environment variables and {@code otel.*} system or Spring properties
 * ({@code OTEL_EXPORTER_OTLP_ENDPOINT}, {@code OTEL_TRACES_SAMPLER}, {@code
 * OTEL_TRACES_SAMPLER_ARG}, ...), behind the Event Service's {@link EventTracing} seam.
 *
 * <p>Nothing is traced, and nothing costs anything, until an exporter is configured (an OTLP
 * endpoint, or {@code otel.traces.exporter}); events keep their {@code traceparent} either way, so
 * context propagation always works. The default sampler is {@code parentbased_traceidratio} with
 * ratio {@value #DEFAULT_SAMPLER_ARG}: a producer's sampling decision is followed, and of the
 * events that arrive without one the given share is traced (the cost per event is measured in
 * docs/tracing.md). An {@link OpenTelemetry} bean of the application's own, if any, is used
 * instead.
 *
 * <p>The SDK's autoconfiguration was chosen over Spring Boot 4's OpenTelemetry support because it
 * reads the standard variables themselves (Boot maps its own {@code management.*} properties), and
 * because the Event Service uses the OpenTelemetry API directly rather than Micrometer Tracing's
 * observation layer, whose per-call allocations the event path cannot afford.
 */
@Configuration(proxyBeanMethods = false)
public class TracingConfiguration {

  private static final Logger log = LoggerFactory.getLogger(TracingConfiguration.class);

  /** The default {@code otel.traces.sampler.arg}: see docs/tracing.md for the measured cost. */
  public static final String DEFAULT_SAMPLER_ARG = "0.1";

  /** The {@code otel.*} settings also read from Spring properties (application.yml, --args). */
  static final List<String> SETTINGS =
      List.of(
          "otel.sdk.disabled",
          "otel.service.name",
          "otel.resource.attributes",
          "otel.traces.exporter",
          "otel.traces.sampler",
          "otel.traces.sampler.arg",
          "otel.propagators",
          "otel.exporter.otlp.endpoint",
          "otel.exporter.otlp.traces.endpoint",
          "otel.exporter.otlp.protocol",
          "otel.exporter.otlp.traces.protocol",
          "otel.exporter.otlp.headers",
          "otel.exporter.otlp.traces.headers",
          "otel.exporter.otlp.timeout",
          "otel.exporter.otlp.compression",
          "otel.exporter.zipkin.endpoint",
          "otel.bsp.schedule.delay",
          "otel.bsp.max.queue.size",
          "otel.bsp.max.export.batch.size",
          "otel.bsp.export.timeout");

  /** The tracing the Event Service uses, and the SDK behind it (closed, flushing, at shutdown). */
  @Bean(destroyMethod = "close")
  TracingSdk tracingSdk(ObjectProvider<OpenTelemetry> application, Environment environment) {
    OpenTelemetry own = application.getIfAvailable();
    if (own != null) {
      log.info("tracing with the application's OpenTelemetry instance");
      return new TracingSdk(new OpenTelemetryTracing(own), null);
    }
    Map<String, String> settings = settings(environment::getProperty);
    if (!exporterConfigured(settings)) {
      log.info(
          "tracing off: no exporter configured (set OTEL_EXPORTER_OTLP_ENDPOINT to turn it on);"
              + " events keep their traceparent");
      return new TracingSdk(EventTracing.NONE, null);
    }
    OpenTelemetrySdk sdk =
        AutoConfiguredOpenTelemetrySdk.builder()
            .addPropertiesSupplier(() -> settings)
            .disableShutdownHook()
            .build()
            .getOpenTelemetrySdk();
    log.info(
        "tracing on: exporter {}, sampler {} {}",
        settings.getOrDefault("otel.traces.exporter", "otlp"),
        settings.get("otel.traces.sampler"),
        settings.get("otel.traces.sampler.arg"));
    return new TracingSdk(new OpenTelemetryTracing(sdk), sdk);
  }

  @Bean
  EventTracing eventTracing(TracingSdk sdk) {
    return sdk.tracing();
  }

  /**
   * The SDK's settings: its defaults here (no metrics or logs export, OTLP over HTTP/protobuf, the
   * sampler, the service's name), overridden by any {@code otel.*} Spring property; the SDK itself
   * still lets system properties and environment variables override these.
   */
  static Map<String, String> settings(java.util.function.Function<String, String> property) {
    Map<String, String> s = new HashMap<>();
    s.put("otel.service.name", "activity-service");
    s.put("otel.metrics.exporter", "none");
    s.put("otel.logs.exporter", "none");
    // OTLP over HTTP (the JDK sender): the Java SDK's own default is gRPC, which needs OkHttp or
    // gRPC.
    s.put("otel.exporter.otlp.protocol", "http/protobuf");
    s.put("otel.traces.sampler", "parentbased_traceidratio");
    s.put("otel.traces.sampler.arg", DEFAULT_SAMPLER_ARG);
    for (String key : SETTINGS) {
      String value = property.apply(key);
      if (value != null && !value.isBlank()) {
        s.put(key, value.trim());
      }
    }
    return s;
  }

  /** Whether an exporter is configured (and the SDK is not disabled). */
  static boolean exporterConfigured(Map<String, String> settings) {
    if ("true".equalsIgnoreCase(settings.get("otel.sdk.disabled"))) {
      return false;
    }
    String exporter = settings.get("otel.traces.exporter");
    if (exporter != null) {
      return !exporter.toLowerCase(Locale.ROOT).equals("none");
    }
    return settings.containsKey("otel.exporter.otlp.endpoint")
        || settings.containsKey("otel.exporter.otlp.traces.endpoint");
  }

  /** The tracing in use and the SDK the service built for it ({@code null}: none). */
  public record TracingSdk(EventTracing tracing, OpenTelemetrySdk sdk) implements AutoCloseable {

    /** Flushes and stops the SDK the service built (an application's own is left alone). */
    @Override
    public void close() {
      if (sdk != null) {
        sdk.shutdown().join(10, TimeUnit.SECONDS);
      }
    }
  }
}
