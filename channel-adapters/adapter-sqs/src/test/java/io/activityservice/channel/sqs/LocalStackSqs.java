package io.activityservice.channel.sqs;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Test support: finds a real LocalStack (SQS) for integration tests, in this order:
 *
 * <ol>
 *   <li>the {@code LOCALSTACK_ENDPOINT} environment variable (e.g. {@code http://127.0.0.1:4566});
 *   <li>a Testcontainers LocalStack 4.3.0 container, when a Docker engine is available;
 *   <li>the project's {@code infra/localstack/start.sh} (found by walking up from the working
 *       directory), which installs LocalStack into a venv and starts it on 127.0.0.1:4566, or
 *       returns at once if it already runs.
 * </ol>
 *
 * When none works the calling test is skipped (JUnit assumption) with the reason, except under
 * {@code CI=true}, where it fails. The result is looked up once per JVM.
 */
public final class LocalStackSqs {

  /** The LocalStack version the project pins (same as infra/localstack). */
  public static final String IMAGE = "localstack/localstack:4.3.0";

  /** LocalStack 4.3 limits a message and a batch request to 256 KiB (AWS now allows 1 MiB). */
  public static final int MAX_BATCH_BYTES = 262_144;

  private static final Pattern SQS_UP = Pattern.compile("\"sqs\"\\s*:\\s*\"(available|running)\"");
  private static final Duration SCRIPT_TIMEOUT = Duration.ofMinutes(10);

  private static URI endpoint;
  private static String unavailable;

  private LocalStackSqs() {}

  /**
   * The endpoint of a running LocalStack with SQS. Skips the calling test when there is none, or
   * fails it under {@code CI=true}.
   */
  public static synchronized URI endpoint() {
    if (endpoint == null && unavailable == null) {
      locate();
    }
    if (endpoint == null) {
      String reason = "no LocalStack for the SQS tests: " + unavailable;
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        Assertions.fail(reason + " (CI=true: LocalStack is required)");
      }
      Assumptions.assumeTrue(false, reason);
    }
    return endpoint;
  }

  /**
   * Adapter settings for LocalStack: its endpoint, dummy credentials, queue creation, LocalStack's
   * 256 KiB batch limit and a short long-polling wait so that tests close quickly.
   */
  public static SqsChannelProperties properties() {
    return SqsChannelProperties.forEndpoint(endpoint()).toBuilder()
        .pollers(2)
        .waitTime(Duration.ofSeconds(2))
        .visibilityTimeout(Duration.ofSeconds(30))
        .maxInFlight(100)
        .batchLinger(Duration.ofMillis(5))
        .maxBatchRequestsInFlight(8)
        .maxBatchBytes(MAX_BATCH_BYTES)
        .build();
  }

  private static void locate() {
    List<String> tried = new ArrayList<>();
    String env = System.getenv("LOCALSTACK_ENDPOINT");
    if (env != null && !env.isBlank()) {
      URI uri = URI.create(env.trim());
      if (healthy(uri)) {
        endpoint = uri;
        return;
      }
      unavailable =
          "LOCALSTACK_ENDPOINT="
              + env
              + " does not answer with a running SQS at /_localstack/health";
      return;
    }
    tried.add("LOCALSTACK_ENDPOINT not set");
    try {
      Optional<URI> container = Containers.start();
      if (container.isPresent()) {
        endpoint = container.get();
        return;
      }
      tried.add("no Docker engine for Testcontainers");
    } catch (LinkageError e) {
      tried.add("Testcontainers not on the classpath");
    } catch (RuntimeException e) {
      tried.add("Testcontainers LocalStack failed: " + e);
    }
    URI local = URI.create("http://127.0.0.1:4566");
    if (healthy(local)) {
      endpoint = local;
      return;
    }
    Optional<Path> script = findScript();
    if (script.isEmpty()) {
      tried.add("infra/localstack/start.sh not found above " + Path.of("").toAbsolutePath());
      unavailable = String.join("; ", tried);
      return;
    }
    try {
      endpoint = runScript(script.get());
    } catch (IOException | RuntimeException e) {
      tried.add(script.get() + " failed: " + e.getMessage());
      unavailable = String.join("; ", tried);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      tried.add(script.get() + " interrupted");
      unavailable = String.join("; ", tried);
    }
  }

  private static Optional<Path> findScript() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path script = dir.resolve("infra/localstack/start.sh");
      if (Files.isRegularFile(script)) {
        return Optional.of(script);
      }
    }
    return Optional.empty();
  }

  private static URI runScript(Path script) throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder("bash", script.toString()).redirectErrorStream(true).start();
    process.getOutputStream().close();
    StringBuilder output = new StringBuilder();
    URI found = null;
    try (BufferedReader reader =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        output.append(line).append('\n');
        if (line.startsWith("LOCALSTACK_ENDPOINT=")) {
          found = URI.create(line.substring("LOCALSTACK_ENDPOINT=".length()).trim());
        }
      }
    }
    if (!process.waitFor(SCRIPT_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      process.destroy();
      throw new IllegalStateException("did not finish within " + SCRIPT_TIMEOUT);
    }
    if (process.exitValue() != 0 || found == null || !healthy(found)) {
      String tail =
          output.length() > 2000 ? output.substring(output.length() - 2000) : output.toString();
      throw new IllegalStateException("exit " + process.exitValue() + ", output:\n" + tail);
    }
    return found;
  }

  /** Whether LocalStack at {@code endpoint} reports SQS as available or running. */
  public static boolean healthy(URI endpoint) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(endpoint.resolve("/_localstack/health"))
                  .timeout(Duration.ofSeconds(3))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200 && SQS_UP.matcher(response.body()).find();
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Kept apart so that Testcontainers classes are only loaded when this path is tried. */
  private static final class Containers {
    private static org.testcontainers.localstack.LocalStackContainer container;

    static Optional<URI> start() {
      if (!org.testcontainers.DockerClientFactory.instance().isDockerAvailable()) {
        return Optional.empty();
      }
      container = new org.testcontainers.localstack.LocalStackContainer(IMAGE).withServices("sqs");
      container.start();
      return Optional.of(container.getEndpoint());
    }
  }
}
