package io.activityservice.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README stays a ten-minute read that leads everywhere: at most 250 lines, every page under
 * {@code docs/} linked from it, and every relative link in the README, the docs pages and the
 * module READMEs pointing at a file that exists.
 */
class DocumentationLinksTest {

  private static final Path ROOT = Path.of("..");
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)#\\s]+)(#[^)\\s]*)?\\)");

  @Test
  void readmeIsShortAndLinksEveryDocsPage() throws IOException {
    List<String> readme = Files.readAllLines(ROOT.resolve("README.md"));
    assertThat(readme)
        .as("README.md lines (move details into docs/)")
        .hasSizeLessThanOrEqualTo(250);
    String text = String.join("\n", readme);
    try (Stream<Path> pages = Files.list(ROOT.resolve("docs"))) {
      List<String> unlinked =
          pages
              .map(p -> p.getFileName().toString())
              .filter(n -> n.endsWith(".md"))
              .filter(n -> !text.contains("](docs/" + n))
              .toList();
      assertThat(unlinked).as("docs pages not linked from README.md").isEmpty();
    }
  }

  @Test
  void relativeLinksPointAtFilesThatExist() throws IOException {
    List<Path> files = new ArrayList<>(List.of(ROOT.resolve("README.md")));
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).forEach(files::add);
    }
    try (Stream<Path> tree = Files.walk(ROOT, 3)) {
      tree.filter(
              p ->
                  p.getFileName().toString().equals("README.md")
                      && !p.startsWith(ROOT.resolve("perf-tests"))
                      && !p.toString().contains("target")
                      && !p.normalize().equals(ROOT.resolve("README.md").normalize()))
          .forEach(files::add);
    }
    List<String> broken = new ArrayList<>();
    for (Path file : files) {
      Matcher m = LINK.matcher(Files.readString(file));
      while (m.find()) {
        String target = m.group(1);
        if (target.contains(":")) {
          continue; // http(s):, mailto:
        }
        if (!Files.exists(file.getParent().resolve(target))) {
          broken.add(ROOT.relativize(file) + " -> " + target);
        }
      }
    }
    assertThat(broken).as("relative links to missing files").isEmpty();
  }
}
