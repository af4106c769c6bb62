package io.activityservice.perf.profile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * System calls of a process during one burst, traced with {@code strace -f -yy -xx} (all threads;
 * socket descriptors shown with their addresses; buffers in hex), classified per peer: writes to
 * the ActiveMQ broker by OpenWire command (message sends, acks, transaction commands: one broker
 * request each), HTTP requests to SQS by {@code X-Amz-Target} action, writes to Kafka, HTTP
 * responses, other writes, and futex calls (thread hand-offs and wake-ups). strace slows the traced
 * process down a lot, so this burst is never one of the measured ones.
 */
public final class Syscalls {

  private static final Pattern CALL =
      Pattern.compile("^(?:\\[pid\\s+)?\\d*\\]?\\s*([a-z_0-9]+)\\((.*)$");
  private static final Pattern SOCKET =
      Pattern.compile("^\\d+<TCP(?:v6)?:\\[.*?:(\\d+)->.*?:(\\d+)\\]>");
  private static final Pattern DATA = Pattern.compile("\"((?:\\\\x[0-9a-f]{2})*)\"");
  private static final Pattern TARGET =
      Pattern.compile("(?i)x-amz-target:\\s*([A-Za-z0-9_.]+)|[?&]Action=([A-Za-z]+)");

  private Syscalls() {}

  /** Whether strace is installed. */
  public static boolean available() {
    return Files.isExecutable(Path.of("/usr/bin/strace"));
  }

  /** A running trace. */
  public static final class Trace implements AutoCloseable {
    private final Process process;

    private Trace(Process process) {
      this.process = process;
    }

    /** Stops tracing (strace detaches on SIGTERM and writes the rest of its output). */
    @Override
    public void close() {
      io.activityservice.testsupport.ServiceProcess.stop(process, Duration.ofSeconds(10));
    }
  }

  /**
   * Attaches strace to every thread of {@code pid}, writing to {@code out}; gives it a moment to
   * attach.
   */
  public static Trace start(long pid, Path out) throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(
                "/usr/bin/strace",
                "-f",
                "-qq",
                "-yy",
                "-xx",
                "-s",
                "2048",
                "-e",
                "trace=write,writev,sendto,sendmsg,futex",
                "-e",
                "signal=none",
                "-o",
                out.toAbsolutePath().toString(),
                "-p",
                Long.toString(pid))
            .redirectErrorStream(true)
            .redirectOutput(out.resolveSibling(out.getFileName() + ".log").toFile())
            .start();
    Thread.sleep(1500);
    if (!p.isAlive()) {
      throw new IOException("strace exited with " + p.exitValue() + " (see " + out + ".log)");
    }
    return new Trace(p);
  }

  /**
   * Counts per kind in a trace file.
   *
   * @param roles TCP port → what listens there ({@code activemq}, {@code sqs}, {@code kafka},
   *     {@code http}: the traced process's own HTTP port, whose writes are responses)
   */
  public static Map<String, Long> count(Path trace, Map<Integer, String> roles) throws IOException {
    try (Stream<String> lines = Files.lines(trace)) {
      return count(lines.toList(), roles);
    }
  }

  /** Counts per kind in the lines of a trace. */
  public static Map<String, Long> count(List<String> lines, Map<Integer, String> roles) {
    Map<String, Long> out = new TreeMap<>();
    for (String line : lines) {
      String kind = classify(line, roles);
      if (kind != null) {
        out.merge(kind, 1L, Long::sum);
      }
    }
    return out;
  }

  /** The kind of one strace line, or null for lines that are no call (resumptions, exits). */
  static String classify(String line, Map<Integer, String> roles) {
    if (line.contains("resumed>") || line.contains("+++") || line.contains("---")) {
      return null;
    }
    String body = line.replaceFirst("^\\d+\\s+", "");
    Matcher m = CALL.matcher(body);
    if (!m.find()) {
      return null;
    }
    String call = m.group(1);
    if (call.equals("futex")) {
      return "futex calls";
    }
    Matcher s = SOCKET.matcher(m.group(2));
    if (!s.find()) {
      return "other writes (files, pipes, eventfds)";
    }
    int local = Integer.parseInt(s.group(1));
    int remote = Integer.parseInt(s.group(2));
    String role = roles.get(remote);
    if (role == null && roles.containsKey(local)) {
      return roles.get(local) + " responses written";
    }
    if (role == null) {
      return "other socket writes";
    }
    byte[] data = data(m.group(2));
    return switch (role) {
      case "activemq" -> "broker: " + openWire(data);
      case "sqs" -> http(data, "sqs");
      default -> role + ": socket writes";
    };
  }

  /**
   * The bytes strace printed for a buffer ({@code -xx}: every byte as {@code \xNN}); the first
   * buffer only.
   */
  static byte[] data(String args) {
    Matcher d = DATA.matcher(args);
    if (!d.find()) {
      return new byte[0];
    }
    String hex = d.group(1).replace("\\x", "");
    byte[] out = new byte[hex.length() / 2];
    for (int i = 0; i < out.length; i++) {
      out[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
    }
    return out;
  }

  /**
   * The OpenWire command a write carries (4-byte size prefix, then the command type; ActiveMQ's
   * client flushes one command per write).
   */
  static String openWire(byte[] data) {
    if (data.length < 5) {
      return "other writes";
    }
    int type = data[4] & 0xff;
    return switch (type) {
      case 23, 24, 25, 26, 27, 28, 29 -> "message sends";
      case 22 -> "acks";
      case 7 -> "transaction commands (begin/commit/rollback)";
      case 20 -> "message pulls";
      case 30, 31, 32, 33, 34 -> "responses";
      case 10 -> "keep-alives";
      case 19 -> "producer acks";
      default -> "other commands (type " + type + ")";
    };
  }

  /** An HTTP request to SQS by action (X-Amz-Target), or a continuation of a body. */
  static String http(byte[] data, String role) {
    String text = new String(data, java.nio.charset.StandardCharsets.ISO_8859_1);
    if (!text.startsWith("POST ") && !text.startsWith("GET ")) {
      return role + ": request body writes";
    }
    Matcher t = TARGET.matcher(text);
    String action =
        t.find()
            ? (t.group(1) != null ? t.group(1) : t.group(2)).replaceFirst("^AmazonSQS\\.", "")
            : "request (action beyond the traced bytes)";
    return role + " requests: " + action;
  }

  /** Per relayed event. */
  public static Map<String, Double> perEvent(Map<String, Long> counts, long events) {
    Map<String, Double> out = new LinkedHashMap<>();
    counts.forEach((k, v) -> out.put(k, events == 0 ? Double.NaN : (double) v / events));
    return out;
  }
}
