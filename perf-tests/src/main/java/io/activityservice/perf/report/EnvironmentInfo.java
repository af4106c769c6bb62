package io.activityservice.perf.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The machine and software a report was measured on. */
public final class EnvironmentInfo {

  private EnvironmentInfo() {}

  /** CPU, cores, memory, OS, JVM and load, plus {@code extra} (versions, settings). */
  public static Map<String, String> collect(Map<String, String> extra) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("date", Instant.now().toString());
    m.put(
        "cpu",
        firstValue(Path.of("/proc/cpuinfo"), "model name").orElse(System.getProperty("os.arch")));
    m.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
    m.put("memory", firstValue(Path.of("/proc/meminfo"), "MemTotal").orElse("unknown"));
    m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    m.put(
        "jvm",
        System.getProperty("java.vm.name")
            + " "
            + System.getProperty("java.runtime.version")
            + " (runner and service)");
    m.put("load average at start", firstLine(Path.of("/proc/loadavg")).orElse("unknown"));
    m.putAll(extra);
    return m;
  }

  /** Load average now (1/5/15 min), for the end of a run. */
  public static String loadAverage() {
    return firstLine(Path.of("/proc/loadavg")).orElse("unknown");
  }

  private static java.util.Optional<String> firstValue(Path file, String key) {
    try {
      List<String> lines = Files.readAllLines(file);
      return lines.stream()
          .filter(l -> l.startsWith(key))
          .map(l -> l.substring(l.indexOf(':') + 1).trim())
          .findFirst();
    } catch (IOException e) {
      return java.util.Optional.empty();
    }
  }

  private static java.util.Optional<String> firstLine(Path file) {
    try {
      return Files.readAllLines(file).stream().findFirst();
    } catch (IOException e) {
      return java.util.Optional.empty();
    }
  }
}
