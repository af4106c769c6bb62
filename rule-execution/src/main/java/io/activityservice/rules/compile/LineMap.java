package io.activityservice.rules.compile;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Maps line numbers of the compiled source (header + user DRL + footer) back to the user's DRL, in
 * the line list of a Drools message and in its text ({@code Line 7:4}, {@code line 7}, {@code
 * [7,0]}).
 */
final class LineMap {

  private static final Pattern LINE_IN_TEXT = Pattern.compile("(?i)\\b(line\\s+)(\\d+)");
  private static final Pattern MVEL_POSITION =
      Pattern.compile("\\s*\\[Line: \\d+, Column: \\d+\\]");
  private static final Pattern RULE_POSITION =
      Pattern.compile("(\\[Rule name='[^']*'\\]|: )\\[(\\d+),(\\d+)\\]");

  private final int headerLines;
  private final int userLines;

  LineMap(int headerLines, String userDrl) {
    this.headerLines = headerLines;
    this.userLines = (int) userDrl.chars().filter(c -> c == '\n').count() + 1;
  }

  /** The user's line for a compiled line; lines of the footer map to the user's last line. */
  int toUser(int compiledLine) {
    int line = compiledLine - headerLines;
    return line < 1 ? 1 : Math.min(line, userLines);
  }

  /** {@code line N: message}, with every line number inside the message mapped too. */
  String describe(int[] compiledLines, String message) {
    String raw = message == null ? "error" : MVEL_POSITION.matcher(message).replaceAll("").trim();
    String text = mapText(raw);
    int first = 0;
    if (compiledLines != null) {
      for (int l : compiledLines) {
        if (l > 0) {
          first = l;
          break;
        }
      }
    }
    if (first == 0) {
      Matcher m = LINE_IN_TEXT.matcher(message == null ? "" : message);
      if (m.find()) {
        first = Integer.parseInt(m.group(2));
      }
    }
    return first > 0 ? "line " + toUser(first) + ": " + text : text;
  }

  private String mapText(String text) {
    StringBuilder out = new StringBuilder();
    Matcher m = LINE_IN_TEXT.matcher(text);
    while (m.find()) {
      m.appendReplacement(
          out, Matcher.quoteReplacement(m.group(1) + toUser(Integer.parseInt(m.group(2)))));
    }
    m.appendTail(out);
    StringBuilder out2 = new StringBuilder();
    Matcher r = RULE_POSITION.matcher(out.toString());
    while (r.find()) {
      r.appendReplacement(
          out2,
          Matcher.quoteReplacement(
              r.group(1) + "[" + toUser(Integer.parseInt(r.group(2))) + "," + r.group(3) + "]"));
    }
    r.appendTail(out2);
    return out2.toString();
  }
}
