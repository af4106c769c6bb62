package io.activityservice.app.fault;

import io.activityservice.app.support.Api;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The packaged service jar running as its own OS process, so a test can kill it like a crash would. It starts
 * with {@link Api#ADMIN_KEY} as its bootstrap admin key, so {@code new Api(port)} can use it.
 */
public final class ServiceProcess implements AutoCloseable {

  private final List<String> command;
  private final File log;
  private final int port;
  private Process process;

  public ServiceProcess(Path jar, int port, Path logFile, List<String> args) {
    String java = ProcessHandle.current().info().command().orElse("java");
    this.command = new ArrayList<>(List.of(java, "-Xmx512m", "-jar", jar.toString(), "--server.port=" + port,
        Api.BOOTSTRAP_ARGUMENT));
    this.command.addAll(args);
    this.log = logFile.toFile();
    this.port = port;
  }

  /** Starts the process and waits until its health endpoint answers UP. */
  public void start(Duration timeout) {
    try {
      process = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log)).start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("service exited with " + process.exitValue() + "; see " + log);
      }
      if (healthy()) {
        return;
      }
      sleep(250);
    }
    throw new IllegalStateException("service not healthy within " + timeout + "; see " + log);
  }

  /** SIGKILL: no shutdown hooks, no graceful close — what a crash looks like to the brokers. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  /** SIGSTOP: the process stops dead (threads, timers, sockets unanswered), as in a long GC pause. */
  public void pause() {
    signal("STOP");
  }

  /** SIGCONT after {@link #pause()}. */
  public void resume() {
    signal("CONT");
  }

  private void signal(String name) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
      if (!kill.waitFor(10, java.util.concurrent.TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  public int port() {
    return port;
  }

  @Override
  public void close() throws InterruptedException {
    if (process != null && process.isAlive()) {
      process.destroy();
      if (!process.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
        kill();
      }
    }
  }

  private boolean healthy() {
    try {
      HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + "/actuator/health/readiness")
          .toURL().openConnection();
      c.setConnectTimeout(500);
      c.setReadTimeout(1000);
      return c.getResponseCode() == 200;
    } catch (IOException e) {
      return false;
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
