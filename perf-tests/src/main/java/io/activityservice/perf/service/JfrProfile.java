package io.activityservice.perf.service;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Hot methods of the service during one time window, from its JFR recording ({@code
 * jdk.ExecutionSample} events): the top methods by own samples (top of stack) and the project's
 * methods ({@code io.activityservice.*}) by inclusive samples (anywhere on the stack).
 *
 * @param samples execution samples in the window
 * @param self method → samples with it at the top of the stack, descending, at most {@code top}
 * @param inclusive project method → samples with it anywhere on the stack, descending, at most
 *     {@code top}
 * @param threads thread name (digits collapsed) → samples, descending, at most {@code top}
 */
public record JfrProfile(
    long samples, Map<String, Long> self, Map<String, Long> inclusive, Map<String, Long> threads) {

  /**
   * A time window.
   *
   * @param from start
   * @param to end
   */
  public record Window(Instant from, Instant to) {
    boolean contains(Instant t) {
      return !t.isBefore(from) && !t.isAfter(to);
    }
  }

  /** Reads {@code file} and summarizes the samples taken within any of {@code windows}. */
  public static JfrProfile of(Path file, List<Window> windows, int top) throws IOException {
    Map<String, Long> self = new HashMap<>();
    Map<String, Long> inclusive = new HashMap<>();
    Map<String, Long> threads = new HashMap<>();
    long samples = 0;
    try (RecordingFile recording = new RecordingFile(file)) {
      while (recording.hasMoreEvents()) {
        RecordedEvent e = recording.readEvent();
        if (!e.getEventType().getName().equals("jdk.ExecutionSample")) {
          continue;
        }
        Instant t = e.getStartTime();
        if (windows.stream().noneMatch(w -> w.contains(t))) {
          continue;
        }
        samples++;
        RecordedStackTrace stack = e.getStackTrace();
        if (e.getThread("sampledThread") != null) {
          String name = e.getThread("sampledThread").getJavaName();
          threads.merge(name == null ? "?" : name.replaceAll("\\d+", "N"), 1L, Long::sum);
        }
        if (stack == null || stack.getFrames().isEmpty()) {
          continue;
        }
        List<RecordedFrame> frames = stack.getFrames();
        self.merge(name(frames.get(0)), 1L, Long::sum);
        Set<String> seen = new HashSet<>();
        for (RecordedFrame f : frames) {
          String n = name(f);
          if (n.startsWith("io.activityservice.") && seen.add(n)) {
            inclusive.merge(n, 1L, Long::sum);
          }
        }
      }
    }
    return new JfrProfile(samples, top(self, top), top(inclusive, top), top(threads, top));
  }

  private static String name(RecordedFrame f) {
    return f.getMethod().getType().getName() + "." + f.getMethod().getName();
  }

  static Map<String, Long> top(Map<String, Long> counts, int n) {
    Map<String, Long> out = new LinkedHashMap<>();
    counts.entrySet().stream()
        .sorted(
            Map.Entry.<String, Long>comparingByValue()
                .reversed()
                .thenComparing(Map.Entry.comparingByKey()))
        .limit(n)
        .forEach(e -> out.put(e.getKey(), e.getValue()));
    return out;
  }
}
