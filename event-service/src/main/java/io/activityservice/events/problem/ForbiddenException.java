package io.activityservice.events.problem;

/**
 * The caller is known but may not do this (a type outside its scope, a subscription pattern that
 * does not pin its types). Mapped to HTTP 403 {@code application/problem+json} naming {@code field}
 * when there is one.
 */
public class ForbiddenException extends RuntimeException {

  private final String field;

  public ForbiddenException(String field, String message) {
    super(message);
    this.field = field;
  }

  /** The offending request field, or null. */
  public String field() {
    return field;
  }
}
