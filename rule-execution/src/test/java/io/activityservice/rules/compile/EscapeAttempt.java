package io.activityservice.rules.compile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * One attempt of the escape corpus ({@code src/test/resources/escape/*.drl}): DRL that would reach
 * outside the rule engine if Drools compiled it and an event of type {@value #TRIGGER} arrived. The
 * file starts with four comment lines: {@code description}, {@code effect} (what it would do:
 * {@code canary} file, system {@code property}, {@code thread}, {@code network} connection, {@code
 * exit} of the JVM, endless {@code loop}, {@code memory} exhaustion, an HTTP request to the canary
 * server ({@code fetch}), a change of the routed event that subscribers receive ({@code
 * mutation})), {@code refused} (text the refusal must contain) and {@code line} (the user's line
 * the refusal must name). Placeholders {@code ${CANARY}}, {@code ${PROPERTY}}, {@code ${THREAD}},
 * {@code ${PORT}} and {@code ${HTTP}} (the canary HTTP server's base URL) are filled in per test.
 */
record EscapeAttempt(
    String id, String description, String effect, String refused, int line, String template) {

  static final String TRIGGER = "escape.trigger";
  static final List<String> EFFECTS =
      List.of(
          "canary", "property", "thread", "network", "exit", "loop", "memory", "fetch", "mutation");

  /** The DRL with the placeholders filled in (no HTTP canary). */
  String drl(Path canary, String property, String thread, int port) {
    return drl(canary, property, thread, port, "http://127.0.0.1:1");
  }

  /** The DRL with the placeholders filled in. */
  String drl(Path canary, String property, String thread, int port, String http) {
    return template
        .replace("${CANARY}", canary.toString())
        .replace("${PROPERTY}", property)
        .replace("${THREAD}", thread)
        .replace("${PORT}", Integer.toString(port))
        .replace("${HTTP}", http);
  }

  @Override
  public String toString() {
    return id + ": " + description;
  }

  /** Every attempt, sorted by file name. */
  static List<EscapeAttempt> all() {
    try (Stream<Path> files = Files.list(directory())) {
      return files
          .filter(p -> p.getFileName().toString().endsWith(".drl"))
          .sorted()
          .map(EscapeAttempt::load)
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** One attempt by its file name without {@code .drl}. */
  static EscapeAttempt named(String id) {
    return load(directory().resolve(id + ".drl"));
  }

  private static Path directory() {
    try {
      return Path.of(Objects.requireNonNull(EscapeAttempt.class.getResource("/escape")).toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static EscapeAttempt load(Path file) {
    try {
      String text = Files.readString(file);
      List<String> lines = text.lines().toList();
      String id = file.getFileName().toString().replaceFirst("\\.drl$", "");
      return new EscapeAttempt(
          id,
          meta(lines, 0, "description"),
          meta(lines, 1, "effect"),
          meta(lines, 2, "refused"),
          Integer.parseInt(meta(lines, 3, "line")),
          text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String meta(List<String> lines, int index, String key) {
    String prefix = "// " + key + ": ";
    if (lines.size() <= index || !lines.get(index).startsWith(prefix)) {
      throw new IllegalStateException(
          "line " + (index + 1) + " of an escape attempt must start with '" + prefix + "'");
    }
    return lines.get(index).substring(prefix.length()).trim();
  }
}
