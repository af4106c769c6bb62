package io.activityservice.app.web;

/** A request body over {@code activity.max-body-size}. Mapped to HTTP 413. */
public class PayloadTooLargeException extends RuntimeException {

  public PayloadTooLargeException(long limit) {
    super("request body exceeds the limit of " + limit + " bytes (activity.max-body-size)");
  }
}
