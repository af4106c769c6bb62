package io.activityservice.events.problem;

/** A resource already exists or changed concurrently. Mapped to HTTP 409. */
public class ConflictException extends RuntimeException {

  private final String field;

  public ConflictException(String field, String message) {
    super(message);
    this.field = field;
  }

  public String field() {
    return field;
  }
}
