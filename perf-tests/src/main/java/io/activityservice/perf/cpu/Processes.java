package io.activityservice.perf.cpu;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Finds the process of an external server (LocalStack) to read its CPU time. Linux only; empty
 * elsewhere.
 */
public final class Processes {

  private Processes() {}

  /**
   * The pid in {@code pidFile} if that process is alive, else the process listening on TCP {@code
   * port} on this machine (from {@code /proc/net/tcp*} and the processes' open sockets; only
   * processes this user may inspect).
   */
  public static Optional<Long> find(Path pidFile, int port) {
    try {
      if (pidFile != null && Files.isReadable(pidFile)) {
        long pid = Long.parseLong(Files.readString(pidFile).trim());
        if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) && listens(pid, port)) {
          return Optional.of(pid);
        }
      }
    } catch (IOException | NumberFormatException e) {
      // fall through to the port
    }
    return listening(port);
  }

  /** The process listening on TCP {@code port}, if it can be found. */
  public static Optional<Long> listening(int port) {
    Set<String> inodes = listeningInodes(port);
    if (inodes.isEmpty()) {
      return Optional.empty();
    }
    try (DirectoryStream<Path> procs =
        Files.newDirectoryStream(
            Path.of("/proc"), p -> p.getFileName().toString().matches("\\d+"))) {
      for (Path proc : procs) {
        if (holdsAny(proc, inodes)) {
          return Optional.of(Long.parseLong(proc.getFileName().toString()));
        }
      }
    } catch (IOException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }

  private static boolean listens(long pid, int port) {
    Set<String> inodes = listeningInodes(port);
    return inodes.isEmpty() || holdsAny(Path.of("/proc", Long.toString(pid)), inodes);
  }

  private static boolean holdsAny(Path proc, Set<String> inodes) {
    try (DirectoryStream<Path> fds = Files.newDirectoryStream(proc.resolve("fd"))) {
      for (Path fd : fds) {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (target.startsWith("socket:[")
              && inodes.contains(target.substring(8, target.length() - 1))) {
            return true;
          }
        } catch (IOException e) {
          // closed meanwhile
        }
      }
    } catch (IOException | SecurityException e) {
      return false;
    }
    return false;
  }

  /** Socket inodes listening on {@code port} (IPv4 and IPv6). */
  static Set<String> listeningInodes(int port) {
    Set<String> out = new HashSet<>();
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      try {
        out.addAll(parseListening(Files.readAllLines(Path.of(table)), port));
      } catch (IOException e) {
        // not Linux, or no IPv6
      }
    }
    return out;
  }

  /**
   * Inodes of the sockets in a {@code /proc/net/tcp} table that listen (state 0A) on {@code port}.
   */
  static Set<String> parseListening(List<String> lines, int port) {
    Set<String> out = new HashSet<>();
    String hexPort = ":" + String.format(Locale.ROOT, "%04X", port);
    for (String line : lines) {
      String[] f = line.trim().split("\\s+");
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      if (f.length > 9 && f[1].toUpperCase(Locale.ROOT).endsWith(hexPort) && f[3].equals("0A")) {
        out.add(f[9]);
      }
    }
    return out;
  }
}
