package io.activityservice.perf.profile;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import java.util.jar.JarFile;

/**
 * async-profiler (Maven Central {@code tools.profiler:async-profiler}, which ships {@code
 * libasyncProfiler.so} for linux-x64) attached to another JVM through the JDK's attach API ({@code
 * VirtualMachine.loadAgentPath}, one command per attach, as async-profiler's own launcher does):
 * CPU profiles with kernel stacks ({@code event=cpu}: perf events; {@code itimer} where perf events
 * are not permitted) and allocation profiles, written as HTML flame graphs.
 */
public final class AsyncProfiler {

  private final Path library;
  private String cpuEvent = "cpu";

  private AsyncProfiler(Path library) {
    this.library = library;
  }

  /**
   * Extracts the native library from the async-profiler jar on this JVM's class path into {@code
   * dir}; empty if the jar is not there or this is not linux-x64.
   */
  public static Optional<AsyncProfiler> locate(Path dir) {
    if (!System.getProperty("os.name", "").toLowerCase().contains("linux")
        || !System.getProperty("os.arch", "").matches("amd64|x86_64")) {
      return Optional.empty();
    }
    // The jar is on the class path through the runner's manifest (so not in java.class.path): find
    // it by its class.
    String entry;
    try {
      entry =
          Path.of(
                  Class.forName("one.profiler.AsyncProfiler")
                      .getProtectionDomain()
                      .getCodeSource()
                      .getLocation()
                      .toURI())
              .toString();
    } catch (ReflectiveOperationException | java.net.URISyntaxException | RuntimeException e) {
      return Optional.empty();
    }
    try (JarFile jar = new JarFile(entry)) {
      var e = jar.getJarEntry("linux-x64/libasyncProfiler.so");
      if (e == null) {
        return Optional.empty();
      }
      Files.createDirectories(dir);
      Path lib = dir.resolve("libasyncProfiler.so").toAbsolutePath();
      try (InputStream in = jar.getInputStream(e)) {
        Files.copy(in, lib, StandardCopyOption.REPLACE_EXISTING);
      }
      return Optional.of(new AsyncProfiler(lib));
    } catch (IOException ex) {
      return Optional.empty();
    }
  }

  /**
   * The CPU event in use: {@code cpu} (perf events, kernel stacks) or {@code itimer} after a
   * refusal.
   */
  public String cpuEvent() {
    return cpuEvent;
  }

  /**
   * Starts a CPU profile of {@code pid} (1 ms interval); falls back to {@code itimer} once if perf
   * events are refused.
   */
  public void startCpu(long pid) throws IOException {
    try {
      command(pid, "start,event=" + cpuEvent + ",interval=1ms");
    } catch (IOException e) {
      if (!cpuEvent.equals("cpu")) {
        throw e;
      }
      cpuEvent = "itimer";
      command(pid, "start,event=itimer,interval=1ms");
    }
  }

  /**
   * Starts an allocation profile of {@code pid} (a sample every 512 KiB allocated, TLAB-driven).
   */
  public void startAlloc(long pid) throws IOException {
    command(pid, "start,event=alloc,alloc=512k");
  }

  /**
   * Writes the profile so far as collapsed stacks ({@code frame;frame;… weight}, weights in
   * nanoseconds of CPU) without stopping it: the input of {@link Stages}.
   */
  public void dumpCollapsed(long pid, Path file) throws IOException {
    command(pid, "dump,collapsed,total,file=" + file.toAbsolutePath());
  }

  /**
   * Stops the profile and writes it as an HTML flame graph ({@code total}: weights are CPU time /
   * bytes).
   */
  public void stop(long pid, Path html, String title) throws IOException {
    command(
        pid,
        "stop,total,file="
            + html.toAbsolutePath()
            + ",title="
            + title.replace(',', ' ').replace('=', ' '));
  }

  private void command(long pid, String args) throws IOException {
    com.sun.tools.attach.VirtualMachine vm;
    try {
      vm = com.sun.tools.attach.VirtualMachine.attach(Long.toString(pid));
    } catch (com.sun.tools.attach.AttachNotSupportedException e) {
      throw new IOException("cannot attach to " + pid + ": " + e.getMessage(), e);
    }
    try {
      vm.loadAgentPath(library.toString(), args);
    } catch (com.sun.tools.attach.AgentLoadException
        | com.sun.tools.attach.AgentInitializationException e) {
      throw new IOException("async-profiler refused '" + args + "': " + e.getMessage(), e);
    } finally {
      vm.detach();
    }
  }
}
