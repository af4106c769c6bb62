package io.activityservice.perf;

import io.activityservice.events.tracing.EventTracing;
import io.activityservice.events.tracing.OpenTelemetryTracing;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.util.concurrent.TimeUnit;

/**
 * Tracing as the service configures it when an OTLP endpoint is set (the SDK, a {@code
 * parentbased_traceidratio} sampler, a batch span processor, the OTLP/HTTP exporter), exporting to
 * an OTLP receiver in this process ({@link OtlpReceiver}) that reads and discards what it gets:
 * what tracing costs per event, export included, without a collector. Measurement only.
 */
final class TracingSink implements AutoCloseable {

  private final OtlpReceiver receiver = new OtlpReceiver();
  private final OpenTelemetrySdk sdk;
  private final EventTracing tracing;

  private TracingSink(double ratio) {
    sdk =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .setSampler(Sampler.parentBased(Sampler.traceIdRatioBased(ratio)))
                    .addSpanProcessor(
                        BatchSpanProcessor.builder(
                                OtlpHttpSpanExporter.builder()
                                    .setEndpoint(receiver.endpoint() + "/v1/traces")
                                    .build())
                            .build())
                    .build())
            .build();
    tracing = new OpenTelemetryTracing(sdk);
  }

  /** Tracing with a sampler of {@code ratio}, exporting here. */
  static TracingSink start(double ratio) {
    return new TracingSink(ratio);
  }

  EventTracing tracing() {
    return tracing;
  }

  @Override
  public void close() {
    sdk.shutdown().join(10, TimeUnit.SECONDS);
    receiver.close();
  }
}
