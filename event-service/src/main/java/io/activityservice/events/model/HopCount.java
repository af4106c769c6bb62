package io.activityservice.events.model;

import io.cloudevents.CloudEvent;

/**
 * The {@code hopcount} extension: how many derivation steps (detector rows, rule actions) led to an
 * event. Producers of derived events set it to the largest input's count + 1, and refuse to emit
 * past a bound, so detectors and rules that feed each other cannot loop forever.
 */
public final class HopCount {

  /** The CloudEvents extension name. */
  public static final String EXTENSION = "hopcount";

  private HopCount() {}

  /** The event's hop count; 0 when the extension is absent or not a number. */
  public static int of(CloudEvent event) {
    return parse(event.getExtension(EXTENSION));
  }

  /**
   * A hop count from an extension value (integer, or a string sent by a transport that has no
   * integers).
   */
  public static int parse(Object value) {
    if (value instanceof Number n) {
      return n.intValue();
    }
    if (value == null) {
      return 0;
    }
    try {
      return Integer.parseInt(value.toString().trim());
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
