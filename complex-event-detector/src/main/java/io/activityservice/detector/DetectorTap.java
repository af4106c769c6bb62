package io.activityservice.detector;

import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.routing.EventRouter;

/**
 * The router tap that feeds detectors: on the ingest thread it only looks the type up in the
 * engine's set of consumed types and, on a hit, enqueues the event (never blocks).
 */
public final class DetectorTap implements EventRouter.Tap {

  private final DetectorEngine engine;

  public DetectorTap(DetectorEngine engine) {
    this.engine = engine;
  }

  @Override
  public void onEvent(RoutableEvent event) {
    if (engine.accepts(event.event().getType())) {
      engine.submit(event);
    }
  }

  @Override
  public String toString() {
    return "DetectorTap";
  }
}
