package io.activityservice.rules;

import io.activityservice.events.model.RoutableEvent;
import io.cloudevents.CloudEvent;

/**
 * The service's own way from an {@link Event} to the routed event behind it (actions that forward
 * or post the event, the engine). Rules cannot use it: the DRL guard lets rule code name no class
 * but its allow-list, and {@link Event} itself has no public method that leads here. Whoever calls
 * it must not change what it returns: the routed event's JSON is what subscribers receive.
 */
public final class EventAccess {

  private EventAccess() {}

  /** The routed event behind {@code event}. */
  public static RoutableEvent routable(Event event) {
    return event.routable();
  }

  /** The CloudEvent behind {@code event}, as received. */
  public static CloudEvent cloudEvent(Event event) {
    return event.cloudEvent();
  }
}
