package io.activityservice.perf;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An OTLP/HTTP trace receiver that reads and discards what it gets (answering an empty {@code
 * ExportTraceServiceResponse}): where a measurement points the service's exporter, so tracing's
 * cost includes export without a collector. Measurement only.
 */
final class OtlpReceiver implements AutoCloseable {

  private final HttpServer server;
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();

  OtlpReceiver() {
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext(
        "/v1/traces",
        exchange -> {
          bytes.addAndGet(exchange.getRequestBody().readAllBytes().length);
          requests.incrementAndGet();
          exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    server.start();
  }

  /** The base URL, as {@code OTEL_EXPORTER_OTLP_ENDPOINT} takes it. */
  String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  long requests() {
    return requests.get();
  }

  long bytes() {
    return bytes.get();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
