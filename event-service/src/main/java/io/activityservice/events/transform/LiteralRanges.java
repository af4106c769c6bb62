package io.activityservice.events.transform;

import io.activityservice.events.problem.InvalidInputException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Refuses, at compile time, a range with literal bounds ({@code [1..10000000]}) larger than the
 * allocation budget allows. The engine materialises a range in one evaluation step, so the per-step
 * allocation check cannot stop it before it has allocated all of it (about 380 MB for 10^7 items);
 * a literal range that large is refused with its position instead. Ranges with computed bounds are
 * still only bounded by the engine's own cap of 10^7 items.
 */
final class LiteralRanges {

  /** Heap per materialised item: a boxed number and its slot in a list, measured ~38 B here. */
  static final int BYTES_PER_ITEM = 32;

  private static final Pattern RANGE =
      Pattern.compile("(-?\\d+(?:\\.\\d+)?)\\s*\\.\\.\\s*(-?\\d+(?:\\.\\d+)?)");

  private LiteralRanges() {}

  /**
   * @throws InvalidInputException naming {@code field} and the range's position when its size times
   *     {@link #BYTES_PER_ITEM} exceeds {@code limits.maxAllocatedBytes()}
   */
  static void check(String field, String text, TransformLimits limits) {
    String code = withoutStringsAndComments(text);
    Matcher m = RANGE.matcher(code);
    while (m.find()) {
      double from = Double.parseDouble(m.group(1));
      double to = Double.parseDouble(m.group(2));
      double items = to - from + 1;
      if (items * BYTES_PER_ITEM > limits.maxAllocatedBytes()) {
        throw new InvalidInputException(
            field,
            "has a range of "
                + String.format("%.0f", items)
                + " items at position "
                + (m.start() + 1)
                + "; at most "
                + limits.maxAllocatedBytes() / BYTES_PER_ITEM
                + " fit activity.transforms.max-allocated-bytes="
                + limits.maxAllocatedBytes());
      }
    }
  }

  /** The text with string literals and comments blanked out, positions kept. */
  static String withoutStringsAndComments(String text) {
    StringBuilder out = new StringBuilder(text);
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (c == '"' || c == '\'') {
        int j = i + 1;
        while (j < text.length() && text.charAt(j) != c) {
          j += text.charAt(j) == '\\' ? 2 : 1;
        }
        blank(out, i, Math.min(j + 1, text.length()));
        i = j + 1;
      } else if (c == '/' && i + 1 < text.length() && text.charAt(i + 1) == '*') {
        int end = text.indexOf("*/", i + 2);
        int stop = end < 0 ? text.length() : end + 2;
        blank(out, i, stop);
        i = stop;
      } else if (c == '`') {
        int end = text.indexOf('`', i + 1);
        int stop = end < 0 ? text.length() : end + 1;
        blank(out, i, stop);
        i = stop;
      } else {
        i++;
      }
    }
    return out.toString();
  }

  private static void blank(StringBuilder out, int from, int to) {
    for (int k = from; k < to && k < out.length(); k++) {
      out.setCharAt(k, ' ');
    }
  }
}
