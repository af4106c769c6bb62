package io.activityservice.events.problem;

/** A named resource does not exist. Mapped to HTTP 404. */
public class NotFoundException extends RuntimeException {

  public NotFoundException(String what, String name) {
    super(what + " '" + name + "' does not exist");
  }
}
