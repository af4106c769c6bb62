package io.activityservice.app.stream;

import java.util.function.Predicate;

/**
 * Which event types the caller opening an event stream may see: the one hook for per-event-type
 * authorisation of {@code GET /api/v1/events/stream}. It is asked once, on the request thread when
 * the stream opens (where the caller's identity is known); the predicate it returns then runs on
 * the router's threads for every event that matches the stream's pattern, so it must be cheap and
 * must not block.
 *
 * <p>The bean is {@code () -> Callers.current().scope()::allows} (StreamConfiguration): the
 * caller's event-type scope.
 */
@FunctionalInterface
public interface StreamAccess {

  /** The event types the current caller may see. */
  Predicate<String> typesVisibleToCaller();
}
