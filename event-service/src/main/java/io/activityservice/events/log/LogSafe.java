package io.activityservice.events.log;

/**
 * User-supplied text made safe for a log line: event ids, types, sources, channel URIs, names, rule
 * output. The result is one line (CR, LF and every other control character, the Unicode line and
 * paragraph separators and the bidirectional overrides are written as {@code \n}, {@code \r},
 * {@code \t} or {@code \}{@code uXXXX} escapes, and a backslash as {@code \\}, so an escape in the
 * input cannot pass for one of ours) and bounded in length (longer text is cut and ends with {@code
 * …(+N chars)}). A log line that carries user text therefore cannot be split into a forged second
 * line or hide what follows.
 *
 * <p>Use it at the call site: {@code log.warn("event {} refused", LogSafe.text(id))}. It costs
 * nothing when the text is clean and short (the same string is returned).
 */
public final class LogSafe {

  /** Longest text kept, in characters, before {@code …(+N chars)}. */
  public static final int MAX_LENGTH = 256;

  /**
   * Longest text kept of a message a user wrote to be logged (a rule's {@code log} action, a
   * compiler's error).
   */
  public static final int MAX_MESSAGE_LENGTH = 1000;

  private LogSafe() {}

  /** {@code value} as one bounded, escaped line; {@code null} stays {@code "null"}. */
  public static String text(Object value) {
    return text(value, MAX_LENGTH);
  }

  /**
   * A message a user wrote to be logged (a rule's {@code log} action, a compiler error quoting DRL
   * or EPL).
   */
  public static String message(Object value) {
    return text(value, MAX_MESSAGE_LENGTH);
  }

  /** {@code value} as one escaped line of at most {@code maxLength} characters of the input. */
  public static String text(Object value, int maxLength) {
    if (value == null) {
      return "null";
    }
    String s = String.valueOf(value);
    int limit = Math.min(s.length(), Math.max(0, maxLength));
    int first = -1;
    for (int i = 0; i < limit; i++) {
      if (needsEscape(s.charAt(i))) {
        first = i;
        break;
      }
    }
    if (first < 0 && limit == s.length()) {
      return s;
    }
    StringBuilder out = new StringBuilder(limit + 16);
    out.append(s, 0, first < 0 ? limit : first);
    for (int i = first < 0 ? limit : first; i < limit; i++) {
      char c = s.charAt(i);
      if (!needsEscape(c)) {
        out.append(c);
      } else if (c == '\n') {
        out.append("\\n");
      } else if (c == '\r') {
        out.append("\\r");
      } else if (c == '\t') {
        out.append("\\t");
      } else if (c == '\\') {
        out.append("\\\\");
      } else {
        out.append(String.format("\\u%04x", (int) c));
      }
    }
    if (limit < s.length()) {
      out.append("…(+").append(s.length() - limit).append(" chars)");
    }
    return out.toString();
  }

  /**
   * Control characters (C0, DEL, C1), line and paragraph separators, bidirectional embeddings,
   * overrides and isolates, zero-width characters and the byte-order mark; and the backslash, so
   * that {@code \n} in the output always is one of ours.
   */
  static boolean needsEscape(char c) {
    return c < 0x20
        || c == 0x7f
        || (c >= 0x80 && c <= 0x9f)
        || c == '\\'
        || c == 0x2028
        || c == 0x2029
        || (c >= 0x200b && c <= 0x200f)
        || (c >= 0x202a && c <= 0x202e)
        || (c >= 0x2066 && c <= 0x2069)
        || c == 0xfeff
        || c == 0x85
        || (c >= 0x80 && Character.getType(c) == Character.FORMAT);
  }
}
