package io.activityservice.events.transform;

/**
 * A transformation could not produce a delivery for one event (an error in the expression at run
 * time, a bound exceeded, an output that is not a valid attribute). The delivery is dead-lettered
 * with {@link #getMessage()} as the reason.
 */
public class TransformException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public TransformException(String message) {
    super(message);
  }

  public TransformException(String message, Throwable cause) {
    super(message, cause);
  }
}
