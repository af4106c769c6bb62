package io.activityservice.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * "No module reads another's tables", checked on the sources: a table belongs to the module whose
 * migrations create it; the SQL in a module's string literals may name only its own tables.
 *
 * <p>Read from the source tree (the module's {@code src/main/java} and every module's migrations
 * under the repository root), because compiled constant strings are not visible to ArchUnit.
 */
public final class TableOwnership {

  private static final Pattern CREATE_TABLE =
      Pattern.compile(
          "(?i)\\bcreate\\s+(?:unlogged\\s+)?table\\s+(?:if\\s+not\\s+exists\\s+)?([a-z_][a-z0-9_]*)");
  private static final Pattern STRING_LITERAL =
      Pattern.compile("\"\"\"(.*?)\"\"\"|\"((?:[^\"\\\\\\n]|\\\\.)*)\"", Pattern.DOTALL);
  private static final Pattern TABLE_REFERENCE =
      Pattern.compile(
          "(?i)\\b(?:from|join|into|update|table|truncate)\\s+(?:only\\s+)?([a-z_][a-z0-9_]*)");

  private TableOwnership() {}

  /**
   * The tables of other modules that the SQL in this module's main sources names, each with the
   * files naming it.
   *
   * @param moduleDir the module's directory (its tests run there: {@code Path.of("")})
   */
  public static Map<String, Set<String>> foreignTablesUsed(Path moduleDir) {
    Path module = moduleDir.toAbsolutePath().normalize();
    Path root = repositoryRoot(module);
    Set<String> own = tablesCreatedUnder(module.resolve("src/main/resources"));
    Map<String, Set<String>> foreign = new TreeMap<>();
    Set<String> all = new TreeSet<>();
    for (Path resources : moduleResourceDirectories(root)) {
      all.addAll(tablesCreatedUnder(resources));
    }
    all.removeAll(own);
    for (Path java : files(module.resolve("src/main/java"), ".java")) {
      Matcher literal = STRING_LITERAL.matcher(read(java));
      while (literal.find()) {
        String text = literal.group(1) != null ? literal.group(1) : literal.group(2);
        Matcher ref = TABLE_REFERENCE.matcher(text);
        while (ref.find()) {
          String table = ref.group(1).toLowerCase(Locale.ROOT);
          if (all.contains(table)) {
            foreign
                .computeIfAbsent(table, t -> new TreeSet<>())
                .add(module.relativize(java).toString());
          }
        }
      }
    }
    return foreign;
  }

  /** Tables created by the {@code .sql} files under a resources directory. */
  static Set<String> tablesCreatedUnder(Path resources) {
    Set<String> tables = new TreeSet<>();
    for (Path sql : files(resources, ".sql")) {
      Matcher m = CREATE_TABLE.matcher(read(sql));
      while (m.find()) {
        tables.add(m.group(1).toLowerCase(Locale.ROOT));
      }
    }
    return tables;
  }

  private static List<Path> moduleResourceDirectories(Path root) {
    try (Stream<Path> s = Files.walk(root, 4)) {
      return s.filter(p -> p.endsWith(Path.of("src", "main", "resources")) && Files.isDirectory(p))
          .filter(
              p -> !p.toString().contains("/target/") && !p.toString().contains("/node_modules/"))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path repositoryRoot(Path module) {
    for (Path p = module; p != null; p = p.getParent()) {
      if (Files.exists(p.resolve("mvnw")) && Files.exists(p.resolve("pom.xml"))) {
        return p;
      }
    }
    throw new IllegalStateException("no repository root (a directory with mvnw) above " + module);
  }

  private static List<Path> files(Path dir, String suffix) {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(dir)) {
      return new ArrayList<>(s.filter(p -> p.toString().endsWith(suffix)).sorted().toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
