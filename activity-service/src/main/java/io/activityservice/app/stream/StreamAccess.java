package io.activityservice.app.stream;

import java.util.function.Predicate;

/**
 * Which event types the caller opening an event stream may see: the one hook for per-event-type authorisation of
 * {@code GET /api/v1/events/stream}. It is asked once, on the request thread when the stream opens (where the
 * caller's identity is known); the predicate it returns then runs on the router's threads for every event that
 * matches the stream's pattern, so it must be cheap and must not block.
 *
 * <p>The default bean ({@link #ALL}) lets every type through, as every other endpoint does while the service has no
 * authentication. With authentication, replace it by a bean that narrows to the caller's scope, e.g.
 * {@code () -> Callers.current().scope()::allows}.
 */
@FunctionalInterface
public interface StreamAccess {

  /** Every event type (no authorisation). */
  StreamAccess ALL = () -> type -> true;

  /** The event types the current caller may see. */
  Predicate<String> typesVisibleToCaller();
}
