package io.activityservice.perf.peer;

import io.activityservice.channel.support.DaemonThreads;
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
 * The Camel peer (module perf-peer-camel) as a process of its own: {@code java -jar
 * perf-peer-camel.jar} with the suite's routes, started once every peer scenario is set up, stopped
 * with the suite (it also exits when the runner dies: it watches its standard input). Log and
 * command line in its working directory.
 */
public final class PeerProcess implements AutoCloseable {

  private static final Duration START_TIMEOUT = Duration.ofSeconds(180);

  private final Process process;
  private final List<String> command;

  private PeerProcess(Process process, List<String> command) {
    this.process = process;
    this.command = command;
  }

  /**
   * Starts the peer and waits until it printed {@code READY} (every route started).
   *
   * @param jar the peer's jar
   * @param workDir its working directory (wiped first)
   * @param jvmArgs JVM options
   * @param settings Spring Boot arguments besides the routes (broker URL, SQS endpoint)
   * @param routes the routes
   */
  public static PeerProcess start(
      Path jar, Path workDir, List<String> jvmArgs, List<String> settings, List<PeerRoute> routes)
      throws IOException, InterruptedException {
    if (!Files.isRegularFile(jar)) {
      throw new IOException(
          "the Camel peer's jar "
              + jar
              + " is missing: build it (./mvnw -q -B -pl perf-peer-camel"
              + " package -DskipTests; run.sh does when not --no-build) or run with --peer none");
    }
    ServiceProcess.deleteTree(workDir);
    Files.createDirectories(workDir);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmArgs);
    command.add("-jar");
    command.add(jar.toAbsolutePath().toString());
    command.addAll(settings);
    command.addAll(PeerRoute.arguments(routes));
    Files.writeString(workDir.resolve("command.txt"), String.join(" ", command) + "\n");
    Process p =
        new ProcessBuilder(command)
            .directory(workDir.toFile())
            .redirectError(workDir.resolve("peer.log").toFile())
            .start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    CompletableFuture<Boolean> ready =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                String line;
                while ((line = out.readLine()) != null) {
                  if (line.startsWith("READY ")) {
                    drain(out);
                    return true;
                  }
                }
                return false;
              } catch (IOException e) {
                return false;
              }
            });
    boolean ok;
    try {
      ok = ready.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      ok = false;
    }
    if (!ok) {
      ServiceProcess.stop(p, Duration.ofSeconds(5));
      throw new IOException(
          "the Camel peer exited or did not start its routes within "
              + START_TIMEOUT
              + "; see "
              + workDir.resolve("peer.log"));
    }
    return new PeerProcess(p, command);
  }

  /**
   * Keeps reading the peer's standard output (its log goes to stderr) so it never blocks on a full
   * pipe.
   */
  private static void drain(BufferedReader out) {
    Thread t =
        DaemonThreads.thread(
            "perf-peer-stdout",
            () -> {
              try {
                while (out.readLine() != null) {
                  // discard
                }
              } catch (IOException e) {
                // closed
              }
            });
    t.start();
  }

  /** Its process id. */
  public long pid() {
    return process.pid();
  }

  /** Its command line, for the report. */
  public String command() {
    return String.join(" ", command);
  }

  /** Stops the peer (SIGTERM, SIGKILL after 30 s). */
  @Override
  public void close() {
    ServiceProcess.stop(process, Duration.ofSeconds(30));
  }
}
