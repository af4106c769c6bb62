package io.activityservice.perf;

import com.sun.net.httpserver.HttpServer;
import io.activityservice.events.tracing.EventTracing;
import io.activityservice.events.tracing.OpenTelemetryTracing;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Tracing as the service configures it when an OTLP endpoint is set (the SDK, a {@code
 * parentbased_traceidratio} sampler, a batch span processor, the OTLP/HTTP exporter), exporting to
 * an OTLP receiver in this process that reads and discards what it gets: what tracing costs per
 * event, export included, without a collector. Measurement only.
 */
final class TracingSink implements AutoCloseable {

  private final HttpServer server;
  private final OpenTelemetrySdk sdk;
  private final EventTracing tracing;
  private final AtomicLong exports = new AtomicLong();

  private TracingSink(double ratio) {
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext(
        "/v1/traces",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          exports.incrementAndGet();
          exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
          exchange.sendResponseHeaders(200, -1); // an empty ExportTraceServiceResponse
          exchange.close();
        });
    server.start();
    sdk =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .setSampler(Sampler.parentBased(Sampler.traceIdRatioBased(ratio)))
                    .addSpanProcessor(
                        BatchSpanProcessor.builder(
                                OtlpHttpSpanExporter.builder()
                                    .setEndpoint(
                                        "http://127.0.0.1:"
                                            + server.getAddress().getPort()
                                            + "/v1/traces")
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

  /** OTLP export requests received. */
  long exports() {
    return exports.get();
  }

  @Override
  public void close() {
    sdk.shutdown().join(10, TimeUnit.SECONDS);
    server.stop(0);
  }
}
