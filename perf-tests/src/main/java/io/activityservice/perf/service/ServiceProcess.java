package io.activityservice.perf.service;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The service under test as its own process: {@code java -jar activity-service.jar} with its own working
 * directory (H2 database and KahaDB under it, wiped at start; the jar is copied there first so a rebuild
 * during the run cannot affect it), free ports, and a continuous JFR recording
 * ({@code settings=default}) dumped on exit, from which the report cuts per-scenario profiles.
 */
public final class ServiceProcess implements AutoCloseable {

  private static final Duration START_TIMEOUT = Duration.ofSeconds(300);

  private final Process process;
  private final Path workDir;
  private final Path jfrFile;
  private final String url;

  private ServiceProcess(Process process, Path workDir, Path jfrFile, String url) {
    this.process = process;
    this.workDir = workDir;
    this.jfrFile = jfrFile;
    this.url = url;
  }

  /**
   * Starts the jar and waits (at most 5 minutes: a loaded 2-core machine has needed over 3) until {@code /actuator/health} is UP.
   *
   * @param jar     the service jar
   * @param workDir its working directory (deleted and recreated)
   * @param port    HTTP port
   * @param jfr     whether to record JFR
   * @param jvmArgs extra JVM options
   * @param args    Spring Boot arguments ({@code --name=value})
   * @param adminKey the service's bootstrap admin key ({@code activity.security.bootstrap-admin-key}), or null to
   *                start it with {@code activity.security.enabled=false}; never written to {@code command.txt}
   */
  public static ServiceProcess start(Path jar, Path workDir, int port, boolean jfr, List<String> jvmArgs,
      List<String> args, String adminKey, ServiceApiFactory apis) throws IOException, InterruptedException {
    deleteTree(workDir);
    Files.createDirectories(workDir);
    Path jfrFile = workDir.resolve("service.jfr").toAbsolutePath();
    // Run a private copy: a rebuild of the jar during the run (other builds on the machine) would
    // otherwise break the running service with NoClassDefFoundErrors.
    Path copy = workDir.resolve("activity-service.jar").toAbsolutePath();
    Files.copy(jar, copy);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmArgs);
    if (jfr) {
      command.add("-XX:StartFlightRecording=name=perf,settings=default,dumponexit=true,filename=" + jfrFile);
    }
    command.add("-jar");
    command.add(copy.toString());
    command.add("--server.port=" + port);
    command.addAll(args);
    if (adminKey == null) {
      command.add("--activity.security.enabled=false");
    }
    Files.writeString(workDir.resolve("command.txt"), String.join(" ", command) + "\n");
    ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile())
        .redirectErrorStream(true).redirectOutput(workDir.resolve("service.log").toFile());
    if (adminKey != null) {
      // In the environment rather than on the command line: other users of the machine can list command lines.
      builder.environment().put("ACTIVITY_SECURITY_BOOTSTRAP_ADMIN_KEY", adminKey);
    }
    Process p = builder.start();
    String url = "http://127.0.0.1:" + port;
    ServiceProcess service = new ServiceProcess(p, workDir, jfr ? jfrFile : null, url);
    ServiceApi api = apis.create(url);
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!p.isAlive()) {
        throw new IOException("the service exited with " + p.exitValue() + " during start-up; see "
            + workDir.resolve("service.log"));
      }
      if (api.healthy()) {
        return service;
      }
      Thread.sleep(500);
    }
    service.close();
    throw new IOException("the service was not healthy within " + START_TIMEOUT + "; see " + workDir.resolve("service.log"));
  }

  /** Creates the API client used to poll health during start-up. */
  @FunctionalInterface
  public interface ServiceApiFactory {
    /** An API client for {@code url}. */
    ServiceApi create(String url);
  }

  /** Base URL. */
  public String url() {
    return url;
  }

  /** Process id. */
  public long pid() {
    return process.pid();
  }

  /** The JFR file written at exit, or null without JFR. */
  public Path jfrFile() {
    return jfrFile;
  }

  /** The working directory. */
  public Path workDir() {
    return workDir;
  }

  /** A free TCP port on 127.0.0.1. */
  public static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** Stops the service (SIGTERM, then SIGKILL after 60 s) so that the JFR recording is dumped. */
  @Override
  public void close() {
    stop(process, Duration.ofSeconds(60));
  }

  /** Stops a child process of the suite: SIGTERM, then SIGKILL once {@code grace} has passed. */
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
}
