package io.activityservice.rules.compile.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * Checks of the user's DRL as text, before and after the parsers see it.
 *
 * <p>{@link #lexical}: Java decodes unicode escapes (<code>&#92;u0053ystem</code>) before it reads
 * anything else, anywhere in the text, including strings and comments (<code>// &#92;u000a code
 * </code> is a comment followed by code for javac, but a comment only for a parser that does not
 * decode them). Rather than decode them the same way everywhere, the guard refuses them: a rule
 * writes the character itself. Text blocks are refused too: the DRL and Java scanners disagree on
 * where they end.
 *
 * <p>{@link #deniedNames}: the second line of defence. Every identifier in code (outside strings
 * and comments) is compared with {@link AllowList#DENIED}, so a name like {@code System} is refused
 * even where a parser difference would hide it from the structural checks.
 */
public final class SourceCheck {

  private SourceCheck() {}

  /** Unicode escapes and text blocks; lines are the user's (1-based). */
  public static List<Refusal> lexical(String drl) {
    List<Refusal> refusals = new ArrayList<>();
    for (int i = 0; i < drl.length(); i++) {
      if (drl.charAt(i) != '\\') {
        continue;
      }
      int run = i;
      while (run < drl.length() && drl.charAt(run) == '\\') {
        run++;
      }
      // backslash-u is an escape when an odd number of backslashes precede the u (two are an
      // escaped backslash).
      if ((run - i) % 2 == 1 && run < drl.length() && drl.charAt(run) == 'u') {
        int end = Math.min(drl.length(), run + 5);
        refusals.add(
            new Refusal(
                DrlScanner.lineOf(drl, i),
                "unicode escape " + drl.substring(run - 1, end),
                "unicode escapes are not allowed anywhere (Java decodes them before reading code, even in comments and "
                    + "strings); write the character itself"));
      }
      i = run - 1;
    }
    int textBlock = drl.indexOf("\"\"\"");
    if (textBlock >= 0) {
      refusals.add(
          new Refusal(
              DrlScanner.lineOf(drl, textBlock),
              "text block \"\"\"",
              "text blocks are not allowed"));
    }
    return refusals;
  }

  /** Denied names anywhere in code; lines are the user's (1-based). */
  public static List<Refusal> deniedNames(String drl) {
    List<Refusal> refusals = new ArrayList<>();
    for (DrlScanner.Identifier id : DrlScanner.identifiers(drl)) {
      String reason = AllowList.DENIED.get(id.name());
      if (reason != null) {
        refusals.add(new Refusal(DrlScanner.lineOf(drl, id.index()), id.name(), reason));
      }
    }
    return refusals;
  }
}
