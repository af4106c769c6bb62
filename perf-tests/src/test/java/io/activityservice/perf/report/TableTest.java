package io.activityservice.perf.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TableTest {

  @Test
  void rendersMarkdownAndHtml() {
    Table t = new Table("target", "status").row("a | b", "met").row("c <d>", "missed");
    assertEquals(
        "| target | status |\n|---|---|\n| a \\| b | met |\n| c <d> | missed |\n", t.markdown());
    String html = t.html();
    assertTrue(html.contains("<td class=\"ok\">met</td>"));
    assertTrue(html.contains("<td class=\"bad\">missed</td>"));
    assertTrue(html.contains("c &lt;d&gt;"));
  }

  @Test
  void rejectsTooManyCells() {
    assertThrows(IllegalArgumentException.class, () -> new Table("one").row("a", "b"));
  }
}
