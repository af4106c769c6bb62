package io.activityservice.events.problem;

/** The service is at its in-flight bound; the caller should retry later. Mapped to HTTP 503. */
public class OverloadedException extends RuntimeException {

  public OverloadedException(String message) {
    super(message);
  }
}
