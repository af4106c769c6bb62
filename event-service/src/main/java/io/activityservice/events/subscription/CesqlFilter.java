package io.activityservice.events.subscription;

import io.activityservice.events.problem.InvalidInputException;
import io.cloudevents.CloudEvent;
import io.cloudevents.sql.EvaluationRuntime;
import io.cloudevents.sql.Expression;
import io.cloudevents.sql.ParseException;
import io.cloudevents.sql.Parser;
import io.cloudevents.sql.Result;

/**
 * A compiled CESQL expression; an event passes when it evaluates to {@code true} without errors.
 */
public final class CesqlFilter {

  private static final EvaluationRuntime RUNTIME = EvaluationRuntime.getDefault();

  private final String text;
  private final Expression expression;

  private CesqlFilter(String text, Expression expression) {
    this.text = text;
    this.expression = expression;
  }

  /**
   * Compiles an expression within the default {@link PatternLimits}.
   *
   * @throws InvalidInputException naming {@code filter} with the parser's message or the bound it
   *     exceeds
   */
  public static CesqlFilter compile(String text) {
    return compile(text, PatternLimits.DEFAULT);
  }

  /**
   * Compiles an expression. Its length, nesting and operator count are checked on the text first,
   * without parsing: the CESQL parser (ANTLR) and the expression it builds are recursive, so a
   * filter nested a few thousand levels deep would overflow the thread's stack.
   *
   * @throws InvalidInputException naming {@code filter} with the parser's message or the bound it
   *     exceeds
   */
  public static CesqlFilter compile(String text, PatternLimits limits) {
    checkShape(text, limits);
    try {
      return new CesqlFilter(text, Parser.parseDefault(text));
    } catch (ParseException e) {
      throw new InvalidInputException("filter", "is not valid CESQL: " + e.getMessage());
    } catch (RuntimeException e) {
      throw new InvalidInputException("filter", "is not valid CESQL: " + e.getMessage());
    } catch (StackOverflowError e) {
      // Not expected within the bounds above; a 400 rather than a 500 if a thread's stack is
      // unusually small.
      throw new InvalidInputException(
          "filter",
          "is nested too deeply to parse; write it with fewer nested"
              + " parentheses and operators");
    }
  }

  /**
   * Length, nesting (parentheses, function calls) and operators, counted outside string literals;
   * each operator ({@code AND}, {@code OR}, {@code XOR}, {@code NOT}, {@code LIKE}, {@code IN},
   * {@code EXISTS}, comparisons and arithmetic) adds a level to the parsed expression.
   */
  static void checkShape(String text, PatternLimits limits) {
    if (text.length() > limits.maxFilterLength()) {
      throw new InvalidInputException(
          "filter",
          "is "
              + text.length()
              + " characters long; at most "
              + limits.maxFilterLength()
              + " (activity.patterns.max-filter-length)");
    }
    int depth = 0;
    int maxDepth = 0;
    int operators = 0;
    char quote = 0;
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (quote != 0) {
        if (c == '\\') {
          i += 2;
          continue;
        }
        if (c == quote) {
          quote = 0;
        }
        i++;
        continue;
      }
      if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '(') {
        maxDepth = Math.max(maxDepth, ++depth);
      } else if (c == ')') {
        depth = Math.max(0, depth - 1);
      } else if ("=<>!+-*/%".indexOf(c) >= 0) {
        operators++;
        if (i + 1 < text.length()
            && "=>".indexOf(text.charAt(i + 1)) >= 0
            && "<>!".indexOf(c) >= 0) {
          i++; // <=, >=, <>, !=: one operator
        }
      } else if (Character.isLetter(c)) {
        int start = i;
        while (i < text.length()
            && (Character.isLetterOrDigit(text.charAt(i)) || text.charAt(i) == '_')) {
          i++;
        }
        if (OPERATOR_WORDS.contains(text.substring(start, i).toUpperCase(java.util.Locale.ROOT))) {
          operators++;
        }
        continue;
      }
      i++;
    }
    if (maxDepth > limits.maxFilterDepth()) {
      throw new InvalidInputException(
          "filter",
          "nests parentheses or function calls "
              + maxDepth
              + " levels deep; at most "
              + limits.maxFilterDepth()
              + " (activity.patterns.max-filter-depth)");
    }
    if (operators > limits.maxFilterOperators()) {
      throw new InvalidInputException(
          "filter",
          "has "
              + operators
              + " operators; at most "
              + limits.maxFilterOperators()
              + " (activity.patterns.max-filter-operators)");
    }
  }

  private static final java.util.Set<String> OPERATOR_WORDS =
      java.util.Set.of("AND", "OR", "XOR", "NOT", "LIKE", "IN", "EXISTS");

  public boolean test(CloudEvent event) {
    Result result = expression.evaluate(RUNTIME, event);
    return !result.isFailed() && Boolean.TRUE.equals(result.value());
  }

  /**
   * Why {@code event} does not pass, for people testing a filter: {@code null} when it passes
   * (exactly when {@link #test} is true), else the evaluation errors or the value the expression
   * gave.
   */
  public String whyNot(CloudEvent event) {
    Result result = expression.evaluate(RUNTIME, event);
    if (result.isFailed()) {
      return "the filter could not be evaluated on this event: "
          + result.causes().stream()
              .map(Throwable::getMessage)
              .reduce((a, b) -> a + "; " + b)
              .orElse("evaluation failed");
    }
    return Boolean.TRUE.equals(result.value()) ? null : "the filter evaluates to " + result.value();
  }

  public String text() {
    return text;
  }
}
