package io.activityservice.app.support;

import static org.awaitility.Awaitility.await;

import io.activityservice.testsupport.ServiceProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * A real Zipkin server for the tracing tests: its executable jar from Maven Central (the build
 * copies it to {@code target/zipkin} before the integration tests) started as a process on a free
 * port. When the jar is absent the calling test steps aside with the reason.
 */
public final class ZipkinServer implements AutoCloseable {

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private final Process process;
  private final int port;

  private ZipkinServer(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Starts Zipkin from {@code -Dzipkin.server.jar} and waits until it is healthy. */
  public static ZipkinServer start() throws IOException {
    String jar = System.getProperty("zipkin.server.jar", "target/zipkin/zipkin-server-exec.jar");
    Assumptions.assumeTrue(
        Files.isRegularFile(Path.of(jar)),
        "Zipkin's executable jar is not at "
            + jar
            + ": the build copies io.zipkin:zipkin-server:exec from Maven Central before the"
            + " integration tests; it could not, so there is no trace backend to export to");
    int port = ServiceProcess.freePort();
    Path log = Path.of(jar).resolveSibling("zipkin-" + port + ".log");
    Process process =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx256m",
                    "-jar",
                    jar,
                    "--server.port=" + port))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    ZipkinServer zipkin = new ZipkinServer(process, port);
    await()
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .until(() -> zipkin.get("/health").statusCode() == 200);
    return zipkin;
  }

  public int port() {
    return port;
  }

  /** Zipkin v2's span intake, for an exporter's endpoint. */
  public String spansEndpoint() {
    return url("/api/v2/spans");
  }

  /** An absolute URL of this server. */
  public String url(String path) {
    return "http://127.0.0.1:" + port + path;
  }

  /** A GET on Zipkin's HTTP API (or UI). */
  public HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Override
  public void close() {
    ServiceProcess.stop(process, Duration.ofSeconds(10));
  }
}
