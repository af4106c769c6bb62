package io.activityservice.events.subscription;

import io.activityservice.events.problem.InvalidInputException;
import io.cloudevents.CloudEvent;
import io.cloudevents.sql.EvaluationRuntime;
import io.cloudevents.sql.Expression;
import io.cloudevents.sql.ParseException;
import io.cloudevents.sql.Parser;
import io.cloudevents.sql.Result;

/** A compiled CESQL expression; an event passes when it evaluates to {@code true} without errors. */
public final class CesqlFilter {

  private static final EvaluationRuntime RUNTIME = EvaluationRuntime.getDefault();

  private final String text;
  private final Expression expression;

  private CesqlFilter(String text, Expression expression) {
    this.text = text;
    this.expression = expression;
  }

  /**
   * Compiles an expression.
   *
   * @throws InvalidInputException naming {@code filter} with the parser's message
   */
  public static CesqlFilter compile(String text) {
    try {
      return new CesqlFilter(text, Parser.parseDefault(text));
    } catch (ParseException e) {
      throw new InvalidInputException("filter", "is not valid CESQL: " + e.getMessage());
    } catch (RuntimeException e) {
      throw new InvalidInputException("filter", "is not valid CESQL: " + e);
    }
  }

  public boolean test(CloudEvent event) {
    Result result = expression.evaluate(RUNTIME, event);
    return !result.isFailed() && Boolean.TRUE.equals(result.value());
  }

  /**
   * Why {@code event} does not pass, for people testing a filter: {@code null} when it passes (exactly when
   * {@link #test} is true), else the evaluation errors or the value the expression gave.
   */
  public String whyNot(CloudEvent event) {
    Result result = expression.evaluate(RUNTIME, event);
    if (result.isFailed()) {
      return "the filter could not be evaluated on this event: " + result.causes().stream()
          .map(Throwable::getMessage).reduce((a, b) -> a + "; " + b).orElse("evaluation failed");
    }
    return Boolean.TRUE.equals(result.value()) ? null : "the filter evaluates to " + result.value();
  }

  public String text() {
    return text;
  }
}
