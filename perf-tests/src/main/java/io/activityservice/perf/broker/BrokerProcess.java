package io.activityservice.perf.broker;

import io.activityservice.channel.jms.embedded.StandaloneActiveMqBroker;
import io.activityservice.testsupport.ServiceProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An ActiveMQ broker in a JVM of its own ({@link StandaloneActiveMqBroker} with {@code
 * --exit-with-stdin} on the runner's class path), started by the suite with {@code
 * --activemq-process}: the service then connects to it as to any external broker, and the broker's
 * CPU time is its own process's, not the service's.
 */
public final class BrokerProcess implements AutoCloseable {

  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  private final Process process;
  private final String url;
  private final List<String> command;

  private BrokerProcess(Process process, String url, List<String> command) {
    this.process = process;
    this.url = url;
    this.command = command;
  }

  /**
   * Starts a persistent broker on a free port with its data under {@code workDir} (wiped first).
   */
  public static BrokerProcess start(Path workDir) throws IOException, InterruptedException {
    ServiceProcess.deleteTree(workDir);
    return start(workDir, ServiceProcess.freePort());
  }

  /**
   * Starts a persistent broker on {@code port} with its data under {@code workDir}, kept if it is
   * there: the fault suite restarts a stopped broker this way, on its old store and address, as an
   * operator would.
   */
  public static BrokerProcess start(Path workDir, int port)
      throws IOException, InterruptedException {
    Files.createDirectories(workDir);
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms256m",
                "-Xmx1g",
                "-XX:+UseParallelGC",
                "-XX:-UseDynamicNumberOfCompilerThreads",
                "-cp",
                absoluteClassPath(),
                StandaloneActiveMqBroker.class.getName(),
                Integer.toString(port),
                workDir.toAbsolutePath().toString(),
                StandaloneActiveMqBroker.EXIT_WITH_STDIN));
    Process p =
        new ProcessBuilder(command)
            .directory(workDir.toFile())
            .redirectError(ProcessBuilder.Redirect.appendTo(workDir.resolve("broker.log").toFile()))
            .start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    CompletableFuture<String> ready =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                String line;
                while ((line = out.readLine()) != null) {
                  if (line.startsWith("READY ")) {
                    return line.substring("READY ".length()).trim();
                  }
                }
                return null;
              } catch (IOException e) {
                return null;
              }
            });
    String url;
    try {
      url = ready.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      url = null;
    }
    if (url == null) {
      p.destroyForcibly();
      throw new IOException(
          "the ActiveMQ broker process exited or did not start within "
              + START_TIMEOUT
              + "; see "
              + workDir.resolve("broker.log"));
    }
    return new BrokerProcess(p, url, command);
  }

  /** This JVM's class path with absolute entries (the broker runs in another working directory). */
  private static String absoluteClassPath() {
    return String.join(
        java.io.File.pathSeparator,
        java.util.Arrays.stream(
                System.getProperty("java.class.path")
                    .split(java.util.regex.Pattern.quote(java.io.File.pathSeparator)))
            .map(e -> Path.of(e).toAbsolutePath().toString())
            .toList());
  }

  /** The broker's URL, e.g. {@code tcp://127.0.0.1:43127}. */
  public String url() {
    return url;
  }

  /** Its process id. */
  public long pid() {
    return process.pid();
  }

  /** Its command line, for the report. */
  public String command() {
    return String.join(
        " ", command.stream().map(a -> a.length() > 200 ? a.substring(0, 60) + "…" : a).toList());
  }

  /** Stops the broker (SIGTERM, SIGKILL after 30 s). */
  @Override
  public void close() {
    ServiceProcess.stop(process, Duration.ofSeconds(30));
  }
}
