package io.activityservice.events.problem;

import java.util.List;

/**
 * Input the service cannot accept. Mapped to HTTP 400 with an {@code application/problem+json} body
 * that names each offending field.
 */
public class InvalidInputException extends RuntimeException {

  /**
   * One reason input was refused. {@code field} is a JSON-pointer-like path, e.g. {@code
   * data.value}.
   */
  public record FieldError(String field, String reason) {}

  private final List<FieldError> errors;

  public InvalidInputException(String field, String reason) {
    this(List.of(new FieldError(field, reason)));
  }

  public InvalidInputException(List<FieldError> errors) {
    super(errors.isEmpty() ? "invalid input" : describe(errors));
    this.errors = List.copyOf(errors);
  }

  public List<FieldError> errors() {
    return errors;
  }

  private static String describe(List<FieldError> errors) {
    FieldError first = errors.get(0);
    String more = errors.size() > 1 ? " (and " + (errors.size() - 1) + " more)" : "";
    return first.field() + ": " + first.reason() + more;
  }
}
