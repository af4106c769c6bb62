package io.activityservice.events.log;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** User text in log lines: one line, no control characters, bounded. */
class LogSafeTest {

  @Test
  void cleanShortTextIsReturnedAsItIs() {
    String id = "order-42/ü/日本";
    assertThat(LogSafe.text(id)).isSameAs(id);
    assertThat(LogSafe.text(null)).isEqualTo("null");
    assertThat(LogSafe.text(42)).isEqualTo("42");
  }

  @Test
  void lineBreaksAndControlCharactersCannotForgeALine() {
    String forged =
        "e1\n2026-11-25 17:00:00.000 ERROR [main] o.a.Fake - forged\r\n\t\u0000\u001b[31m\u0085\u2028\u2029"
            + "\u202e\u2066\ufeff\u200b\\n";
    String safe = LogSafe.text(forged);
    assertThat(safe)
        .doesNotContain(
            "\n", "\r", "\t", "\u0000", "\u001b", "\u0085", "\u2028", "\u2029", "\u202e", "\u2066",
            "\ufeff", "\u200b");
    assertThat(safe)
        .startsWith("e1\\n2026-11-25 17:00:00.000 ERROR")
        .contains("\\r\\n\\t\\u0000\\u001b[31m")
        .endsWith(
            "\\\\n"); // a backslash in the input is doubled, so \n in the output is always one of
    // ours
    assertThat(safe.chars().filter(c -> c < 0x20 || (c >= 0x7f && c <= 0x9f)).count()).isZero();
  }

  @Test
  void longTextIsCutAndSaysHowMuch() {
    String safe = LogSafe.text("a".repeat(10_000));
    assertThat(safe)
        .hasSize(LogSafe.MAX_LENGTH + "…(+9744 chars)".length())
        .endsWith("…(+9744 chars)");
    assertThat(LogSafe.text("a\nb".repeat(200), 4)).isEqualTo("a\\nba…(+596 chars)");
  }
}
