package io.activityservice.events.transform;

import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.registry.EventRegistry;
import io.cloudevents.CloudEvent;

/**
 * Checks what a transformation produced before it is delivered. Must not block.
 *
 * <p>{@link #againstSchemas}: a transformation that gives the event a new {@code type} which is
 * registered with a JSON Schema must produce data valid under that schema (the registry's own
 * check, as at ingest); otherwise that delivery is dead-lettered with the schema's complaint. Types
 * that are not registered are not checked here (ingest's policy on unregistered types is about what
 * producers may publish).
 */
@FunctionalInterface
public interface OutputCheck {

  /** No check. */
  OutputCheck NONE = (in, out) -> {};

  /**
   * @param in the event as received
   * @param out the transformed event
   * @throws TransformException if {@code out} must not be delivered
   */
  void check(CloudEvent in, CloudEvent out);

  /** Checks transformed events whose type changed against their registered type's schema. */
  static OutputCheck againstSchemas(EventRegistry registry) {
    return (in, out) -> {
      String type = out.getType();
      if (type.equals(in.getType()) || !registry.hasSchema(type)) {
        return;
      }
      RoutableEvent routable;
      try {
        routable = RoutableEvent.of(out);
      } catch (IllegalArgumentException e) {
        throw new TransformException(
            "the transformed event's data is not valid JSON for type '" + type + "'", e);
      }
      try {
        registry.validateData(type, routable::data, routable.dataIsJson());
      } catch (InvalidInputException e) {
        throw new TransformException(
            "the transformed event does not match the schema of its type '"
                + type
                + "': "
                + e.getMessage(),
            e);
      }
    };
  }
}
