package io.activityservice.detector.internal;

/**
 * User text made safe for one log line (issue 19, log forging): event ids and types, detector names, error
 * messages that quote EPL. CR, LF, tabs and every other control or format
 * character (Unicode line and paragraph separators, bidirectional overrides...) become visible escapes
 * (backslash-n, backslash-r, backslash-t, backslash-u2028...), so a value can neither start a forged log line nor
 * rearrange one, and the text is cut to {@value #MAX} characters.
 *
 * <p>Temporary home: event-service is getting one shared escaping helper; this one (a copy of
 * rule-execution's {@code io.activityservice.rules.internal.LogText}) is to be merged into it. Not an API.
 */
public final class LogText {

  /** Longest text kept; the rest is replaced by a count. */
  public static final int MAX = 1000;

  private static final char LINE_SEPARATOR = (char) 0x2028;
  private static final char PARAGRAPH_SEPARATOR = (char) 0x2029;

  private LogText() {
  }

  /** {@code value} as one bounded log line; {@code "null"} for null. */
  public static String escape(Object value) {
    String s = String.valueOf(value);
    int n = Math.min(s.length(), MAX);
    int i = 0;
    while (i < n && !needsEscape(s.charAt(i))) {
      i++;
    }
    if (i == n && s.length() <= MAX) {
      return s;
    }
    StringBuilder out = new StringBuilder(n + 16).append(s, 0, i);
    for (; i < n; i++) {
      char c = s.charAt(i);
      switch (c) {
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (needsEscape(c)) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    if (s.length() > MAX) {
      out.append("...(").append(s.length() - MAX).append(" more characters)");
    }
    return out.toString();
  }

  private static boolean needsEscape(char c) {
    return Character.isISOControl(c) || c == LINE_SEPARATOR || c == PARAGRAPH_SEPARATOR
        || Character.getType(c) == Character.FORMAT;
  }
}
