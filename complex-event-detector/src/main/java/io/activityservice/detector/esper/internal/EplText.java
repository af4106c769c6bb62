package io.activityservice.detector.esper.internal;

import java.util.Locale;

/**
 * Positions in EPL text for messages. The EPL object model carries no positions, so a refused
 * construct is located by its first occurrence as a whole word outside string literals and
 * comments.
 */
final class EplText {

  private EplText() {}

  /**
   * {@code "line L, column C: "} (both counted from 1) of the first occurrence of {@code word} in
   * {@code epl}, ignoring case, outside strings and comments; {@code ""} if it does not occur.
   */
  static String position(String epl, String word) {
    return positionAt(epl, find(epl, word));
  }

  /**
   * {@code "line L, column C: "} of index {@code at} in {@code epl}; {@code ""} if {@code at} is
   * negative.
   */
  static String positionAt(String epl, int at) {
    if (at < 0) {
      return "";
    }
    int line = 1;
    int lineStart = 0;
    for (int i = 0; i < at; i++) {
      if (epl.charAt(i) == '\n') {
        line++;
        lineStart = i + 1;
      }
    }
    return "line " + line + ", column " + (at - lineStart + 1) + ": ";
  }

  /**
   * Index of a backslash-u escape outside string literals and comments, or -1. Esper's lexer does
   * not decode them in identifiers, but nothing legitimate needs one there.
   */
  static int unicodeEscapeOutsideStrings(String epl) {
    for (int i = 0; i < epl.length(); i = skip(epl, i)) {
      if (epl.charAt(i) == '\\' && i + 1 < epl.length() && epl.charAt(i + 1) == 'u') {
        return i;
      }
    }
    return -1;
  }

  private static int find(String epl, String word) {
    String text = epl.toLowerCase(Locale.ROOT);
    String w = word.toLowerCase(Locale.ROOT);
    if (w.isEmpty()) {
      return -1;
    }
    for (int i = 0; i < text.length(); i = skip(text, i)) {
      if (text.startsWith(w, i) && boundary(text, i - 1) && boundary(text, i + w.length())) {
        return i;
      }
    }
    return -1;
  }

  private static boolean boundary(String text, int i) {
    return i < 0
        || i >= text.length()
        || !(Character.isLetterOrDigit(text.charAt(i)) || text.charAt(i) == '_');
  }

  /**
   * Index after the token starting at {@code i}: a whole string literal or comment, else one
   * character.
   */
  private static int skip(String text, int i) {
    char c = text.charAt(i);
    if (c == '\'' || c == '"') {
      int j = i + 1;
      while (j < text.length() && text.charAt(j) != c) {
        j += text.charAt(j) == '\\' ? 2 : 1;
      }
      return Math.min(j + 1, text.length());
    }
    if (text.startsWith("//", i)) {
      int end = text.indexOf('\n', i);
      return end < 0 ? text.length() : end + 1;
    }
    if (text.startsWith("/*", i)) {
      int end = text.indexOf("*/", i + 2);
      return end < 0 ? text.length() : end + 2;
    }
    return i + 1;
  }
}
