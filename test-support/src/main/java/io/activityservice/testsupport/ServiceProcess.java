package io.activityservice.testsupport;

import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.TerminalFailureException;

/**
 * The service under test as its own OS process: {@code java -jar activity-service.jar} on a free
 * port, ready once its readiness probe answers; stopped gracefully (SIGTERM, then SIGKILL after a
 * grace period), killed (SIGKILL, as a crash) or paused (SIGSTOP / SIGCONT, as a long GC pause).
 * The one launcher of activity-service's multi-process ITs and perf-tests' runners; it can be
 * started again after {@link #kill()} on the same port, log and store.
 *
 * <p>With a {@linkplain Builder#workDir working directory} it runs there (deleted and recreated
 * when built) from a private copy of the jar, so a rebuild during a long run cannot break it with
 * {@code NoClassDefFoundError}s, and may keep a continuous JFR recording dumped on exit.
 */
public final class ServiceProcess implements AutoCloseable {

  /** Start-up timeout of the long runs: a loaded 2-core machine has needed over 3 minutes. */
  public static final Duration PATIENT_START = Duration.ofMinutes(5);

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

  private final List<String> command;
  private final Map<String, String> environment;
  private final Path workDir;
  private final File log;
  private final int port;
  private final Path jfrFile;
  private final Duration stopGrace;
  private volatile Process process;

  private ServiceProcess(Builder b, List<String> command, Path jfrFile, File log) {
    this.command = List.copyOf(command);
    this.environment = Map.copyOf(b.environment);
    this.workDir = b.workDir;
    this.log = log;
    this.port = b.port;
    this.jfrFile = jfrFile;
    this.stopGrace = b.stopGrace;
  }

  /** A service on {@code port} from {@code jar}; see the {@link Builder}'s defaults. */
  public static Builder builder(Path jar, int port) {
    return new Builder(jar, port);
  }

  /** How a {@link ServiceProcess} runs. */
  public static final class Builder {
    private final Path jar;
    private final int port;
    private Path workDir;
    private Path log;
    private List<String> jvmArgs = List.of();
    private List<String> args = List.of();
    private final Map<String, String> environment = new LinkedHashMap<>();
    private boolean jfr;
    private boolean securityOff;
    private Duration stopGrace = Duration.ofSeconds(60);

    private Builder(Path jar, int port) {
      this.jar = jar;
      this.port = port;
    }

    /**
     * Run in {@code dir} (deleted and recreated by {@link #build()}) from a private copy of the
     * jar; log in it.
     */
    public Builder workDir(Path dir) {
      this.workDir = dir;
      return this;
    }

    /**
     * Append stdout and stderr to {@code file} (default: {@code service.log} in the working
     * directory).
     */
    public Builder log(Path file) {
      this.log = file;
      return this;
    }

    /** JVM options, e.g. {@code -Xmx512m}. */
    public Builder jvmArgs(List<String> jvmArgs) {
      this.jvmArgs = List.copyOf(jvmArgs);
      return this;
    }

    /** Spring Boot arguments ({@code --name=value}); {@code --server.port} is added. */
    public Builder args(List<String> args) {
      this.args = List.copyOf(args);
      return this;
    }

    /**
     * The service's bootstrap admin key, passed in the environment rather than on the command line
     * (other users of the machine can list command lines); null starts it with {@code
     * activity.security.enabled=false}.
     */
    public Builder adminKey(String key) {
      if (key == null) {
        securityOff = true;
        environment.remove("ACTIVITY_SECURITY_BOOTSTRAP_ADMIN_KEY");
      } else {
        securityOff = false;
        environment.put("ACTIVITY_SECURITY_BOOTSTRAP_ADMIN_KEY", key);
      }
      return this;
    }

    /**
     * Record JFR ({@code settings=default}) into {@code service.jfr} in the working directory,
     * dumped on exit.
     */
    public Builder jfr(boolean on) {
      this.jfr = on;
      return this;
    }

    /**
     * How long {@link #close()} waits after SIGTERM before SIGKILL (default 60 s, time to dump
     * JFR).
     */
    public Builder stopGrace(Duration grace) {
      this.stopGrace = grace;
      return this;
    }

    /**
     * Prepares the working directory (if any) and the command line; nothing runs until {@link
     * #start}.
     */
    public ServiceProcess build() {
      if (workDir == null && (jfr || log == null)) {
        throw new IllegalStateException(
            "a JFR recording or a log without a file needs a working directory");
      }
      Path runJar = jar.toAbsolutePath();
      Path jfrFile = null;
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.addAll(jvmArgs);
      try {
        if (workDir != null) {
          deleteTree(workDir);
          Files.createDirectories(workDir);
          runJar = workDir.resolve("activity-service.jar").toAbsolutePath();
          Files.copy(jar, runJar);
          if (jfr) {
            jfrFile = workDir.resolve("service.jfr").toAbsolutePath();
            command.add(
                "-XX:StartFlightRecording=name=perf,settings=default,dumponexit=true,filename="
                    + jfrFile);
          }
        }
        command.add("-jar");
        command.add(runJar.toString());
        command.add("--server.port=" + port);
        command.addAll(args);
        if (securityOff) {
          command.add("--activity.security.enabled=false");
        }
        if (workDir != null) {
          Files.writeString(workDir.resolve("command.txt"), String.join(" ", command) + "\n");
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      Path logFile = log != null ? log : workDir.resolve("service.log");
      return new ServiceProcess(this, command, jfrFile, logFile.toFile());
    }
  }

  /**
   * Starts the process and waits until its readiness probe answers 200.
   *
   * @throws IllegalStateException if it exits meanwhile or is not ready within {@code timeout}
   *     (then it is stopped); the message names the log
   */
  public ServiceProcess start(Duration timeout) {
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log));
    if (workDir != null) {
      builder.directory(workDir.toFile());
    }
    builder.environment().putAll(environment);
    Process p;
    try {
      p = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    process = p;
    try {
      await("service on port " + port + " ready")
          .atMost(timeout)
          .pollInterval(Duration.ofMillis(250))
          .failFast("the service exited", () -> !p.isAlive())
          .until(this::ready);
      return this;
    } catch (TerminalFailureException e) {
      throw new IllegalStateException(
          "the service exited with " + p.exitValue() + " during start-up; see " + log);
    } catch (ConditionTimeoutException e) {
      close();
      throw new IllegalStateException(
          "the service was not ready within " + timeout + "; see " + log);
    }
  }

  /** SIGKILL: no shutdown hooks, no graceful close — what a crash looks like to the brokers. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  /**
   * SIGSTOP: the process stops dead (threads, timers, sockets unanswered), as in a long GC pause.
   */
  public void pause() {
    signal("STOP", process.pid());
  }

  /** SIGCONT after {@link #pause()}. */
  public void resume() {
    signal("CONT", process.pid());
  }

  /** Sends {@code kill -NAME pid}; throws if it fails. */
  public static void signal(String name, long pid) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + name + " " + pid + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** HTTP port. */
  public int port() {
    return port;
  }

  /** Base URL. */
  public String url() {
    return "http://127.0.0.1:" + port;
  }

  /** Process id of the running process. */
  public long pid() {
    return process.pid();
  }

  /** The JFR file written at exit, or null without JFR. */
  public Path jfrFile() {
    return jfrFile;
  }

  /** The working directory, or null. */
  public Path workDir() {
    return workDir;
  }

  /**
   * Stops the service: SIGTERM, then SIGKILL once the stop grace has passed (JFR is dumped on a
   * graceful exit).
   */
  @Override
  public void close() {
    if (process != null) {
      stop(process, stopGrace);
    }
  }

  /** Stops a child process: SIGTERM, then SIGKILL once {@code grace} has passed. */
  public static void stop(Process process, Duration grace) {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /** A free TCP port on 127.0.0.1. */
  public static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Deletes {@code dir} and everything under it, if it exists. */
  public static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  private boolean ready() {
    try {
      HttpResponse<Void> r =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(url() + "/actuator/health/readiness"))
                  .timeout(Duration.ofSeconds(2))
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.discarding());
      return r.statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
