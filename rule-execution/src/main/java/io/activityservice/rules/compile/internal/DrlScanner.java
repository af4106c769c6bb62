package io.activityservice.rules.compile.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * The one lexical scanner of DRL and rule code text: it knows quoted strings ({@code "..."} and
 * {@code '...'}, with backslash escapes), comments ({@code //} to the end of the line, CR or LF,
 * and {@code /* ... *}{@code /}) and parentheses. Everything else is code. {@code TypeExtractor}
 * uses it to split constraints; the guard uses it to find identifiers and literals in code.
 */
public final class DrlScanner {

  private DrlScanner() {}

  /** What the scanner sees; every method has an empty default. */
  public interface Listener {

    /** A code character that is not a parenthesis, with the parenthesis depth at that point. */
    default void code(int index, int depth) {}

    /**
     * A quoted literal from its opening quote to its closing quote (inclusive), or to the end if
     * unclosed.
     */
    default void literal(int start, int end, char quote) {}

    /** A comment, from its first to its last character. */
    default void comment(int start, int end) {}
  }

  /** An identifier in code. */
  public record Identifier(String name, int index) {}

  /**
   * Walks text the way DRL and Java read it. Returns the final parenthesis depth, or -1 as soon as
   * a {@code ')'} closes more than was opened.
   */
  public static int scan(String s, Listener listener) {
    int depth = 0;
    int n = s.length();
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\'') {
        int start = i;
        for (i++; i < n && s.charAt(i) != c; i++) {
          if (s.charAt(i) == '\\') {
            i++;
          }
        }
        listener.literal(start, Math.min(i, n - 1), c);
      } else if (c == '/' && i + 1 < n && s.charAt(i + 1) == '/') {
        int start = i;
        while (i + 1 < n && s.charAt(i + 1) != '\n' && s.charAt(i + 1) != '\r') {
          i++;
        }
        listener.comment(start, i);
      } else if (c == '/' && i + 1 < n && s.charAt(i + 1) == '*') {
        int start = i;
        int close = s.indexOf("*/", i + 2);
        i = close < 0 ? n - 1 : close + 1;
        listener.comment(start, i);
      } else if (c == '(') {
        depth++;
      } else if (c == ')') {
        if (--depth < 0) {
          return -1;
        }
      } else {
        listener.code(i, depth);
      }
    }
    return depth;
  }

  /**
   * The identifiers in code (not in literals or comments); a comment or literal between two letters
   * separates them.
   */
  public static List<Identifier> identifiers(String s) {
    List<Identifier> found = new ArrayList<>();
    int[] run = {-1, -1}; // start and last index of the identifier being read
    scan(
        s,
        new Listener() {
          @Override
          public void code(int index, int depth) {
            char c = s.charAt(index);
            boolean continues =
                run[0] >= 0 && index == run[1] + 1 && Character.isJavaIdentifierPart(c);
            if (continues) {
              run[1] = index;
              return;
            }
            flush();
            if (Character.isJavaIdentifierStart(c)) {
              run[0] = index;
              run[1] = index;
            }
          }

          @Override
          public void literal(int start, int end, char quote) {
            flush();
          }

          @Override
          public void comment(int start, int end) {
            flush();
          }

          private void flush() {
            if (run[0] >= 0) {
              found.add(new Identifier(s.substring(run[0], run[1] + 1), run[0]));
              run[0] = -1;
            }
          }
        });
    if (run[0] >= 0) {
      found.add(new Identifier(s.substring(run[0], run[1] + 1), run[0]));
    }
    return found;
  }

  /**
   * MVEL text with its single-quoted strings written as Java double-quoted strings (DRL constraints
   * accept both; Java reads {@code 'ab'} as a bad char literal). Everything else is kept as it is.
   */
  public static String singleQuotesToDouble(String s) {
    StringBuilder out = new StringBuilder(s.length());
    int[] copied = {0};
    scan(
        s,
        new Listener() {
          @Override
          public void literal(int start, int end, char quote) {
            if (quote != '\'' || end <= start || s.charAt(end) != '\'') {
              return;
            }
            out.append(s, copied[0], start).append('"');
            for (int i = start + 1; i < end; i++) {
              char c = s.charAt(i);
              if (c == '\\' && i + 1 < end) {
                char next = s.charAt(++i);
                out.append(next == '\'' ? "'" : "\\" + next);
              } else {
                out.append(c == '"' ? "\\\"" : String.valueOf(c));
              }
            }
            out.append('"');
            copied[0] = end + 1;
          }
        });
    return out.append(s.substring(copied[0])).toString();
  }

  /** 1-based line of a character index. */
  public static int lineOf(String s, int index) {
    int line = 1;
    for (int i = 0; i < index && i < s.length(); i++) {
      if (s.charAt(i) == '\n') {
        line++;
      }
    }
    return line;
  }
}
